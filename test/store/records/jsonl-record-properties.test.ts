// Properties of the log line format over seeded random records: every line written reads back equal (every escape
// included); every field of a well-checksummed line, made wrong, is refused as damage; the encoders refuse what replay
// could not read. A failure prints its seed: rerun with RECORD_SEED=n.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStored } from '../../../src/store/views/served-event.js';
import { crc32, crc32Hex } from '../../../src/lib/crc32.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { encodeCancel, encodeCheckIn, encodeDelete, encodeIdempotency, encodeDocument, encodeDocumentDelete, encodeMark, encodePut, encodeRegister, encodeRegistrationState, encodeStored } from '../../../src/store/records/encode-record.js';
import { encodeIdemToken } from '../../../src/store/records/idem-token.js';
import { unloggableReason } from '../../../src/store/records/record-checks.js';
import type { LogRecord, MetaRecord } from '../../../src/store/records/jsonl-record.js';
import type { IdempotencyEntry } from '../../../src/store/views/idempotency-table.js';
import { mulberry32 } from '../../helpers/random.js';
import { NOT_A_REGISTRATION_ID, NOT_A_SEQ, NOT_A_TAG, NOT_A_TIME, NOT_AN_EVENT_ID, SEQ_AND_OP, assertAllRefused, decode, recordSamples, reseal, type Corruption } from './random-records.js';

