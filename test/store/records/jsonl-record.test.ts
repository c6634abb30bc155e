// The log line format: exact bytes, round trips, and every kind of damage the decoder must catch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStored } from '../../../src/store/views/served-event.js';
import { viewJson } from '../../../src/events/event.js';
import { crc32, crc32Hex } from '../../../src/lib/crc32.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { encodeCancel, encodeCheckIn, encodeDelete, encodeIdempotency, encodeMark, encodePut, encodeRegister, encodeRegistrationState, encodeStored } from '../../../src/store/records/encode-record.js';
import type { LogRecord, MetaRecord } from '../../../src/store/records/jsonl-record.js';
import { eventId, sampleRecord } from '../helpers.js';

/** `head` closed and sealed with its checksum, as the encoders seal a line. */
function sealed(head: string): string {
  return `${head},"crc":"${crc32Hex(crc32(head + '}'))}"}\n`;
}

function decode(line: string): LogRecord | MetaRecord | string {
  const buf = Buffer.from(line, 'utf8');
  assert.equal(buf[buf.length - 1], 10, 'a line ends with a newline');
  return decodeRecord(buf, 0, buf.length - 1);
}

test('encodePut() writes seq, op, created_at, the exact view and a CRC of the line without it', () => {
  const record = sampleRecord(1);
  const line = encodePut(12, record);
  const head = `{"seq":12,"op":"put","created_at":"2026-08-01T12:00:00.000Z","event":${viewJson(record)}`;
  assert.equal(line, `${head},"crc":"${crc32Hex(crc32(head + '}'))}"}\n`);
  const parsed = JSON.parse(line);
  assert.deepEqual(Object.keys(parsed), ['seq', 'op', 'created_at', 'event', 'crc']);
  assert.deepEqual(parsed.event, JSON.parse(viewJson(record)));
});

test('encodeDelete() writes seq, op and id, and is valid JSON', () => {
  const line = encodeDelete(13, eventId(7));
  assert.match(line, /^\{"seq":13,"op":"del","id":"evt_0000000000000007","crc":"[0-9a-f]{8}"\}\n$/);
  assert.deepEqual(JSON.parse(line).id, eventId(7));
});

test('decodeRecord() round-trips a put: the stored event equals toStored, its json is the view', () => {
  const record = sampleRecord(3, { category: 'cultural', start_time: '2030-01-02T03:04:05.678Z', end_time: '2030-01-02T04:00:00.000Z' });
  const decoded = decode(encodePut(5, record));
  assert.ok(typeof decoded !== 'string' && decoded.op === 'put');
  assert.equal(decoded.seq, 5);
  assert.deepEqual(decoded.stored, toStored(record, 5));
  assert.equal(decoded.stored.json, viewJson(record));
});

test('decodeRecord() round-trips text that needs escapes and multi-byte characters', () => {
  const record = sampleRecord(4, {
    title: 'Say "hi" \\ to Zoë — 日本 🎉',
    description: 'Line one\nline two\ttabbed\r\n"quoted" \\"tricky\\" end\\',
    location: '\\',
    organizer: { name: '"', email: 'O\'Brien@Example.ORG' },
  });
  const decoded = decode(encodePut(6, record));
  assert.ok(typeof decoded !== 'string' && decoded.op === 'put');
  assert.deepEqual(decoded.stored, toStored(record, 6));
});

test('decodeRecord() reads an e-mail with an escape in it (the JSON.parse path)', () => {
  const record = sampleRecord(5, { organizer: { name: 'X', email: 'a"b\\c@Example.org' } });
  const decoded = decode(encodePut(7, record));
  assert.ok(typeof decoded !== 'string' && decoded.op === 'put');
  assert.equal(decoded.stored.organizerEmail, 'a"b\\c@example.org');
});

test('decodeRecord() reads a view whose fields come in another order (the JSON.parse path)', () => {
  const record = sampleRecord(6);
  const view = JSON.stringify({ title: record.title, id: record.id, organizer: record.organizer, description: '', category: 'social', location: 'x', start_time: record.start_time, end_time: record.end_time, capacity: 1, registered_count: 0 });
  const decoded = decode(encodePut(8, record, view));
  assert.ok(typeof decoded !== 'string' && decoded.op === 'put');
  assert.equal(decoded.stored.json, view);
  assert.equal(decoded.stored.category, 'social');
  assert.equal(decoded.stored.startMs, Date.parse(record.start_time));
});

test('decodeRecord() round-trips a delete', () => {
  assert.deepEqual(decode(encodeDelete(9, eventId(2))), { seq: 9, op: 'del', id: eventId(2) });
});

