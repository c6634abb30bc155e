// listByStatus (through EventIndex.list) against a plain map over seeded random puts that move events between the four
// statuses of API.md §14: a list without `statuses` never holds a draft or a pending event (nor counts one), and a list
// with them holds exactly the events of those statuses (drafts and pending ones of `hiddenOwner` only), paged as ever.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, EVENT_STATUSES, type EventRecord, type EventStatus, type StoredEvent } from '../../../src/events/event.js';
import { toStored } from '../../../src/store/views/served-event.js';
import { queryWords } from '../../../src/search/search-words.js';
import type { ListQuery } from '../../../src/store/event-store.js';
import { hasSearchWords } from '../../../src/search/event-search-text.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { compareEvents } from '../../../src/store/views/sort-events.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, sampleRecord } from '../helpers.js';

const SEED = Number(process.env['STATUS_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const DAY = Date.UTC(2026, 8, 1);
const HOUR = 3_600_000;
const WORDS = ['Chess', 'club', 'café', 'hall', 'night', 'secret'];
const OWNERS = ['olga@campus.edu', 'oscar@campus.edu', 'ada@campus.edu'];
const SERIES = 'ser_0123456789abcdefAAAA';

/** The answer the obvious way: every live event tested against the status rule and every filter, sorted, paged. */
function oracle(model: Map<string, StoredEvent>, query: ListQuery): { ids: string[]; total: number } {
  const categories = query.categories ?? (query.category === undefined ? undefined : [query.category]);
  const statusOf = (e: StoredEvent): EventStatus => e.status ?? 'published';
  const matches = [...model.values()]
    .filter((e) => (query.statuses === undefined ? statusOf(e) === 'published' || statusOf(e) === 'cancelled' : query.statuses.includes(statusOf(e))))
    .filter((e) => !(statusOf(e) === 'draft' || statusOf(e) === 'pending') || query.hiddenOwner === undefined || e.organizerEmail === query.hiddenOwner)
    .filter((e) => query.seriesId === undefined || e.seriesId === query.seriesId)
    .filter((e) => categories === undefined || categories.includes(e.category))
    .filter((e) => (query.startFromMs === undefined || e.startMs >= query.startFromMs) && (query.endByMs === undefined || e.endMs <= query.endByMs))
    .filter((e) => query.words === undefined || hasSearchWords(e, query.words))
    .sort(compareEvents);
  const offset = (query.page - 1) * query.limit;
  return { ids: matches.slice(offset, offset + query.limit).map((e) => e.id), total: matches.length };
}

function answer(index: EventIndex, query: ListQuery): { ids: string[]; total: number } {
  const { events, total } = index.list(query);
  return { ids: events.map((e) => e.id), total };
}

test(`EventIndex lists by status as a plain map filtered and sorted does, and keeps drafts out of every public list (STATUS_SEED=${SEED})`, async () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[below(items.length)]!;
  const phrase = (): string => Array.from({ length: 1 + below(3) }, () => pick(WORDS)).join(' ');
  const statusOf = (): EventStatus => pick(['published', 'published', 'published', 'cancelled', 'draft', 'pending'] as const);
  const record = (n: number, seq: number): EventRecord => {
    const start = DAY + below(24 * 10) * HOUR;
    const status = statusOf();
    return sampleRecord(n, {
      title: phrase(),
      description: phrase(),
      category: pick(CATEGORIES),
      organizer: { name: 'Someone', email: pick(OWNERS) },
      start_time: new Date(start).toISOString(),
      end_time: new Date(start + (1 + below(30)) * HOUR).toISOString(),
      created_at: new Date(DAY - seq).toISOString(),
      ...(below(4) === 0 ? { series_id: SERIES } : {}),
      ...(status === 'published' ? {} : { status }),
    });
  };
  const query = (): ListQuery => {
    const startFromMs = below(3) === 0 ? DAY + below(24 * 8) * HOUR : undefined;
    const endByMs = below(3) === 0 ? (startFromMs ?? DAY) + below(24 * 8) * HOUR : undefined;
    const statuses = below(3) === 0 ? undefined : EVENT_STATUSES.filter(() => below(2) === 0);
    return {
      ...(below(4) === 0 ? { category: pick(CATEGORIES) } : {}),
      ...(below(4) === 0 ? { words: queryWords(pick(WORDS).slice(0, 2 + below(3))) } : {}),
      ...(below(6) === 0 ? { seriesId: SERIES } : {}),
      ...(statuses === undefined || statuses.length === 0 ? {} : { statuses, ...(below(2) === 0 ? { hiddenOwner: pick(OWNERS) } : {}) }),
      startFromMs,
      endByMs,
      limit: 1 + below(below(2) === 0 ? 4 : 40),
      page: 1 + below(below(2) === 0 ? 3 : 12),
    };
  };
  const index = new EventIndex();
  const model = new Map<string, StoredEvent>();
  for (let step = 1; step <= 1500; step++) {
    const what = `seed ${SEED} (STATUS_SEED repeats it), step ${step}`;
    const kind = below(10);
    const n = below(200);
    if (kind < 5) {
      const stored = toStored(record(n, step), step);
      index.put(stored);
      model.delete(stored.id);
      model.set(stored.id, stored);
    } else if (kind < 6) {
      assert.equal(index.delete(eventId(n)), model.delete(eventId(n)), `${what}: delete ${n}`);
    } else {
      const q = query();
      assert.deepEqual(answer(index, q), oracle(model, q), `${what}: ${JSON.stringify(q)}`);
    }
    assert.equal(index.get(eventId(n)), model.get(eventId(n)), what);
    assert.equal(index.size, model.size, what);
  }
  const hidden = [...model.values()].filter((e) => e.status === 'draft' || e.status === 'pending').length;
  assert.equal(index.hiddenCount, hidden);
  assert.ok(hidden > 0, 'the run made drafts');
  // A bulk load (a replay) sorts the same events into the same lists, drafts apart.
  const bulk = new EventIndex(new Map(model));
  await bulk.buildSearchIndex();
  assert.equal(bulk.hiddenCount, hidden);
  for (let round = 0; round < 200; round++) {
    const q = query();
    assert.deepEqual(answer(bulk, q), oracle(model, q), `seed ${SEED}, bulk: ${JSON.stringify(q)}`);
  }
});

test('a public list is the same, page for page, whatever drafts exist: their words, counts and places are nowhere in it', async () => {
  const index = new EventIndex();
  for (let n = 1; n <= 40; n++) index.put(toStored(sampleRecord(n, { title: `Public ${n}`, start_time: new Date(DAY + n * HOUR).toISOString(), end_time: new Date(DAY + (n + 1) * HOUR).toISOString() }), n));
  const queries: ListQuery[] = [{ limit: 7, page: 2 }, { words: queryWords('public'), limit: 5, page: 3 }, { startFromMs: DAY + 10 * HOUR, endByMs: DAY + 30 * HOUR, limit: 50, page: 1 }, { category: 'academic', limit: 3, page: 4 }];
  const before = queries.map((q) => answer(index, q));
  for (let n = 41; n <= 60; n++) {
    const status = n % 2 === 0 ? 'draft' : 'pending';
    index.put(toStored(sampleRecord(n, { title: `Public secret ${n}`, status, start_time: new Date(DAY + (n - 40) * HOUR).toISOString(), end_time: new Date(DAY + (n - 39) * HOUR).toISOString() }), n));
  }
  assert.deepEqual(queries.map((q) => answer(index, q)), before);
  assert.deepEqual(answer(index, { words: queryWords('secret'), limit: 10, page: 1 }), { ids: [], total: 0 });
  assert.equal(answer(index, { words: queryWords('secret'), statuses: ['draft', 'pending'], limit: 50, page: 1 }).total, 20);
  // Published again: in the public lists, found by its words; made a draft again: gone from them.
  index.put(toStored(sampleRecord(41, { title: 'Public secret 41', start_time: new Date(DAY + HOUR).toISOString(), end_time: new Date(DAY + 2 * HOUR).toISOString() }), 100));
  assert.deepEqual(answer(index, { words: queryWords('secret'), limit: 10, page: 1 }), { ids: [eventId(41)], total: 1 });
  index.put(toStored(sampleRecord(41, { title: 'Public secret 41', status: 'pending', start_time: new Date(DAY + HOUR).toISOString(), end_time: new Date(DAY + 2 * HOUR).toISOString() }), 101));
  assert.deepEqual(answer(index, { words: queryWords('secret'), limit: 10, page: 1 }), { ids: [], total: 0 });
  assert.deepEqual(queries.map((q) => answer(index, q)), before);
});
