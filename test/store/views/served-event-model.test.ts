// ServedEvent and the view helpers (seats read from a view, a view with another count, the measures of the served
// bytes) against the obvious implementation, JSON.stringify of the record, for seeded random records with every escape.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type EventRecord, type StoredEvent, viewJson } from '../../../src/events/event.js';
import { toStored, seatsInView, seatsOf, ServedEvent, viewBytes, viewCrc, viewWithCount } from '../../../src/store/views/served-event.js';
import { crc32 } from '../../../src/lib/crc32.js';
import { mulberry32 } from '../../helpers/random.js';
import { sampleRecord } from '../helpers.js';

const SEED = Number(process.env['SERVED_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const ESCAPED = [...Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)), '"', '\\', '\ud800', '\udfff'];
const PLAIN = ['a', ' ', '/', 'é', '日本', '🎉', '\u2028', ',"capacity":7,"registered_count":8,', '"registered_count":', ',', '0'];
const NUMBERS = [0, 1, 9, 10, 100, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 9_007_199_254_740_991];

/** A StoredEvent that is not one of the store's own forms (a test's literal, another engine's object). */
function literal(record: EventRecord, json: string): StoredEvent {
  return { id: record.id, startMs: 1, endMs: 2, category: record.category, organizerEmail: 'x', createdAt: record.created_at, seq: 1, modifiedMs: 1, json };
}

test(`ServedEvent, seatsInView, viewWithCount and the measures agree with JSON.stringify of the record (SERVED_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[below(items.length)]!;
  const text = (): string => Array.from({ length: below(10) }, () => pick(below(2) === 0 ? ESCAPED : PLAIN)).join('');
  for (let step = 1; step <= 400; step++) {
    const what = `seed ${SEED} (SERVED_SEED repeats it), step ${step}`;
    const record = sampleRecord(step, {
      title: text(),
      description: text(),
      location: text(),
      capacity: pick(NUMBERS),
      registered_count: pick(NUMBERS),
      organizer: { name: text(), email: 'Some.One@Example.org' },
      ...(below(2) === 0 ? { series_id: `ser_${'0123456789abcdef'}${step}` } : {}),
    });
    const json = viewJson(record);
    const seats = { capacity: record.capacity, registered: record.registered_count };
    assert.deepEqual(seatsInView(json), seats, what);
    const registered = pick(NUMBERS);
    assert.equal(viewWithCount(json, registered), viewJson({ ...record, registered_count: registered }), what);
    const stored = toStored(record, step, json, 1000 + step);
    assert.ok(stored instanceof ServedEvent);
    assert.deepEqual(
      { id: stored.id, startMs: stored.startMs, endMs: stored.endMs, category: stored.category, organizerEmail: stored.organizerEmail, createdAt: stored.createdAt, seq: stored.seq, modifiedMs: stored.modifiedMs, json: stored.json, seriesId: stored.seriesId },
      { id: record.id, startMs: Date.parse(record.start_time), endMs: Date.parse(record.end_time), category: record.category, organizerEmail: 'some.one@example.org', createdAt: record.created_at, seq: step, modifiedMs: 1000 + step, json, seriesId: record.series_id },
      what,
    );
    // As the plain objects before this class: seriesId is an own property of an occurrence only.
    assert.equal(Object.keys(stored).includes('seriesId'), record.series_id !== undefined, what);
    for (const each of [stored, literal(record, json)]) {
      assert.equal(viewCrc(each), crc32(json), what);
      assert.equal(viewBytes(each), Buffer.byteLength(json), what);
      assert.deepEqual(seatsOf(each), seats, what);
    }
    assert.equal(stored.viewCrc(), crc32(json), `${what}: asked again`);
    assert.equal(stored.viewBytes(), Buffer.byteLength(json), `${what}: asked again`);
  }
});

test("a ServedEvent measures its view once: the CRC and the length are kept, not taken again on each page", () => {
  const record = sampleRecord(1, { title: 'Zoë "measured" 🎉' });
  const stored = toStored(record, 1) as ServedEvent;
  const json = stored.json;
  let reads = 0;
  Object.defineProperty(stored, 'json', { get: () => (reads++, json) });
  for (let page = 0; page < 3; page++) {
    assert.equal(stored.viewCrc(), crc32(viewJson(record)));
    assert.equal(stored.viewBytes(), Buffer.byteLength(viewJson(record)));
  }
  assert.equal(reads, 2, 'the view was read once for its CRC and once for its length');
});

test('a view without "registered_count" is a TypeError, not a wrong count', () => {
  const json = viewJson(sampleRecord(2)).replace('"registered_count"', '"registered"');
  assert.throws(() => seatsInView(json), { name: 'TypeError', message: 'an event view without "registered_count"' });
  assert.throws(() => viewWithCount(json, 3), TypeError);
  assert.equal(seatsInView(',"registered_count":5,').registered, 5, 'the key found at the very start of the text');
});