const SEED = Number(process.env['RECORD_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const random = mulberry32(SEED);

const { int, time, eventIdOf, registrationIdOf, eventRecord, registration, tag, sample } = recordSamples(random);

test(`every line written reads back equal: 1,000 seeded random records of every kind, every escape included (RECORD_SEED=${SEED})`, () => {
  for (let n = 0; n < 1000; n++) {
    const { line, expected } = sample(n % 3 !== 0);
    assert.deepEqual(decode(line, n % 7), expected, `record ${n}: ${line}`);
    assert.deepEqual(decode(reseal(line, () => undefined)), expected, 'the checksum covers exactly the line before it');
  }
});

test(`lines without escapes are read from their bytes, never by JSON.parse: put, del and reg lines (RECORD_SEED=${SEED})`, (t) => {
  const parse = t.mock.method(JSON, 'parse');
  for (let n = 0; n < 300; n++) {
    const seq = int(1, 2 ** 40);
    const record = eventRecord(false);
    assert.deepEqual(decode(encodePut(seq, record)), { seq, op: 'put', stored: toStored(record, seq) });
    const own = registration(n < 2 ? 10 ** 15 - 1 : seq, false, false);
    assert.deepEqual(decode(encodeRegister(own)), { seq: own.seq, op: 'reg', registration: own });
    const id = eventIdOf();
    assert.deepEqual(decode(encodeDelete(seq, id)), { seq, op: 'del', id });
    const atMs = int(0, 253402300799999);
    assert.deepEqual(decode(encodeDelete(seq, id, atMs)), { seq, op: 'del', id, atMs }, 'a deletion with its time');
  }
  assert.equal(parse.mock.callCount(), 0);
});

test(`the kind of a put, del or plain reg line is matched on its bytes: its name is never made a string (RECORD_SEED=${SEED})`, (t) => {
  const record = eventRecord(false);
  const lines = [encodePut(3, record), encodeStored(toStored(record, 4, undefined, 5), [registrationIdOf()], tag()), encodeDelete(5, eventIdOf()), encodeRegister(registration(6, false, false))];
  for (const line of lines) {
    const buf = Buffer.from(line);
    const strings = t.mock.method(buf, 'toString');
    assert.equal(typeof decodeRecord(buf, 0, buf.length - 1), 'object');
    const made = strings.mock.calls.map((call) => call.result);
    for (const op of ['put', 'del', 'reg']) assert.ok(!made.includes(op), `"${op}" read as a string from ${line}`);
  }
  // Other kinds are looked up by name.
  const buf = Buffer.from(encodeMark(7, 2));
  const strings = t.mock.method(buf, 'toString');
  assert.deepEqual(decodeRecord(buf, 0, buf.length - 1), { seq: 7, op: 'mark', gone: 2 });
  assert.ok(strings.mock.calls.some((call) => call.result === 'mark'));
});

test(`every field of a well-checksummed line, made wrong, is refused as damage, on both the byte path and the JSON.parse path (RECORD_SEED=${SEED})`, () => {
  let count = 0;
  for (const hard of [false, true]) {
    const record = eventRecord(hard);
    const seq = int(2, 2 ** 40);
    const stored = toStored(record, seq, undefined, Date.parse(record.created_at) + 1000);
    const put = encodeStored(stored, [registrationIdOf()], tag());
    const eventFields: Corruption[] = [
      { path: 'event', values: [undefined, null, 5, 'x', []] },
      { path: 'event.id', values: NOT_AN_EVENT_ID },
      { path: 'event.category', values: [undefined, null, 5, '', 'party', 'Social'] },
      { path: 'event.start_time', values: NOT_A_TIME },
      { path: 'event.end_time', values: NOT_A_TIME },
      { path: 'event.capacity', values: [undefined, null, '5', [5]] },
      { path: 'event.registered_count', values: [undefined, null, '0', [0]] },
      { path: 'event.organizer', values: [undefined, null, 'x', 5] },
      { path: 'event.organizer.email', values: [undefined, null, 5, ['a@b']] },
    ];
    count += assertAllRefused('put', put, [
      ...SEQ_AND_OP(['del', 'reg']),
      { path: 'created_at', values: NOT_A_TIME },
      { path: 'at', values: NOT_A_TIME.filter((value) => value !== undefined) },
      { path: 'idem', values: NOT_A_TAG },
      { path: 'promoted', values: [null, 5, 'reg_x', {}, [5], ['reg_short'], [registrationIdOf(), 'x'], [[registrationIdOf()]]] },
      ...eventFields,
    ]);
    count += assertAllRefused('plain put', encodePut(seq, record), [{ path: 'created_at', values: NOT_A_TIME }, ...eventFields]);
    count += assertAllRefused('del', encodeDelete(seq, record.id), [...SEQ_AND_OP(['put']), { path: 'id', values: [undefined, null, 5, '', 'a b', 'é', 'x'.repeat(65), 'evt-1'] }]);
    count += assertAllRefused('timed del', encodeDelete(seq, record.id, 1_700_000_000_000), [
      ...SEQ_AND_OP(['put']),
      { path: 'id', values: [undefined, null, 5, '', 'a b', 'é', 'x'.repeat(65), 'evt-1'] },
      { path: 'at', values: NOT_A_TIME.filter((value) => value !== undefined) },
    ]);

    const registrationFields = (withSeq: boolean): Corruption[] => [
      { path: 'event', values: NOT_AN_EVENT_ID },
      { path: 'reg', values: [undefined, null, 5, 'x'] },
      { path: 'reg.id', values: NOT_A_REGISTRATION_ID },
      { path: 'reg.name', values: [undefined, null, 5, ['n'], { n: 1 }] },
      { path: 'reg.email', values: [undefined, null, 5, '', 'no-at-sign', ['a@b']] },
      { path: 'reg.status', values: [undefined, null, 5, '', 'cancelled', 'Confirmed'] },
      { path: 'reg.created_at', values: NOT_A_TIME },
      ...(withSeq ? [{ path: 'reg.seq', values: [...NOT_A_SEQ, seq + 1] }] : []),
    ];
    const own = registration(seq - 1, hard, false);
    count += assertAllRefused('reg', encodeRegister(own, seq), [...SEQ_AND_OP(['cancel', 'checkin', 'idem', 'put']), ...registrationFields(true)]);
    count += assertAllRefused('reg with idem', encodeRegister(own, seq, tag()), [{ path: 'idem', values: NOT_A_TAG }, ...registrationFields(true)]);
    count += assertAllRefused('regstate', encodeRegistrationState(registration(seq, hard, true)), [
      ...SEQ_AND_OP(['cancel', 'mark']),
      ...registrationFields(false),
      { path: 'reg.checked_in_at', values: NOT_A_TIME.filter((value) => value !== undefined && value !== null) },
    ]);
    count += assertAllRefused('cancel', encodeCancel({ seq, eventId: eventIdOf(), id: registrationIdOf(), atMs: 1_700_000_000_000, promoted: [registrationIdOf()] }), [
      ...SEQ_AND_OP(['reg', 'mark']),
      { path: 'event', values: NOT_AN_EVENT_ID },
      { path: 'id', values: NOT_A_REGISTRATION_ID },
      { path: 'at', values: NOT_A_TIME },
      { path: 'promoted', values: [undefined, null, 'x', 5, {}, [5], ['reg_short'], [registrationIdOf(), null], [[registrationIdOf()]]] },
    ]);
    count += assertAllRefused('checkin', encodeCheckIn({ seq, eventId: eventIdOf(), id: registrationIdOf(), at: time() }), [
      ...SEQ_AND_OP(['cancel', 'reg']),
      { path: 'event', values: NOT_AN_EVENT_ID },
      { path: 'id', values: NOT_A_REGISTRATION_ID },
      { path: 'at', values: NOT_A_TIME },
    ]);
    count += assertAllRefused('mark', encodeMark(seq, seq - 1), [...SEQ_AND_OP(['del']), { path: 'gone', values: [undefined, null, -1, 1.5, '1', seq + 1, [1], 2 ** 53] }]);
    const idemFields: Corruption[] = [
      { path: 'idem', values: [undefined, ...NOT_A_TAG] },
      { path: 'at', values: NOT_A_TIME },
    ];
    count += assertAllRefused('idem of an event', encodeIdempotency({ ...tag(), atMs: 1_700_000_000_000, seq, answer: { kind: 'event', view: stored.json, createdAt: record.created_at } }), [
      ...idemFields,
      { path: 'created_at', values: NOT_A_TIME },
      { path: 'view', values: [undefined, null, 5, {}] },
    ]);
    count += assertAllRefused('idem of a registration', encodeIdempotency({ ...tag(), atMs: 1_700_000_000_000, seq, answer: { kind: 'registration', registration: registration(seq - 1, hard, false) } }), [
      ...idemFields,
      ...registrationFields(true),
    ]);
  }
  assert.ok(count > 400, `${count} damaged lines refused`);
});

test('the encoders refuse what replay could not read back, so the store never writes a line that stops the next start', () => {
  const record = eventRecord(true);
  const stored = toStored(record, 5);
  const own = registration(5, true, false);
  const goodTag = tag();
  const refusals: [string, () => unknown][] = [
    ['seq 0', () => encodePut(0, record)],
    ['seq 1.5', () => encodeDelete(1.5, record.id)],
    ['seq NaN', () => encodeMark(Number.NaN, 0)],
    ['seq past 2^53', () => encodeCheckIn({ seq: 2 ** 53, eventId: record.id, id: own.id, at: own.createdAt })],
    ['a seq of 16 digits (the decoder reads 15)', () => encodeDelete(10 ** 15, 'x')],
    ['created_at without ms', () => encodePut(1, { ...record, created_at: '2026-08-01T12:00:00Z' })],
    ['created_at with a zone', () => encodeStored({ ...stored, createdAt: '2026-08-01T12:00:00.000+00:00' })],
    ['a promoted id', () => encodeStored(stored, ['reg_short'])],
    ['a tag with a bad key id', () => encodeStored(stored, [], { ...goodTag, keyId: 'a b' })],
    ['a tag with a bad hash', () => encodeIdemToken({ ...goodTag, requestHash: 'a.b' })],
    ['a delete of a bad id', () => encodeDelete(1, 'a b')],
    ['a mark gone past its seq', () => encodeMark(3, 4)],
    ['a mark gone below 0', () => encodeMark(3, -1)],
    ['a mark gone 1.5', () => encodeMark(3, 1.5)],
    ['a reg line before its registration', () => encodeRegister(own, 4)],
    ['a reg of a bad event id', () => encodeRegister({ ...own, eventId: 'evt_short' })],
    ['a reg of a bad id', () => encodeRegistrationState({ ...own, id: 'reg_short' })],
    ['a reg with a bad created_at', () => encodeRegister({ ...own, createdAt: 'yesterday' })],
    ['a cancel of a bad id', () => encodeCancel({ seq: 1, eventId: record.id, id: 'x', atMs: 0, promoted: [] })],
    ['a cancel promoting a bad id', () => encodeCancel({ seq: 1, eventId: record.id, id: own.id, atMs: 0, promoted: ['reg_x'] })],
    ['a check-in of a bad event', () => encodeCheckIn({ seq: 1, eventId: 'x', id: own.id, at: own.createdAt })],
    ['a check-in with a bad time', () => encodeCheckIn({ seq: 1, eventId: record.id, id: own.id, at: '2026-08-01' })],
    ['an idem of an event with a bad created_at', () => encodeIdempotency({ ...goodTag, atMs: 0, seq: 1, answer: { kind: 'event', view: '{}', createdAt: 'x' } })],
    ['an idem of a bad registration', () => encodeIdempotency({ ...goodTag, atMs: 0, seq: 5, answer: { kind: 'registration', registration: { ...own, id: 'bad' } } })],
    ['an idem with seq 0', () => encodeIdempotency({ ...goodTag, atMs: 0, seq: 0, answer: { kind: 'registration', registration: own } })],
  ];
  for (const [what, encode] of refusals) assert.throws(encode, (error: unknown) => error instanceof TypeError && /^[a-z].{15,}/.test(error.message) && !error.message.includes('undefined'), what);
  // And what they accept at the edges reads back.
  assert.deepEqual(decode(encodeMark(3, 3)), { seq: 3, op: 'mark', gone: 3 });
  assert.deepEqual(decode(encodeMark(3, 0)), { seq: 3, op: 'mark', gone: 0 });
  assert.deepEqual(decode(encodeDelete(10 ** 15 - 1, 'x')), { seq: 10 ** 15 - 1, op: 'del', id: 'x' }, 'the largest seq a line holds');
  assert.deepEqual(decode(encodeRegister(own, 6)), { seq: 6, op: 'reg', registration: own });
});

/** The one line the encoders write for `record`: the format has a single spelling of each record. */
function encodeAgain(record: LogRecord | MetaRecord): string {
  switch (record.op) {
    case 'put':
      return encodeStored(record.stored, record.promoted ?? [], record.idem);
    case 'del':
      return encodeDelete(record.seq, record.id);
    case 'reg':
      return encodeRegister(record.registration, record.seq, record.idem);
    case 'regstate':
      return encodeRegistrationState(record.registration);
    case 'cancel':
      return encodeCancel(record);
    case 'checkin':
      return encodeCheckIn(record);
    case 'mark':
      return encodeMark(record.seq, record.gone);
    case 'idem':
      return encodeIdempotency(record.entry);
    case 'doc':
    case 'docstate':
      return encodeDocument(record.document, record.op);
    case 'docdel':
      return encodeDocumentDelete(record.seq, record.collection, record.id);
  }
}

test(`a line with any one character cut out, or cut short anywhere, then sealed with a good checksum, is refused or read as the JSON it now spells (RECORD_SEED=${SEED})`, () => {
  let refused = 0;
  let lines = 0;
  for (let n = 0; n < 60; n++) {
    const { line, expected } = sample(n % 2 === 0);
    // A base64url Idempotency-Key cut short may still decode (its last bits are free): left to the field test above.
    if ('idem' in expected && expected.idem !== undefined) continue;
    if (expected.op === 'idem') continue;
    const head = line.slice(0, line.indexOf(',"crc":"'));
    // The byte path of a put line reads only the fields of the view the index needs (view-scan.ts): a view broken
    // elsewhere (a quote cut out of the title, a capacity of 0266) with the checksum made again is served as it is.
    // A known gap (the checksum still catches every accidental change): the view is left out here.
    const viewAt = expected.op === 'put' ? head.indexOf(',"event":{') + ',"event":'.length : head.length;
    for (let at = 0; at < viewAt; at++) {
      for (const cut of [head.slice(0, at) + head.slice(at + 1), head.slice(0, at)]) {
        const sealed = `${cut},"crc":"${crc32Hex(crc32(`${cut}}`))}"}\n`;
        const decoded = decode(sealed);
        lines++;
        if (typeof decoded === 'string') refused++;
        else {
          // Read: then it is JSON (the byte paths accept nothing JSON.parse would refuse), and it means what the
          // record says (the same JSON value as the line the encoders write for that record).
          // (Half of a surrogate pair cut out reaches the file as U+FFFD, as the decoder reads it.)
          let meaning: unknown;
          assert.doesNotThrow(() => (meaning = JSON.parse(Buffer.from(sealed, 'utf8').toString('utf8'))), `a line that is not JSON was read: ${sealed}`);
          const again = JSON.parse(encodeAgain(decoded)) as Record<string, unknown>;
          delete again['crc'];
          delete (meaning as Record<string, unknown>)['crc'];
          assert.deepEqual(again, meaning, `a damaged line was read as another: ${sealed}`);
        }
      }
    }
  }
  assert.ok(refused > lines / 2, `${refused} of ${lines} refused`);
});

test('the edges a random record seldom hits: seq 1 everywhere, a checksum in capitals or not hex, and interned strings', () => {
  const first = { ...registration(1, false, false), status: 'confirmed' as const };
  assert.deepEqual(decode(encodeRegister(first, 1)), { seq: 1, op: 'reg', registration: first });
  assert.deepEqual(decode(encodeRegister({ ...first, name: 'a "quoted" name' }, 1)), { seq: 1, op: 'reg', registration: { ...first, name: 'a "quoted" name' } });
  const state = { ...first, checkedInAt: null };
  assert.deepEqual(decode(encodeRegistrationState(state)), { seq: 1, op: 'regstate', registration: state });
  const entry: IdempotencyEntry = { ...tag(), atMs: 0, seq: 1, answer: { kind: 'registration', registration: first } };
  assert.deepEqual(decode(encodeIdempotency(entry)), { seq: 1, op: 'idem', entry });
  const line = encodeDelete(7, 'abc');
  const crc = /"crc":"([0-9a-f]{8})"/.exec(line)![1]!;
  for (const bad of [crc.toUpperCase(), `${crc.slice(0, 7)}g`, `${crc.slice(0, 7)}G`, `${crc.slice(0, 7)}/`, `${crc.slice(0, 7)}:`, `${crc.slice(0, 7)}\``]) {
    if (bad === crc) continue;
    assert.equal(decode(line.replace(crc, bad)), 'the checksum is not 8 lowercase hex digits', bad);
  }
  // Each kind of damage before the fields is named as what it is.
  const sealed = (head: string): string => `${head},"crc":"${crc32Hex(crc32(`${head}}`))}"}\n`;
  assert.match(decode('{"seq":7,"op":"del","id":"abc"}\n') as string, /^the line does not end with its checksum/);
  assert.match(decode(line.replace('"abc"', '"abd"')) as string, /^the checksum does not match \(written [0-9a-f]{8}, computed [0-9a-f]{8}\)$/);
  assert.equal(decode(sealed('{"seq":7,"xp":"del","id":"abc"')), 'the "op" field does not follow "seq"');
  assert.equal(decode(sealed('{"sequence":7,"op":"del","id":"abc"')), 'the line does not start with {"seq":');
  assert.equal(decode(sealed('{"seq":07,"op":"del","id":"abc"')), 'the sequence number is not a positive integer');
  assert.equal(decode(sealed('{"seq":7,"op":"nope","id":"abc"')), 'unknown record kind "op":"nope"');
  // Replay shares equal strings through `intern`: the event id of a registration and the organizer's e-mail.
  const seen: string[] = [];
  const intern = (value: string): string => (seen.push(value), `interned:${value}`);
  const record = eventRecord(false);
  const bytes = Buffer.from(encodePut(3, record));
  const put = decodeRecord(bytes, 0, bytes.length - 1, { intern });
  assert.ok(typeof put !== 'string' && put.op === 'put');
  assert.equal(put.stored.organizerEmail, `interned:${record.organizer.email.toLowerCase()}`);
  const escaped = Buffer.from(encodePut(3, { ...record, organizer: { ...record.organizer, email: 'Quote"d@Campus.edu' } }));
  const slow = decodeRecord(escaped, 0, escaped.length - 1, { intern });
  assert.ok(typeof slow !== 'string' && slow.op === 'put');
  assert.equal(slow.stored.organizerEmail, 'interned:quote"d@campus.edu', 'the JSON.parse path interns too');
  for (const reg of [first, { ...first, name: 'an escape\\n' }]) {
    const regBytes = Buffer.from(encodeRegister(reg, 1));
    const decoded = decodeRecord(regBytes, 0, regBytes.length - 1, { intern });
    assert.ok(typeof decoded !== 'string' && decoded.op === 'reg');
    assert.equal(decoded.registration.eventId, `interned:${reg.eventId}`);
  }
});