test('decodeRecord() reads a line in the middle of a buffer by its byte range', () => {
  const lines = [encodePut(1, sampleRecord(1, { title: 'Zoë' })), encodeDelete(2, eventId(1)), encodePut(3, sampleRecord(2))];
  const buf = Buffer.from(lines.join(''), 'utf8');
  const first = Buffer.byteLength(lines[0]!);
  const second = first + Buffer.byteLength(lines[1]!);
  assert.deepEqual(decodeRecord(buf, first, second - 1), { seq: 2, op: 'del', id: eventId(1) });
  const third = decodeRecord(buf, second, buf.length - 1);
  assert.ok(typeof third !== 'string' && third.op === 'put' && third.stored.id === eventId(2));
});

test('decodeRecord() catches a changed byte anywhere in a line', () => {
  for (const line of [encodePut(1, sampleRecord(1, { title: 'Zoë "x"' })), encodeDelete(2, eventId(1))]) {
    const original = Buffer.from(line, 'utf8');
    for (let at = 0; at < original.length - 1; at++) {
      for (const flip of [0x01, 0x80, 0x20]) {
        const damaged = Buffer.from(original);
        damaged[at]! ^= flip;
        const result = decodeRecord(damaged, 0, damaged.length - 1);
        assert.equal(typeof result, 'string', `byte ${at} ^ ${flip} went unnoticed`);
      }
    }
  }
});

test('decodeRecord() calls a line with a good checksum but an unknown op damage, naming the op', () => {
  const head = '{"seq":3,"op":"regx","id":"reg_0000000000000000000001"';
  const line = `${head},"crc":"${crc32Hex(crc32(head + '}'))}"}\n`;
  const result = decode(line);
  assert.equal(typeof result, 'string');
  assert.match(result as string, /unknown record kind "op":"regx"/);
});

test('decodeRecord() calls a line with a good checksum but a bad structure damage', () => {
  const bad = [
    '{"seq":0,"op":"del","id":"evt_0000000000000001"',
    '{"seq":1,"op":"put","created_at":"yesterday","event":{}',
    '{"seq":1,"op":"put","created_at":"2026-08-01T12:00:00.000Z","event":{"id":"evt_0000000000000001"}',
    '{"seq":1,"op":"put","created_at":"2026-08-01T12:00:00.000Z","event":{not json}',
    '{"op":"del","seq":1,"id":"evt_0000000000000001"',
    '{"seq":1,"op":"del","id":"evt_00 1"',
  ];
  for (const head of bad) {
    const result = decode(`${head},"crc":"${crc32Hex(crc32(head + '}'))}"}\n`);
    assert.equal(typeof result, 'string', head);
  }
  assert.equal(typeof decode('\n'), 'string');
  assert.equal(typeof decode('{"seq":1}\n'), 'string');
});

test('encodeStored() writes the same line as encodePut() for the same state', () => {
  const record = sampleRecord(8);
  assert.equal(encodeStored(toStored(record, 4)), encodePut(4, record));
});

test('encodePut() refuses a created_at that is not a UTC time, and a seq below 1', () => {
  assert.throws(() => encodePut(1, sampleRecord(1, { created_at: '2026-08-01T12:00:00Z' })), TypeError);
  assert.throws(() => encodePut(0, sampleRecord(1)), TypeError);
  assert.throws(() => encodeDelete(1, 'evt_"x'), TypeError);
});

const REGISTRATION = {
  id: 'reg_0000000000000000000007',
  eventId: eventId(3),
  name: 'Zoë "Z", O\'Neil',
  email: 'zoe@campus.edu',
  status: 'confirmed' as const,
  createdAt: '2030-01-01T00:00:00.000Z',
  checkedInAt: null,
  seq: 21,
};

test('encodeRegister() and encodeRegistrationState() round-trip a registration; only the state line keeps checked_in_at', () => {
  assert.deepEqual(decode(encodeRegister(REGISTRATION)), { seq: 21, op: 'reg', registration: REGISTRATION });
  const checkedIn = { ...REGISTRATION, status: 'confirmed' as const, checkedInAt: '2030-01-02T00:00:00.000Z' };
  assert.deepEqual(decode(encodeRegistrationState(checkedIn)), { seq: 21, op: 'regstate', registration: checkedIn });
});

