// The log lines of API.md §14: a view's status, review note and cancellation reason read back on either decoder path,
// the "hidden" seq of a draft once public, an old view without status read as published, and their damage caught.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStored } from '../../../src/store/views/served-event.js';
import { viewJson, type EventRecord, type StoredEvent } from '../../../src/events/event.js';
import { crc32, crc32Hex } from '../../../src/lib/crc32.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { encodeStored } from '../../../src/store/records/encode-record.js';
import type { LogRecord, MetaRecord } from '../../../src/store/records/jsonl-record.js';
import { PackedEvent, PackedEvents } from '../../../src/store/views/packed-events.js';
import { sampleRecord } from '../helpers.js';

function decode(line: string, pack?: PackedEvents): LogRecord | MetaRecord | string {
  const buf = Buffer.from(line, 'utf8');
  return decodeRecord(buf, 0, buf.length - 1, pack === undefined ? {} : { pack });
}

function put(line: string, pack?: PackedEvents): Extract<LogRecord, { op: 'put' }> {
  const decoded = decode(line, pack);
  assert.ok(typeof decoded !== 'string' && decoded.op === 'put', String(decoded));
  return decoded;
}

const RECORDS: Record<string, EventRecord> = {
  draft: sampleRecord(1, { status: 'draft' }),
  rejected: sampleRecord(2, { status: 'draft', review_note: 'Which "room"? \\ see notes' }),
  pending: sampleRecord(3, { status: 'pending', series_id: 'ser_0123456789abcdefAAAA' }),
  cancelled: sampleRecord(4, { status: 'cancelled', cancellation_reason: 'Snow 🌨' }),
  bare: sampleRecord(5, { status: 'cancelled' }),
};

for (const [name, record] of Object.entries(RECORDS)) {
  test(`a ${name} event's line reads back with its status, note and reason, never packed (with or without a pack)`, () => {
    const stored = toStored(record, 9);
    for (const pack of [undefined, new PackedEvents()]) {
      const decoded = put(encodeStored(stored), pack).stored;
      assert.equal(decoded instanceof PackedEvent, false, 'another layout: kept as its string');
      assert.equal(decoded.status, record.status);
      assert.equal(decoded.json, viewJson(record));
      assert.equal(decoded.seriesId, record.series_id);
      assert.equal(decoded.hiddenAt, undefined);
    }
  });
}

test('a published view has no status field and is packed as before; its stored form has no status', () => {
  const record = sampleRecord(6, { status: 'published' });
  assert.equal(viewJson(record), viewJson(sampleRecord(6)), 'published: the shape of §4');
  const decoded = put(encodeStored(toStored(record, 4)), new PackedEvents()).stored;
  assert.ok(decoded instanceof PackedEvent);
  assert.equal((decoded as StoredEvent).status, undefined);
});

test('the "hidden" seq of a draft once public is written just before the view, read back on either path, with at and promoted', () => {
  const line = encodeStored(toStored(RECORDS['pending']!, 12, undefined, Date.parse('2026-08-02T00:00:00.000Z'), 7), ['reg_0123456789012345678901']);
  assert.match(line, /,"promoted":\["reg_0123456789012345678901"\],"hidden":7,"event":\{/);
  for (const pack of [undefined, new PackedEvents()]) {
    const decoded = put(line, pack);
    assert.equal(decoded.stored.hiddenAt, 7);
    assert.deepEqual(decoded.promoted, ['reg_0123456789012345678901']);
    assert.equal(decoded.stored.status, 'pending');
    assert.equal(encodeStored(decoded.stored, decoded.promoted), line, 'written again, the same bytes');
  }
  const plain = encodeStored(toStored(RECORDS['draft']!, 3, undefined, undefined, 3));
  assert.match(plain, /"created_at":"2026-08-01T12:00:00.000Z","hidden":3,"event":\{/);
  assert.equal(put(plain).stored.hiddenAt, 3);
});

test('encodeStored() refuses a hidden seq after its own line', () => {
  assert.throws(() => encodeStored(toStored(RECORDS['draft']!, 3, undefined, undefined, 4)), /hidden at the later seq 4/);
});

/** `head` closed and sealed with its checksum, as the encoders seal a line. */
function sealed(head: string): string {
  return `${head},"crc":"${crc32Hex(crc32(head + '}'))}"}\n`;
}

test('damage with a good checksum is caught: an unknown status, a malformed or later "hidden", "hidden" on a public event', () => {
  const created = '"created_at":"2026-08-01T12:00:00.000Z"';
  const view = (status: string): string => viewJson(sampleRecord(1)).slice(0, -1) + `,"status":"${status}"}`;
  for (const [head, reason] of [
    [`{"seq":5,"op":"put",${created},"event":${view('archived')}`, 'unknown "status"'],
    [`{"seq":5,"op":"put",${created},"hidden":07,"event":${view('draft')}`, 'malformed "hidden"'],
    [`{"seq":5,"op":"put",${created},"hidden":6,"event":${view('draft')}`, 'malformed "hidden"'],
    [`{"seq":5,"op":"put",${created},"hidden":x,"event":${view('draft')}`, 'malformed "hidden"'],
    [`{"seq":5,"op":"put",${created},"hidden":3,"event":${view('cancelled')}`, 'when it was hidden'],
    [`{"seq":5,"op":"put",${created},"hidden":3,"event":${viewJson(sampleRecord(1))}`, 'when it was hidden'],
    [`{"seq":5,"op":"put",${created},"hidden":3,"evt":${view('draft')}`, 'lacks "event" after "hidden"'],
  ] as const) {
    const decoded = decode(sealed(head));
    assert.equal(typeof decoded, 'string', head);
    assert.ok((decoded as string).includes(reason), `${decoded} names ${reason}`);
  }
});

test('a view written before API.md §14 (no status) reads as published on the JSON.parse path too', () => {
  // Another field order sends the view to JSON.parse.
  const record = sampleRecord(8);
  const reordered = JSON.stringify({ title: record.title, ...JSON.parse(viewJson(record)) });
  const decoded = put(sealed(`{"seq":2,"op":"put","created_at":"2026-08-01T12:00:00.000Z","event":${reordered}`)).stored;
  assert.equal(decoded.status, undefined);
  assert.equal(decoded.hiddenAt, undefined);
});
