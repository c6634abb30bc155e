// PackedEvent.searchText()/searchTextKey(): the searched fields straight from the arena, as searchTextOf reads them from the view.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventRecord } from '../../../src/events/event.js';
import { searchTextOf } from '../../../src/search/event-search-text.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { encodePut } from '../../../src/store/records/encode-record.js';
import { PackedEvent, PackedEvents } from '../../../src/store/views/packed-events.js';
import { sampleRecord } from '../helpers.js';

function replayed(record: EventRecord, pack: PackedEvents): PackedEvent {
  const line = Buffer.from(encodePut(7, record));
  const decoded = decodeRecord(line, 0, line.length - 1, { pack });
  if (typeof decoded === 'string' || decoded.op !== 'put' || !(decoded.stored instanceof PackedEvent)) throw new Error('not a packed put');
  return decoded.stored;
}

const TEXTS = ['', 'Organic Chemistry — Laboratory', 'a\\"b', 'line\nbreak\ttab', 'Zoë 日本 🎉', '"}}', 'x'.repeat(300)];

test('PackedEvent.searchText() gives each searched field as searchTextOf() reads it from the view', () => {
  const pack = new PackedEvents();
  for (const [n, text] of TEXTS.entries()) {
    const record = sampleRecord(n, { title: `T ${text}`.trim(), description: text, location: `L ${text}`.trim(), organizer: { name: `N ${text}`.trim(), email: 'o@campus.example' } });
    const stored = replayed(record, pack);
    assert.deepEqual([0, 1, 2, 3].map((field) => stored.searchText(field)), searchTextOf(stored), JSON.stringify(text));
  }
});

test('PackedEvent.searchTextKey(): equal keys for a repeated (interned) text, different keys across tables and texts', () => {
  const pack = new PackedEvents();
  const a = replayed(sampleRecord(1, { description: 'Weekly seminar', location: 'Hall 1' }), pack);
  const b = replayed(sampleRecord(2, { description: 'Weekly seminar', location: 'Hall 2' }), pack);
  const other = replayed(sampleRecord(3, { description: 'Weekly seminar', location: 'Hall 1' }), new PackedEvents());
  assert.equal(a.searchTextKey(1), b.searchTextKey(1), 'the same description, one key');
  assert.notEqual(a.searchTextKey(2), b.searchTextKey(2), 'two locations, two keys');
  assert.notEqual(a.searchTextKey(1), other.searchTextKey(1), 'another table, another key');
});