test('encodeCancel() and encodeCheckIn() round-trip, promotions in order', () => {
  const cancel = { seq: 30, eventId: eventId(3), id: REGISTRATION.id, atMs: Date.parse('2030-01-03T00:00:00.000Z'), promoted: ['reg_0000000000000000000009', 'reg_0000000000000000000008'] };
  assert.deepEqual(decode(encodeCancel(cancel)), { op: 'cancel', ...cancel });
  const checkIn = { seq: 31, eventId: eventId(3), id: REGISTRATION.id, at: '2030-01-03T00:00:00.000Z' };
  assert.deepEqual(decode(encodeCheckIn(checkIn)), { op: 'checkin', ...checkIn });
});

test('encodeStored() writes the time of the change and the registrations a capacity raise confirmed; decode reads both', () => {
  const stored = toStored(sampleRecord(3), 40, undefined, Date.parse('2030-01-04T00:00:00.000Z'));
  const line = encodeStored(stored, ['reg_0000000000000000000009']);
  assert.match(line, /"at":"2030-01-04T00:00:00\.000Z","promoted":\["reg_0000000000000000000009"\],"event":/);
  assert.deepEqual(decode(line), { seq: 40, op: 'put', stored, promoted: ['reg_0000000000000000000009'] });
  assert.deepEqual(decode(encodeStored(stored)), { seq: 40, op: 'put', stored });
});

test('decodeRecord() refuses registration lines with a bad id, status or time, as damage', () => {
  for (const bad of [
    encodeRegister(REGISTRATION).replace('reg_0000000000000000000007', 'reg_7'),
    encodeRegister(REGISTRATION).replace('"confirmed"', '"maybe"'),
    encodeRegister(REGISTRATION).replace('2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Zjunk'),
  ]) {
    const head = bad.slice(0, bad.indexOf(',"crc":'));
    const resealed = `${head},"crc":"${crc32Hex(crc32(head + '}'))}"}\n`;
    assert.equal(typeof decode(resealed), 'string', resealed);
  }
  assert.throws(() => encodeRegister({ ...REGISTRATION, id: 'reg_"' }), TypeError);
});

/** A view in another field order than viewJson's, so decodeRecord takes its JSON.parse path; `overrides` replace fields. */
function reorderedView(n: number, overrides: Record<string, unknown>): string {
  const record = sampleRecord(n);
  return JSON.stringify({ title: record.title, id: record.id, organizer: record.organizer, description: '', category: 'social', location: 'x', start_time: record.start_time, end_time: record.end_time, capacity: 1, registered_count: 0, ...overrides });
}

test('decodeRecord() on the JSON.parse path calls a bad category, a malformed time, a missing e-mail or capacity damage, naming the field', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ category: 'party' }, /unknown "category"/],
    [{ category: undefined }, /unknown "category"/],
    [{ start_time: '2026-09-01T17:00:00.000Zjunk' }, /"start_time" or "end_time"/],
    [{ end_time: '2026-09-01T17:00:00Z' }, /"start_time" or "end_time"/],
    [{ end_time: 1788282000000 }, /"start_time" or "end_time"/],
    [{ organizer: { name: 'X' } }, /no organizer e-mail/],
    [{ organizer: null }, /no organizer e-mail/],
    [{ organizer: { name: 'X', email: 7 } }, /no organizer e-mail/],
    [{ capacity: '1' }, /"capacity" or "registered_count"/],
    [{ registered_count: undefined }, /"capacity" or "registered_count"/],
    [{ id: 'evt_short' }, /no valid "id"/],
  ];
  for (const [overrides, reason] of cases) {
    const result = decode(encodePut(8, sampleRecord(6), reorderedView(6, overrides)));
    assert.equal(typeof result, 'string', JSON.stringify(overrides));
    assert.match(result as string, reason, JSON.stringify(overrides));
  }
});

test('encodePut() refuses a created_at with anything after its Z', () => {
  assert.throws(() => encodePut(1, sampleRecord(1, { created_at: '2026-08-01T12:00:00.000Zjunk' })), /created_at must be YYYY-MM-DDTHH:MM:SS.sssZ/);
  assert.throws(() => encodePut(1, sampleRecord(1, { created_at: 'x2026-08-01T12:00:00.000Z' })), TypeError);
});

test('decodeRecord() round-trips the Idempotency-Key of a put and a reg line, whatever printable characters it has', () => {
  const idem = { key: 'a "key", with } and \\ and ~', keyId: 'key_abc123', requestHash: 'Zm9v-_bar' };
  const stored = toStored(sampleRecord(4), 9);
  const put = decode(encodeStored(stored, [], idem));
  assert.ok(typeof put !== 'string' && put.op === 'put');
  assert.deepEqual(put.idem, idem);
  assert.deepEqual(put.stored, stored);
  const registration = { id: 'reg_0000000000000000000001', eventId: eventId(4), name: 'N', email: 'n@x.org', status: 'confirmed' as const, createdAt: '2026-08-01T12:00:00.000Z', checkedInAt: null, seq: 10 };
  const reg = decode(encodeRegister(registration, registration.seq, idem));
  assert.ok(typeof reg !== 'string' && reg.op === 'reg');
  assert.deepEqual(reg.idem, idem);
});

