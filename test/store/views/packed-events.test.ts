// PackedEvents: a replayed view packed into columns and the arena gives back its exact bytes and every field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type EventRecord, viewJson } from '../../../src/events/event.js';
import { seatsOf, toStored, viewBytes, viewCrc } from '../../../src/store/views/served-event.js';
import { crc32 } from '../../../src/lib/crc32.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { encodePut } from '../../../src/store/records/encode-record.js';
import { PackedEvent, PackedEvents } from '../../../src/store/views/packed-events.js';
import { sampleRecord } from '../helpers.js';
import { mulberry32 } from '../../helpers/random.js';

/** The put line of `record` decoded as replay decodes it, into `pack`. */
function replayed(record: EventRecord, pack: PackedEvents, seq = 7) {
  const line = Buffer.from(encodePut(seq, record));
  const decoded = decodeRecord(line, 0, line.length - 1, { pack });
  if (typeof decoded === 'string' || decoded.op !== 'put') throw new Error(`not a put: ${JSON.stringify(decoded)}`);
  return decoded.stored;
}

/** Every field of a StoredEvent, read through its accessors. */
function fields(stored: ReturnType<typeof toStored>) {
  const { id, startMs, endMs, category, organizerEmail, createdAt, seq, modifiedMs, json, seriesId } = stored;
  return { id, startMs, endMs, category, organizerEmail, createdAt, seq, modifiedMs, json, seriesId, seats: seatsOf(stored), crc: viewCrc(stored), bytes: viewBytes(stored) };
}

const TRICKY = ['', '\\', '"', 'a\\"b', '\\\\', '","category":"social', '"}}', '","email":"x@y.z"}}', 'Zoë — 日本 🎉', '\n\t', '\u0000\u001f', '\ud800', 'x'.repeat(200)];

test('a packed view gives back the bytes viewJson wrote and the fields toStored gives, escapes and non-ASCII text included', () => {
  const pack = new PackedEvents();
  for (const text of TRICKY) {
    for (const field of ['title', 'description', 'location'] as const) {
      const record = sampleRecord(1, { [field]: text });
      const stored = replayed(record, pack);
      assert.ok(stored instanceof PackedEvent, `${field}: ${JSON.stringify(text)} was packed`);
      assert.deepEqual(fields(stored), fields(toStored(record, 7)), `${field}: ${JSON.stringify(text)}`);
    }
    const record = sampleRecord(2, { organizer: { name: text, email: 'Plain.Address+tag@Example.ORG' }, category: 'cultural' });
    assert.deepEqual(fields(replayed(record, pack)), fields(toStored(record, 7)), `name: ${JSON.stringify(text)}`);
  }
});

test('packed views of random records (seeded) read back exactly, after many others filled the arena', () => {
  const seed = Number(process.env['PACK_SEED'] ?? Date.now() % 1_000_000);
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const text = (): string => Array.from({ length: Math.floor(random() * 6) }, () => pick(TRICKY)).join(pick(['', ' ', 'é']));
  const pack = new PackedEvents();
  const kept: { record: EventRecord; stored: ReturnType<typeof toStored> }[] = [];
  for (let n = 1; n <= 3000; n++) {
    const start = Date.UTC(1970 + Math.floor(random() * 8000), 0, 1) + Math.floor(random() * 365 * 86_400_000);
    const record = sampleRecord(n, {
      title: text(),
      description: text().repeat(1 + Math.floor(random() * 40)),
      location: text(),
      category: pick(['academic', 'social', 'athletic', 'cultural'] as const),
      start_time: new Date(start).toISOString(),
      end_time: new Date(start + 1 + Math.floor(random() * 1e9)).toISOString(),
      capacity: Math.floor(random() * 1e6),
      registered_count: Math.floor(random() * 10),
      organizer: { name: text(), email: `Org${n}@Example.org` },
      created_at: new Date(Math.floor(random() * 4e12)).toISOString(),
    });
    kept.push({ record, stored: replayed(record, pack, n) });
  }
  assert.ok(pack.arenaBytes > 0);
  for (const { record, stored } of kept) {
    assert.ok(stored instanceof PackedEvent);
    assert.deepEqual(fields(stored), fields(toStored(record, Number(record.id.slice(4)))), `seed ${seed} (PACK_SEED repeats it), ${record.id}`);
  }
});