test(`an Idempotency-Key of 1 to 255 characters of any byte (U+0000–U+00FF) reads back equal from a put, a reg and an idem line; any other is refused when written (RECORD_SEED=${SEED})`, () => {
  const own = registration(5, false, false);
  const stored = toStored(eventRecord(false), 6);
  for (let n = 0; n < 200; n++) {
    const length = n < 2 ? [1, 255][n]! : int(1, 255);
    let key = '';
    for (let i = 0; i < length; i++) key += String.fromCharCode(int(0, 255));
    const tagged = { ...tag(), key };
    const put = decode(encodeStored(stored, [], tagged));
    assert.ok(typeof put !== 'string' && put.op === 'put', JSON.stringify(put));
    assert.deepEqual(put.idem, tagged, `key ${JSON.stringify(key)}`);
    assert.deepEqual(decode(encodeRegister(own, 6, tagged)), { seq: 6, op: 'reg', registration: own, idem: tagged });
    const entry: IdempotencyEntry = { ...tagged, atMs: 0, seq: 6, answer: { kind: 'registration', registration: own } };
    assert.deepEqual(decode(encodeIdempotency(entry)), { seq: 6, op: 'idem', entry });
  }
  // Replay refuses an empty key, or one of 256 bytes (NOT_A_TAG): the store must not write one. A character past
  // U+00FF would come back as another key (latin1 keeps its low byte).
  for (const key of ['', 'k'.repeat(256), 'caf\u0113', '\u{1f600}']) {
    assert.throws(() => encodeIdemToken({ ...tag(), key }), /cannot log the idempotency tag/, JSON.stringify(key));
    assert.throws(() => encodeStored(stored, [], { ...tag(), key }), /cannot log the idempotency tag/, JSON.stringify(key));
  }
});

