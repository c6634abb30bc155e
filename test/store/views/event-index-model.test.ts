// EventIndex against a plain map of records over seeded random puts, replacements and deletions: every list (category,
// categories, words, dates, series, pages) filtered and sorted the obvious way, with and without the search index.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, toRecord, type Category, type EventRecord, type StoredEvent } from '../../../src/events/event.js';
import { toStored } from '../../../src/store/views/served-event.js';
import { queryWords } from '../../../src/search/search-words.js';
import type { ListQuery } from '../../../src/store/event-store.js';
import { hasSearchWords } from '../../../src/search/event-search-text.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, sampleRecord } from '../helpers.js';

const SEED = Number(process.env['INDEX_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const DAY = Date.UTC(2026, 8, 1);
const HOUR = 3_600_000;
const WORDS = ['Chess', 'club', 'Zoë', 'café', 'hall', 'Hall-B', 'night', 'x"y', 'line\nbreak', '日本'];
const SERIES = ['ser_0123456789abcdefAAAA', 'ser_0123456789abcdefBBBB'];

/** Live events in the order of their latest put, as EventIndex.values() must give them. */
type Model = Map<string, StoredEvent>;

/** What list() must answer, the slow, obvious way: filter every live event, sort by (start, id), cut the page. */
function oracle(model: Model, query: ListQuery): { ids: string[]; total: number } {
  const categories = query.categories ?? (query.category === undefined ? undefined : [query.category]);
  const matches = [...model.values()]
    .filter((e) => query.seriesId === undefined || e.seriesId === query.seriesId)
    .filter((e) => categories === undefined || categories.includes(e.category))
    .filter((e) => (query.startFromMs === undefined || e.startMs >= query.startFromMs) && (query.endByMs === undefined || e.endMs <= query.endByMs))
    .filter((e) => query.words === undefined || hasSearchWords(e, query.words))
    .sort((a, b) => a.startMs - b.startMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const offset = (query.page - 1) * query.limit;
  return { ids: matches.slice(offset, offset + query.limit).map((e) => e.id), total: matches.length };
}

function answer(index: EventIndex, query: ListQuery): { ids: string[]; total: number } {
  const { events, total } = index.list(query);
  return { ids: events.map((e) => e.id), total };
}

test(`EventIndex lists, gets and counts as a plain map filtered and sorted does (INDEX_SEED=${SEED})`, async () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[below(items.length)]!;
  const phrase = (): string => Array.from({ length: below(4) }, () => pick(WORDS)).join(pick([' ', ', ', '/']));
  const record = (n: number, seq: number): EventRecord => {
    const start = DAY + below(24 * 20) * HOUR - below(2) * 1;
    return sampleRecord(n, {
      title: phrase(),
      description: phrase(),
      location: phrase(),
      organizer: { name: phrase(), email: 'o@campus.example' },
      category: pick(CATEGORIES),
      start_time: new Date(start).toISOString(),
      end_time: new Date(start + (below(6) === 0 ? below(24 * 10) * HOUR + 1 : (1 + below(3)) * HOUR)).toISOString(),
      created_at: new Date(DAY - seq).toISOString(),
      ...(below(3) === 0 ? { series_id: pick(SERIES) } : {}),
    });
  };
  const query = (): ListQuery => {
    const startFromMs = below(3) === 0 ? undefined : DAY + below(24 * 22) * HOUR - 12 * HOUR;
    const endByMs = below(3) === 0 ? undefined : (startFromMs ?? DAY) + below(24 * 12) * HOUR + below(2);
    const filter = below(4);
    return {
      // `categories` as the query parser gives it: one category or more (`category=a,b`).
      ...(filter === 1 ? { category: pick(CATEGORIES) } : filter === 2 ? { categories: CATEGORIES.filter((_, i) => i === 0 || below(2) === 0).sort(() => below(3) - 1) } : {}),
      ...(below(3) === 0 ? { words: queryWords(pick(WORDS).slice(0, 1 + below(3)) + (below(2) === 0 ? ` ${pick(WORDS)}` : '')) } : {}),
      ...(below(8) === 0 ? { seriesId: pick(SERIES) } : {}),
      startFromMs,
      endByMs,
      limit: 1 + below(below(2) === 0 ? 5 : 60),
      page: 1 + below(below(2) === 0 ? 3 : 30),
    };
  };
  const index = new EventIndex();
  // The same steps on an index without a search index: it scans for words, and must answer the same.
  const scanner = new EventIndex(new Map(), { searchIndex: false });
  const model: Model = new Map();
  for (let step = 1; step <= 1200; step++) {
    const what = `seed ${SEED} (INDEX_SEED repeats it), step ${step}`;
    const kind = below(10);
    const n = below(300);
    if (kind < 5) {
      // One put in five of a live event keeps its place (start, end, category, series) and changes its text and count:
      // the index swaps it where it was rather than deleting and inserting it.
      const current = kind === 4 ? model.get(eventId(n)) : undefined;
      const fresh = record(n, step);
      const placed = current === undefined || current.status !== undefined ? fresh : { ...toRecord(current), title: fresh.title, registered_count: below(5) };
      const stored = toStored(placed, step);
      index.put(stored);
      scanner.put(stored);
      model.delete(stored.id);
      model.set(stored.id, stored);
    } else if (kind < 7) {
      assert.equal(scanner.delete(eventId(n)), model.has(eventId(n)), `${what}: delete ${n} without a search index`);
      assert.equal(index.delete(eventId(n)), model.delete(eventId(n)), `${what}: delete ${n}`);
    } else {
      const q = query();
      const expected = oracle(model, q);
      assert.deepEqual(answer(index, q), expected, `${what}: ${JSON.stringify(q)}`);
      assert.deepEqual(answer(scanner, q), expected, `${what}, without a search index: ${JSON.stringify(q)}`);
    }
    assert.equal(index.size, model.size, what);
    assert.equal(index.get(eventId(n)), model.get(eventId(n)), what);
  }
  assert.deepEqual([...index.values()], [...model.values()], `seed ${SEED}: values() in the order of each event's latest put`);
  // A bulk load of the same map answers the same once its search index is built; without one, words are scanned at once.
  const bulk = new EventIndex(new Map(model));
  const scanning = new EventIndex(new Map(model), { searchIndex: false });
  await bulk.buildSearchIndex();
  assert.deepEqual([...bulk.values()], [...model.values()]);
  for (let round = 0; round < 150; round++) {
    const q = query();
    const expected = oracle(model, q);
    assert.deepEqual(answer(bulk, q), expected, `seed ${SEED}, bulk: ${JSON.stringify(q)}`);
    assert.deepEqual(answer(scanning, q), expected, `seed ${SEED}, scanning: ${JSON.stringify(q)}`);
  }
  // The store starts the build whether or not the index is on: without one, there is nothing to build.
  await scanning.buildSearchIndex();
  const q: ListQuery = { words: queryWords(WORDS[0]!), limit: 5, page: 1 };
  assert.deepEqual(answer(scanning, q), oracle(model, q));
});

test('a bulk-loaded index answers q by a scan until its search index is built, as it answers every other list, and stops building when asked', async () => {
  const events = new Map<string, StoredEvent>();
  for (let n = 1; n <= 5000; n++) events.set(eventId(n), toStored(sampleRecord(n, { title: n % 2 === 0 ? 'Chess night' : 'Choir' }), n));
  const index = new EventIndex(events);
  const chess: ListQuery = { words: queryWords('chess'), limit: 2, page: 1 };
  assert.deepEqual(answer(index, chess), { ids: [eventId(2), eventId(4)], total: 2500 });
  assert.equal(index.list({ limit: 1, page: 1 }).total, 5000);
  await index.buildSearchIndex(() => true);
  assert.deepEqual(answer(index, chess), { ids: [eventId(2), eventId(4)], total: 2500 }, 'stopped before it began: still a scan');
  let turns = 0;
  await index.buildSearchIndex(() => (turns++, false));
  assert.ok(turns > 1, 'built over more than one turn of the event loop');
  assert.deepEqual(answer(index, chess), { ids: [eventId(2), eventId(4)], total: 2500 });
  // Replaced or deleted before the build reached them: the index answers for what is live.
  const late = new EventIndex(new Map(events));
  late.put(toStored(sampleRecord(2, { title: 'Choir' }), 9000));
  late.delete(eventId(4));
  await late.buildSearchIndex();
  assert.deepEqual(answer(late, chess), { ids: [eventId(6), eventId(8)], total: 2498 });
});

test('an event of an unknown category, or one changed behind the index, is an error rather than a wrong list', () => {
  const index = new EventIndex();
  const odd = toStored(sampleRecord(1, { category: 'musical' as Category }), 1);
  assert.throws(() => index.put(odd), { name: 'TypeError', message: 'unknown category "musical"' });
  const moved = { ...toStored(sampleRecord(2), 2) } as { -readonly [K in keyof StoredEvent]: StoredEvent[K] };
  index.put(moved);
  for (let n = 3; n <= 20; n++) index.put(toStored(sampleRecord(n, { start_time: new Date(moved.startMs + n * HOUR).toISOString(), end_time: new Date(moved.startMs + 30 * HOUR).toISOString() }), n));
  moved.startMs += 40 * HOUR;
  assert.throws(() => index.delete(eventId(2)), { message: `event index out of step: ${eventId(2)} is not where its start time puts it` });
});