test('a view the columns could not give back exactly is kept as a string', () => {
  const pack = new PackedEvents();
  const record = sampleRecord(3);
  const view = viewJson(record).replace('"capacity":100', '"capacity":0100');
  const line = Buffer.from(encodePut(4, record, view));
  const decoded = decodeRecord(line, 0, line.length - 1, { pack });
  assert.ok(typeof decoded !== 'string' && decoded.op === 'put');
  assert.ok(!(decoded.stored instanceof PackedEvent));
  assert.equal(decoded.stored.json, view);
  assert.equal(pack.slots, 0);
});

test('recounted() shares the text and changes only the count, seq and time', () => {
  const pack = new PackedEvents();
  const record = sampleRecord(5, { capacity: 10, registered_count: 2 });
  const stored = replayed(record, pack);
  assert.ok(stored instanceof PackedEvent);
  const arena = pack.arenaBytes;
  const later = stored.recounted(3, 99, Date.UTC(2026, 9, 1));
  assert.equal(pack.arenaBytes, arena, 'no new text');
  assert.deepEqual(fields(later), fields(toStored({ ...record, registered_count: 3 }, 99, undefined, Date.UTC(2026, 9, 1))));
  assert.equal(stored.json, viewJson(record), 'the first state is unchanged');
  assert.equal(viewCrc(later), crc32(later.json));
});

test('a description, location, organizer name and e-mail met again are kept once; a title is kept each time', () => {
  const pack = new PackedEvents();
  replayed(sampleRecord(10, { description: 'd'.repeat(500), title: 't'.repeat(100) }), pack);
  const first = pack.arenaBytes;
  const again = replayed(sampleRecord(11, { description: 'd'.repeat(500), title: 't'.repeat(100) }), pack);
  assert.equal(pack.arenaBytes - first, 1 + 102, 'only the title (a length byte and its literal) was added');
  assert.equal(again.json, viewJson(sampleRecord(11, { description: 'd'.repeat(500), title: 't'.repeat(100) })));
  const other = replayed(sampleRecord(12, { description: 'e'.repeat(500), title: 't'.repeat(100) }), pack);
  assert.ok(pack.arenaBytes - first > 500, 'another description is kept');
  assert.equal(other.json, viewJson(sampleRecord(12, { description: 'e'.repeat(500), title: 't'.repeat(100) })));
});

test('two long descriptions alike at both ends but not in the middle stay two (the hash samples the ends, the comparison does not)', () => {
  const pack = new PackedEvents();
  const a = `${'s'.repeat(100)}middle one${'e'.repeat(100)}`;
  const b = `${'s'.repeat(100)}middle two${'e'.repeat(100)}`;
  const first = replayed(sampleRecord(20, { description: a }), pack);
  const second = replayed(sampleRecord(21, { description: b }), pack);
  assert.equal(first.json, viewJson(sampleRecord(20, { description: a })));
  assert.equal(second.json, viewJson(sampleRecord(21, { description: b })));
});

test('a text longer than an arena chunk is not packed: the event keeps its view as a string', () => {
  const pack = new PackedEvents();
  const record = sampleRecord(30, { description: 'x'.repeat(1024 * 1024) });
  const stored = replayed(record, pack);
  assert.ok(!(stored instanceof PackedEvent));
  assert.equal(stored.json, viewJson(record));
});

test('an occurrence of a series packs with its series_id, which comes back in its view and as seriesId', () => {
  const pack = new PackedEvents();
  const record = sampleRecord(40, { series_id: 'ser_0123456789abcdefABCD' });
  const stored = replayed(record, pack);
  assert.ok(stored instanceof PackedEvent);
  assert.deepEqual(fields(stored), fields(toStored(record, 7)));
  assert.match(stored.json, /,"series_id":"ser_0123456789abcdefABCD"\}$/);
  const later = stored.recounted(1, 8, Date.UTC(2026, 9, 1));
  assert.equal(later.seriesId, 'ser_0123456789abcdefABCD');
  assert.equal(replayed(sampleRecord(41), pack).seriesId, undefined);
});