test('decodeRecord() round-trips a mark line and an idem line', () => {
  assert.deepEqual(decode(encodeMark(20, 17)), { seq: 20, op: 'mark', gone: 17 });
  const entry = { key: 'k-1', keyId: 'key_abc', requestHash: 'abc', atMs: Date.parse('2026-08-01T12:00:00.000Z'), seq: 3, answer: { kind: 'event' as const, view: viewJson(sampleRecord(1)), createdAt: '2026-08-01T12:00:00.000Z' } };
  assert.deepEqual(decode(encodeIdempotency(entry)), { seq: 3, op: 'idem', entry });
});

test('decodeRecord() reads a reg line from its bytes exactly as JSON.parse would, escapes and tags left to JSON.parse', () => {
  const names = ['Grace Hopper', 'Zoë Ångström 日本', 'O\'Neil, "Z"', 'back\\slash', 'tab\there'];
  for (const [n, name] of names.entries()) {
    for (const status of ['confirmed', 'waitlisted'] as const) {
      const registration = { ...REGISTRATION, name, email: `zoë${n}@campus.edu`, status, seq: 20 };
      const line = encodeRegister(registration, 21);
      assert.deepEqual(decode(line), { seq: 21, op: 'reg', registration }, line);
      const parsed = JSON.parse(line) as { reg: Record<string, unknown> };
      assert.equal(parsed.reg['name'], name);
    }
  }
  const line = encodeRegister({ ...REGISTRATION, name: 'Plain', seq: 20 }, 21);
  const head = line.slice(0, line.indexOf(',"crc":')).replace('"seq":20}', '"seq":22}');
  assert.equal(typeof decode(`${head},"crc":"${crc32Hex(crc32(head + '}'))}"}\n`), 'string', 'a registration seq after its line is damage');
});

test('decodeRecord() names the damage of a line that is only a checksum, and reads at most 17 bytes of an unknown op', () => {
  // Nothing before the checksum: not even a seq to check it against.
  assert.equal(decode(sealed('')), 'the line does not end with its checksum ,"crc":"…"}');
  assert.equal(decode(sealed('{')), 'the line does not start with {"seq":');
  // The op's name is read up to its closing quote, and no further than 17 bytes.
  assert.equal(decode(sealed('{"seq":3,"op":"abcdefghijklmnopq"')), 'unknown record kind "op":"abcdefghijklmnopq"');
  assert.equal(decode(sealed('{"seq":3,"op":"abcdefghijklmnopqrstuvwxyz","id":"x"')), 'unknown record kind "op":"abcdefghijklmnopq"');
  assert.equal(decode(sealed('{"seq":3,"op":"docdel')), 'unknown record kind "op":"docdel"');
  assert.equal(decode(sealed('{"seq":3,"op":"')), 'unknown record kind "op":""');
});