/** Times of the right shape that are no real time from 1970 on: replay refuses them wherever a line holds a time. */
const IMPOSSIBLE_TIMES = ['2026-02-29T00:00:00.000Z', '2026-13-01T00:00:00.000Z', '2026-04-31T00:00:00.000Z', '2026-01-00T00:00:00.000Z', '2026-01-01T24:00:00.000Z', '2026-01-01T00:60:00.000Z', '2026-01-01T00:00:60.000Z', '1969-12-31T23:59:59.999Z', 'abcd-ef-ghTij:kl:mn.opqZ'];

test(`a time of the right shape that is no real time is refused in every line that holds one, and the encoders never write one (RECORD_SEED=${SEED})`, () => {
  const record = eventRecord(false);
  const stored = toStored(record, 9, undefined, Date.parse(record.created_at) + 1000);
  const own = registration(8, false, false);
  const lines = {
    put: encodeStored(stored),
    'put with at': encodeStored(stored, [registrationIdOf()]),
    reg: encodeRegister(own, 9),
    regstate: encodeRegistrationState({ ...own, checkedInAt: time() }),
    checkin: encodeCheckIn({ seq: 9, eventId: own.eventId, id: own.id, at: time() }),
    cancel: encodeCancel({ seq: 9, eventId: own.eventId, id: own.id, atMs: 5, promoted: [] }),
    idem: encodeIdempotency({ ...tag(), atMs: 5, seq: 9, answer: { kind: 'event', view: stored.json, createdAt: record.created_at } }),
  };
  const paths: Record<keyof typeof lines, string[]> = {
    put: ['created_at'],
    'put with at': ['created_at', 'at'],
    reg: ['reg.created_at'],
    regstate: ['reg.created_at', 'reg.checked_in_at'],
    checkin: ['at'],
    cancel: ['at'],
    idem: ['at', 'created_at'],
  };
  for (const [kind, line] of Object.entries(lines) as [keyof typeof lines, string][]) {
    assertAllRefused(kind, line, paths[kind].map((path) => ({ path, values: IMPOSSIBLE_TIMES })));
  }
  for (const bad of IMPOSSIBLE_TIMES) {
    assert.match(unloggableReason({ ...record, created_at: bad }) ?? 'accepted', /created_at/, bad);
    for (const write of [
      () => encodePut(1, { ...record, created_at: bad }),
      () => encodeRegister({ ...own, createdAt: bad }),
      () => encodeRegistrationState({ ...own, createdAt: bad }),
      () => encodeCheckIn({ seq: 9, eventId: own.eventId, id: own.id, at: bad }),
      () => encodeIdempotency({ ...tag(), atMs: 5, seq: 9, answer: { kind: 'event', view: stored.json, createdAt: bad } }),
    ]) {
      assert.throws(write, /must be YYYY-MM-DDTHH:MM:SS\.sssZ/, bad);
    }
  }
  // A time in ms becomes the line's text: it must be one replay reads back as the same ms.
  const limit = Date.UTC(10000, 0, 1);
  for (const ms of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, limit, 2 ** 53]) {
    for (const [what, write] of [
      ['the time of a change', () => encodeStored({ ...stored, modifiedMs: ms } as typeof stored)],
      ['the time of a cancellation', () => encodeCancel({ seq: 9, eventId: own.eventId, id: own.id, atMs: ms, promoted: [] })],
      ['the time of an answer', () => encodeIdempotency({ ...tag(), atMs: ms, seq: 9, answer: { kind: 'registration', registration: own } })],
    ] as const) {
      assert.throws(write, (error: unknown) => error instanceof TypeError && error.message === `${what} must be a whole number of ms from 1970 to 9999, got ${ms}`, String(ms));
    }
  }
  for (const ms of [0, limit - 1]) {
    const cancel = { seq: 9, eventId: own.eventId, id: own.id, atMs: ms, promoted: [] };
    assert.deepEqual(decode(encodeCancel(cancel)), { op: 'cancel', ...cancel });
    const entry = { ...tag(), atMs: ms, seq: 9, answer: { kind: 'registration' as const, registration: own } };
    assert.deepEqual(decode(encodeIdempotency(entry)), { seq: 9, op: 'idem', entry });
  }
});
