// A put line read as replay reads it (`pack`: views into PackedEvents' columns; `intern`: shared e-mails) gives the same
// event as read without options, over seeded random events with every escape, occurrences of a series included; views
// the columns cannot hold exactly, or in another layout, stay strings. REPLAY_LINE_SEED=n replays a failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStored, ServedEvent } from '../../../src/store/views/served-event.js';
import { viewJson, type EventRecord, type StoredEvent } from '../../../src/events/event.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { encodePut, encodeStored } from '../../../src/store/records/encode-record.js';
import type { LogRecord, MetaRecord } from '../../../src/store/records/jsonl-record.js';
import { PackedEvent, PackedEvents } from '../../../src/store/views/packed-events.js';
import { scanViewLayout } from '../../../src/store/views/view-scan.js';
import { mulberry32 } from '../../helpers/random.js';
import { decode, recordSamples } from './random-records.js';

const SEED = Number(process.env['REPLAY_LINE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const random = mulberry32(SEED);
const { int, base62, eventRecord, registrationIdOf, tag } = recordSamples(random);

function read(line: string, options: Parameters<typeof decodeRecord>[3]): LogRecord | MetaRecord | string {
  const buf = Buffer.from(line);
  return decodeRecord(buf, 0, buf.length - 1, options);
}

/** What a reader can ask of a stored event. */
function observed(stored: StoredEvent) {
  const { id, startMs, endMs, category, organizerEmail, createdAt, seq, modifiedMs, json, seriesId } = stored;
  return { id, startMs, endMs, category, organizerEmail, createdAt, seq, modifiedMs, json, seriesId };
}

/** A random event, an occurrence of a series or not. */
function randomEvent(hard: boolean): EventRecord {
  const record = eventRecord(hard);
  return random() < 0.5 ? { ...record, series_id: `ser_${base62(int(16, 30))}` } : record;
}

test(`a put line read into PackedEvents gives the event read without it, packed when its view has the usual layout (REPLAY_LINE_SEED=${SEED})`, () => {
  const pack = new PackedEvents();
  let slots = 0;
  for (let n = 0; n < 400; n++) {
    const record = randomEvent(n % 2 === 0);
    const seq = int(1, 2 ** 40);
    const stored = toStored(record, seq, undefined, Date.parse(record.created_at) + int(0, 1) * int(1, 10 ** 9));
    const promoted = Array.from({ length: int(0, 2) }, registrationIdOf);
    const idem = random() < 0.3 ? tag() : undefined;
    const line = encodeStored(stored, promoted, idem);
    const plain = read(line, {});
    const packed = read(line, { pack });
    assert.ok(typeof plain !== 'string' && plain.op === 'put' && typeof packed !== 'string' && packed.op === 'put', line);
    assert.deepEqual(observed(plain.stored), observed(stored), line);
    // The byte reader of views (view-scan.ts) says which layouts are usual: an e-mail with an escape, say, is not.
    const usual = scanViewLayout(Buffer.from(stored.json), 0, Buffer.byteLength(stored.json)) !== undefined;
    assert.equal(packed.stored instanceof PackedEvent, usual, `packed when usual: ${line}`);
    assert.equal(plain.stored instanceof PackedEvent, false);
    if (usual) slots++;
    assert.deepEqual(observed(packed.stored), observed(stored), line);
    assert.deepEqual({ ...packed, stored: undefined }, { ...plain, stored: undefined }, 'seq, promoted and idem as without pack');
    assert.equal(pack.slots, slots, 'one slot per packed put');
  }
  assert.ok(slots > 100, `${slots} of 400 packed`);
});

test('a view the columns cannot hold exactly, or in another layout, is kept as a string with the same fields', () => {
  const pack = new PackedEvents();
  const record = eventRecord(true);
  const reordered = JSON.stringify({ title: record.title, ...JSON.parse(viewJson(record)) });
  const cases: [string, EventRecord, string?][] = [
    ['a capacity past 32 bits', { ...record, capacity: 2 ** 32 }],
    ['a count past 32 bits', { ...record, registered_count: 2 ** 32 + 7 }],
    ['another field order', record, reordered],
    ['a series id, in another field order', { ...record, series_id: `ser_${base62(16)}` }, JSON.stringify({ series_id: `ser_${base62(16)}`, ...JSON.parse(viewJson(record)) })],
  ];
  for (const [what, each, view] of cases) {
    const json = view ?? viewJson(each);
    const decoded = read(encodePut(9, each, json), { pack });
    assert.ok(typeof decoded !== 'string' && decoded.op === 'put', `${what}: ${JSON.stringify(decoded)}`);
    assert.ok(decoded.stored instanceof ServedEvent, `${what}: kept as a string`);
    const seriesId = (JSON.parse(json) as { series_id?: string }).series_id;
    assert.deepEqual(observed(decoded.stored), observed(toStored({ ...each, ...(seriesId === undefined ? {} : { series_id: seriesId }) }, 9, json)), what);
  }
  assert.equal(pack.slots, 0, 'nothing was packed');
});

test(`a series id is read on both the byte path and the JSON.parse path, and a malformed one is refused (REPLAY_LINE_SEED=${SEED})`, () => {
  for (let n = 0; n < 50; n++) {
    const record = eventRecord(n % 2 === 0);
    const seriesId = `ser_${base62(int(16, 40))}`;
    const inOrder = { ...record, series_id: seriesId };
    for (const view of [viewJson(inOrder), JSON.stringify({ series_id: seriesId, ...JSON.parse(viewJson(record)) })]) {
      const decoded = decode(encodePut(3, inOrder, view));
      assert.ok(typeof decoded !== 'string' && decoded.op === 'put', view);
      assert.equal(decoded.stored.seriesId, seriesId, view);
    }
  }
  const record = eventRecord(false);
  for (const bad of [5, null, '', 'ser_short', `xser_${'0'.repeat(16)}`, `ser_${'0'.repeat(16)}!`, `Ser_${'0'.repeat(16)}`, [`ser_${'0'.repeat(16)}`]]) {
    for (const view of [JSON.stringify({ ...JSON.parse(viewJson(record)), series_id: bad }), JSON.stringify({ series_id: bad, ...JSON.parse(viewJson(record)) })]) {
      const decoded = decode(encodePut(3, record, view));
      assert.equal(typeof decoded, 'string', `series_id ${JSON.stringify(bad)}: ${view}`);
      assert.match(decoded as string, /malformed "series_id"|not|lacks|has no|unknown/, view);
    }
  }
});

test(`intern is handed the organizer's e-mail in lower case and the event id of a registration, on every path (REPLAY_LINE_SEED=${SEED})`, () => {
  for (let n = 0; n < 40; n++) {
    const record = randomEvent(n % 2 === 0);
    const seen: string[] = [];
    const intern = (value: string): string => (seen.push(value), `~${value}`);
    const decoded = read(encodePut(4, record), { intern });
    assert.ok(typeof decoded !== 'string' && decoded.op === 'put');
    assert.equal(decoded.stored.organizerEmail, `~${record.organizer.email.toLowerCase()}`);
    assert.deepEqual(seen, [record.organizer.email.toLowerCase()]);
  }
});