test('decodeRecord() names each kind of damage to the head of a put line (with a good checksum), and cuts it short anywhere', () => {
  const stored = toStored(sampleRecord(3), 40, undefined, Date.parse('2030-01-04T00:00:00.000Z'));
  const line = encodeStored(stored, ['reg_0000000000000000000009'], { key: 'k', keyId: 'key_1', requestHash: 'abc' });
  const head = line.slice(0, line.indexOf(',"crc":'));
  const view = head.slice(head.indexOf(',"event":') + ',"event":'.length);
  const put = '{"seq":40,"op":"put"';
  const created = ',"created_at":"2026-08-01T12:00:00.000Z"';
  const cases: [string, string][] = [
    [`${put},"event":${view}`, 'a put line lacks "created_at"'],
    [`${put},"created_at":"2026-08-01T12:00"`, 'a put line lacks "created_at"'],
    [`${put},"created_at":"2026-08-01T12:00:00.000Z`, 'a put line lacks "event" after "created_at"'],
    [`${put},"created_at":"2026-08-01 12:00:00.000Z","event":${view}`, 'created_at is not a UTC time: "2026-08-01 12:00:00.000Z"'],
    [`${put},"created_at":"2026-02-30T12:00:00.000Z","event":${view}`, 'created_at is not a UTC time: "2026-02-30T12:00:00.000Z"'],
    [`${put}${created},"at":"2030-01-04T00:00:00.000X","event":${view}`, '"at" is not a UTC time: "2030-01-04T00:00:00.000X"'],
    [`${put}${created},"at":"2030-01-04T00:00:00.000Z"`, 'a put line lacks "event" after "created_at"'],
    [`${put}${created},"at":"2030-01-04T00:00`, 'a put line lacks "event" after "created_at"'],
    [`${put}${created},"idem":"abc.key_1.aw`, 'a put line has an unclosed "idem"'],
    [`${put}${created},"idem":"abc.key_1","event":${view}`, 'a put line has a malformed "idem"'],
    [`${put}${created},"promoted":["reg_0000000000000000000009"`, 'a put line has an unclosed "promoted" list'],
    [`${put}${created},"promoted":["reg_0000000000000000000009"}`, 'a put line has an unclosed "promoted" list'],
    [`${put}${created},"promoted":["reg_9"],"event":${view}`, 'a put line has a malformed "promoted" list'],
    [`${put}${created},"promoted":[,],"event":${view}`, 'a put line has a malformed "promoted" list'],
    [`${put}${created},"event":`, 'a put line lacks "event" after "created_at"'],
    [`${put}${created},"event"`, 'a put line lacks "event" after "created_at"'],
    [`${put}${created},"view":${view}`, 'a put line lacks "event" after "created_at"'],
    [`${put}${created},"event":[${view}]`, 'the "event" is not a JSON object'],
    [`${put}${created},"event":1}`, 'the "event" is not a JSON object'],
    [`${put}${created},"event":${view}]`, 'the "event" is not a JSON object'],
    [`${put}${created},"event":${view.slice(0, -2)}`, 'the "event" is not a JSON object'],
    [`${put}${created},"event":${view.slice(0, -1)}]`, 'the "event" is not a JSON object'],
  ];
  for (const [damaged, reason] of cases) assert.equal(decode(sealed(damaged)), reason, damaged);
  // Replay reads a line inside a buffer of many: an unclosed list must not be closed by the next line's bracket.
  const unclosed = Buffer.from(sealed(`${put}${created},"promoted":["reg_0000000000000000000009"`) + line);
  const first = unclosed.indexOf('\n');
  assert.equal(decodeRecord(unclosed, 0, first), 'a put line has an unclosed "promoted" list');
  // The first line written: nothing but the fields every put has.
  assert.deepEqual(decode(sealed(`${put}${created},"event":${view}`)), { seq: 40, op: 'put', stored: toStored(sampleRecord(3), 40) });
  // A checksum of all zeros is hex: it is compared, not refused as not hex.
  assert.match(decode(line.replace(/"crc":"[0-9a-f]{8}"/, '"crc":"00000000"')) as string, /^the checksum does not match \(written 00000000, computed [0-9a-f]{8}\)$/);
});

test('decodeRecord() reads a line read by JSON.parse with its last "op", as JSON.parse does: a second one naming no kind is damage', () => {
  const cancel = encodeCancel({ seq: 30, eventId: eventId(3), id: REGISTRATION.id, atMs: 0, promoted: [] });
  const head = cancel.slice(0, cancel.indexOf(',"crc":'));
  assert.equal(decode(sealed(`${head},"op":"nope"`)), 'unknown record kind "op":"nope"');
  assert.equal(decode(sealed(`${head},"op":5`)), 'unknown record kind "op":5');
  assert.equal(decode(sealed('{"seq":3,"op":"checkin","op":"nope"')), 'a nope line has no valid "event"');
  assert.deepEqual(decode(sealed(`${head},"op":"cancel"`)), decode(cancel));
});

test('decodeRecord() names the damage of a registration line read by JSON.parse, and reads a state line as the state it is', () => {
  assert.equal(decode(sealed('{"seq":3,"op":"cancel",')), 'the line is not valid JSON');
  const escaped = { ...REGISTRATION, name: 'tab\there' };
  const line = encodeRegister(escaped);
  const head = line.slice(0, line.indexOf(',"crc":'));
  assert.equal(decode(sealed(head.replace('"confirmed"', '"maybe"'))), `a reg line has an unknown "status" for ${REGISTRATION.id}`);
  const state = encodeRegistrationState(escaped);
  const stateHead = state.slice(0, state.indexOf(',"crc":'));
  assert.equal(decode(sealed(stateHead.replace('"confirmed"', '"maybe"'))), `a regstate line has an unknown "status" for ${REGISTRATION.id}`);
  // No encoder writes an Idempotency-Key on a state line: one there changes nothing of what it is.
  assert.deepEqual(decode(sealed(`${stateHead},"idem":"abc.key_1.aw"`)), { seq: 21, op: 'regstate', registration: escaped });
});
