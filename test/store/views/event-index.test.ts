// EventIndex: list order, paging and every filter edge of API.md §5, checked against a brute-force oracle.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES } from '../../../src/events/event.js';
import { toStored } from '../../../src/store/views/served-event.js';
import type { StoredEvent } from '../../../src/events/event.js';
import { compareEvents, EventIndex } from '../../../src/store/views/event-index.js';
import type { ListQuery } from '../../../src/store/event-store.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, sampleRecord } from '../helpers.js';

const DAY = Date.UTC(2026, 8, 1);
const HOUR = 3_600_000;

function event(n: number, startMs: number, endMs: number, category: StoredEvent['category'] = 'academic', seq = n): StoredEvent {
  return toStored(sampleRecord(n, { category, start_time: new Date(startMs).toISOString(), end_time: new Date(endMs).toISOString() }), seq);
}

function ids(events: StoredEvent[]): string[] {
  return events.map((stored) => stored.id);
}

/** What list() must answer, computed the slow, obvious way. */
function oracle(all: StoredEvent[], query: ListQuery): { ids: string[]; total: number } {
  const matches = all
    .filter((e) => (query.category === undefined || e.category === query.category) && (query.startFromMs === undefined || e.startMs >= query.startFromMs) && (query.endByMs === undefined || e.endMs <= query.endByMs))
    .sort(compareEvents);
  const offset = (query.page - 1) * query.limit;
  return { ids: ids(matches.slice(offset, offset + query.limit)), total: matches.length };
}

test('list() includes an event starting exactly at start_date 00:00Z and one ending exactly at end_date+1 00:00Z', () => {
  const index = new EventIndex();
  index.put(event(1, DAY - 1, DAY + HOUR)); // starts 1 ms before the day
  index.put(event(2, DAY, DAY + HOUR)); // starts at 00:00Z: included
  index.put(event(3, DAY + 20 * HOUR, DAY + 24 * HOUR)); // ends at D+1 00:00Z: included
  index.put(event(4, DAY + 20 * HOUR, DAY + 24 * HOUR + 1)); // ends 1 ms after: excluded
  const query = { startFromMs: DAY, endByMs: DAY + 24 * HOUR, limit: 50, page: 1 };
  assert.deepEqual(ids(index.list(query).events), [eventId(2), eventId(3)]);
  assert.equal(index.list(query).total, 2);
  assert.deepEqual(ids(index.list({ startFromMs: DAY, limit: 50, page: 1 }).events), [eventId(2), eventId(3), eventId(4)]);
  assert.deepEqual(ids(index.list({ endByMs: DAY + 24 * HOUR, limit: 50, page: 1 }).events), [eventId(1), eventId(2), eventId(3)]);
});

test('list() breaks ties on start time by id, in plain string order', () => {
  const index = new EventIndex();
  for (const n of [30, 4, 200, 1]) index.put(toStored(sampleRecord(n, { id: `evt_${'Aa0'[n % 3]}${String(n).padStart(16, '0')}` }), n));
  const listed = ids(index.list({ limit: 10, page: 1 }).events);
  assert.deepEqual(listed, [...listed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  assert.deepEqual(listed.map((id) => id[4]), ['0', 'A', 'a', 'a']);
});

test('list() counts every match in total, pages by limit, and answers past the last page with no events', () => {
  const index = new EventIndex();
  for (let n = 1; n <= 7; n++) index.put(event(n, DAY + n * HOUR, DAY + n * HOUR + 1));
  assert.deepEqual(index.list({ limit: 3, page: 3 }), { events: [index.get(eventId(7))!], total: 7 });
  assert.deepEqual(index.list({ limit: 3, page: 4 }), { events: [], total: 7 });
  assert.deepEqual(index.list({ limit: 3, page: 1_000_000 }), { events: [], total: 7 });
  assert.deepEqual(index.list({ limit: 100, page: 1, endByMs: DAY + 4 * HOUR + 1, startFromMs: DAY + 2 * HOUR }).total, 3);
  assert.deepEqual(index.list({ limit: 2, page: 2, endByMs: DAY + 6 * HOUR + 1 }), { events: [index.get(eventId(3))!, index.get(eventId(4))!], total: 6 });
  assert.deepEqual(index.list({ limit: 2, page: 4, endByMs: DAY + 6 * HOUR + 1 }), { events: [], total: 6 });
});

test('list() agrees with a brute-force filter and sort on random events, for every filter combination', () => {
  let seed = 42;
  const random = (below: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return Math.floor((seed / 2 ** 32) * below);
  };
  const index = new EventIndex();
  const live = new Map<string, StoredEvent>();
  for (let step = 0; step < 600; step++) {
    const n = random(150);
    if (random(5) === 0 && live.has(eventId(n))) {
      assert.equal(index.delete(eventId(n)), true);
      live.delete(eventId(n));
      continue;
    }
    const start = DAY + random(10) * 12 * HOUR;
    const stored = event(n, start, start + (1 + random(3)) * 12 * HOUR, CATEGORIES[random(4)]!, step + 1);
    index.put(stored);
    live.set(stored.id, stored);
  }
  assert.equal(index.size, live.size);
  assert.equal(index.delete('evt_missing0000000000'), false);
  const all = [...live.values()];
  for (const category of [undefined, ...CATEGORIES]) {
    for (const startFromMs of [undefined, DAY, DAY + 24 * HOUR, DAY + 25 * HOUR, DAY + 1000 * HOUR]) {
      for (const endByMs of [undefined, DAY, DAY + 24 * HOUR, DAY + 48 * HOUR, DAY + 36 * HOUR + 1, DAY + 1000 * HOUR]) {
        for (const [limit, page] of [[1, 1], [3, 2], [7, 3], [100, 1], [5, 40]] as const) {
          const query = { category, startFromMs, endByMs, limit, page };
          const result = index.list(query);
          assert.deepEqual({ ids: ids(result.events), total: result.total }, oracle(all, query), JSON.stringify(query));
        }
      }
    }
  }
  // A bulk load of the same events answers the same.
  const reloaded = new EventIndex(new Map(all.map((stored) => [stored.id, stored])));
  assert.deepEqual(reloaded.list({ limit: 1000, page: 1 }), index.list({ limit: 1000, page: 1 }));
  for (const category of CATEGORIES) assert.deepEqual(reloaded.list({ category, limit: 1000, page: 1 }), index.list({ category, limit: 1000, page: 1 }));
});

test('list() agrees with a brute-force filter when the lists span many tree nodes and some events last for weeks (seeded)', () => {
  const seed = 15;
  const random = mulberry32(seed);
  const below = (n: number): number => Math.floor(random() * n);
  const index = new EventIndex();
  const live = new Map<string, StoredEvent>();
  for (let step = 0; step < 9000; step++) {
    const n = below(4000);
    if (below(4) === 0 && live.has(eventId(n))) {
      index.delete(eventId(n));
      live.delete(eventId(n));
      continue;
    }
    const start = DAY + below(24 * 60) * HOUR;
    const duration = below(8) === 0 ? below(24 * 30) * HOUR + 1 : (1 + below(3)) * HOUR;
    const stored = event(n, start, start + duration, CATEGORIES[below(4)]!, step + 1);
    index.put(stored);
    live.set(stored.id, stored);
  }
  const all = [...live.values()];
  for (let round = 0; round < 300; round++) {
    const startFromMs = below(5) === 0 ? undefined : DAY + below(24 * 62) * HOUR - 12 * HOUR;
    const endByMs = below(5) === 0 ? undefined : (startFromMs ?? DAY) + below(24 * 40) * HOUR;
    const query = { category: below(3) === 0 ? undefined : CATEGORIES[below(4)], startFromMs, endByMs, limit: 1 + below(100), page: 1 + below(20) };
    const result = index.list(query);
    assert.deepEqual({ ids: ids(result.events), total: result.total }, oracle(all, query), `seed ${seed}: ${JSON.stringify(query)}`);
  }
});

test('put() of a changed start time or category moves the event in every list', () => {
  const index = new EventIndex();
  index.put(event(1, DAY, DAY + HOUR, 'social', 1));
  index.put(event(2, DAY + HOUR, DAY + 2 * HOUR, 'social', 2));
  index.put(event(1, DAY + 5 * HOUR, DAY + 6 * HOUR, 'athletic', 3));
  assert.deepEqual(ids(index.list({ limit: 10, page: 1 }).events), [eventId(2), eventId(1)]);
  assert.deepEqual(ids(index.list({ category: 'social', limit: 10, page: 1 }).events), [eventId(2)]);
  assert.deepEqual(ids(index.list({ category: 'athletic', limit: 10, page: 1 }).events), [eventId(1)]);
  assert.equal(index.size, 2);
});

test('values() lists live events in the order of their latest seq', () => {
  const index = new EventIndex(new Map([[eventId(1), event(1, DAY, DAY + 1, 'academic', 1)], [eventId(2), event(2, DAY, DAY + 1, 'academic', 2)]]));
  index.put(event(3, DAY, DAY + 1, 'academic', 3));
  index.put(event(1, DAY, DAY + 1, 'academic', 4));
  index.delete(eventId(3));
  assert.deepEqual([...index.values()].map((stored) => stored.seq), [2, 4]);
});

test('listInTurns() answers a search in slices, one per turn of the loop, with the answer of one state even when writes commit between slices (issue 33.8)', async () => {
  const index = new EventIndex();
  const categories: StoredEvent['category'][] = ['academic', 'social'];
  for (let n = 1; n <= 3000; n++) index.put(event(n, DAY + n * HOUR, DAY + n * HOUR + HOUR, categories[n % 2]));
  const query: ListQuery = { words: ['event'], categories, limit: 20, page: 40 };
  const expected = index.list(query);
  // Every slice is over its budget after one step: the list yields at each, and the writes below land between.
  let clock = 0;
  const answer = index.listInTurns(query, { now: () => (clock += 10), maxRestarts: 3 });
  const states = [JSON.stringify({ ids: ids(expected.events), total: expected.total })];
  let writes = 0;
  await new Promise<void>((resolve) => {
    const write = (): void => {
      // An earlier event that matches: every later page shifts by one.
      index.put(event(10_000 + writes, DAY - (writes + 1) * HOUR, DAY - writes * HOUR, 'social'));
      const now = index.list(query);
      states.push(JSON.stringify({ ids: ids(now.events), total: now.total }));
      if (++writes < 3) setImmediate(write);
      else resolve();
    };
    setImmediate(write);
  });
  const got = await answer;
  assert.ok(states.includes(JSON.stringify({ ids: ids(got.events), total: got.total })), 'the answer is the list of one state, not a mix of two');
  assert.equal(got.total, 3000 + 3, 'computed after the writes (it started over), so it holds them');
  assert.deepEqual(ids(got.events), ids(index.list(query).events));
});

test('listInTurns() while the search index is built answers q by a scan of the state it began on: writes between its slices neither restart it nor make it run at once', async () => {
  const categories: StoredEvent['category'][] = ['academic', 'social'];
  const events = new Map<string, StoredEvent>();
  for (let n = 1; n <= 3000; n++) events.set(eventId(n), event(n, DAY + n * HOUR, DAY + n * HOUR + HOUR, categories[n % 2]));
  const index = new EventIndex(events);
  const query: ListQuery = { words: ['event'], limit: 20, page: 40 };
  const expected = index.list(query);
  // Every slice is over its budget after one step: the scan yields at each, and the writes below land between.
  let clock = 0;
  let done = false;
  const answer = index.listInTurns(query, { now: () => (clock += 10) }).finally(() => (done = true));
  let writesWhileScanning = 0;
  await new Promise<void>((resolve) => {
    const write = (): void => {
      if (!done) writesWhileScanning++;
      index.put(event(10_000 + writesWhileScanning, DAY - (writesWhileScanning + 1) * HOUR, DAY - writesWhileScanning * HOUR, 'social'));
      if (!done) setImmediate(write);
      else resolve();
    };
    setImmediate(write);
  });
  const got = await answer;
  assert.ok(writesWhileScanning > 2, `writes landed between its slices (${writesWhileScanning}), more than the restarts a search may make`);
  assert.deepEqual({ ids: ids(got.events), total: got.total }, { ids: ids(expected.events), total: 3000 }, 'the state it began on, without the writes made while it ran');
  assert.ok(index.list(query).total > 3000, 'the writes are in the next answer');
});
