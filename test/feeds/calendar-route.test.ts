// The GET /events.ics handler without an app, over a MemoryStore: the feed read back by ical.js equals the store's list for
// seeded random events and filters; the ETag is a hash of the bytes, 304 to it; the campus zone decides where days begin.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import test from 'node:test';
import { CATEGORIES, type Category } from '../../src/events/event.js';
import { CALENDAR_TYPE, calendarRoute } from '../../src/feeds/calendar-route.js';
import type { RequestContext } from '../../src/http/route.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { mulberry32 } from '../helpers/random.js';
import { eventId, sampleRecord } from '../store/helpers.js';
import { parseFeed } from './parse-feed.js';

const NOW = Date.UTC(2026, 8, 15, 12);

function contextOf(query: string, headers: Record<string, string> = {}): RequestContext {
  return {
    request: { method: 'GET', target: `/events.ics?${query}`, headers, body: null, bodyTooLarge: false, remoteAddress: '127.0.0.1' },
    params: {},
    query,
    prefix: '',
    principal: { keyId: 'key_f', name: 'Calendar', email: 'calendar@campus.edu', role: 'feed' },
    body: undefined,
  };
}

test('calendarRoute() is GET /events.ics, for feed keys (subscribe), with a query and the key allowed in it', () => {
  const { method, pattern, route } = calendarRoute({ store: new MemoryStore(), now: () => NOW });
  assert.deepEqual([method, pattern, route.name, route.action, route.auth, route.body, route.query, route.queryKey], ['GET', '/events.ics', 'getCalendarFeed', 'subscribe', true, false, true, true]);
});

test('the feed read back equals the store list for its filters, with every field; ETag, 304 and headers (seeded random events)', async () => {
  const seed = Number(process.env['TEST_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  const random = mulberry32(seed);
  let clock = NOW - 40 * 86_400_000;
  const store = new MemoryStore({ now: () => clock });
  const { route } = calendarRoute({ store, now: () => NOW });
  for (let n = 1; n <= 25; n++) {
    clock += Math.floor(random() * 3_600_000);
    const start = NOW + Math.floor((random() - 0.6) * 60) * 86_400_000 + Math.floor(random() * 24) * 3_600_000;
    const record = sampleRecord(n, {
      title: `Event ${n}${random() < 0.3 ? ', with; commas \\ and more' : ''}`,
      description: random() < 0.5 ? '' : `Line one\nline ${n}`,
      category: CATEGORIES[Math.floor(random() * CATEGORIES.length)]!,
      location: `Room ${n}`,
      start_time: new Date(start).toISOString(),
      end_time: new Date(start + 3_600_000).toISOString(),
      organizer: { name: `Organizer ${n % 3}`, email: `o${n % 3}@campus.edu` },
      created_at: new Date(clock - 1000 * n).toISOString(),
      ...(random() < 0.3 ? { series_id: `ser_${String(n).padStart(16, '0')}` } : {}),
    });
    await store.write(record.id, () => record);
  }
  for (let round = 0; round < 20; round++) {
    const picked = CATEGORIES.filter(() => random() < 0.3);
    const query = picked.length === 0 ? '' : `category=${picked.join(',')}`;
    const context = `seed ${seed} (rerun with TEST_SEED=${seed}), round ${round}: ?${query}`;
    const answer = await route.handle(contextOf(query));
    assert.equal(answer.status, 200, context);
    const feed = parseFeed(answer.body!);
    // ical.js reads an X- property as it is written, without TEXT's unescaping: a comma comes back as "\\,".
    assert.equal(feed.properties['x-wr-calname'], picked.length === 0 ? 'Campus events' : `Campus events: ${picked.join('\\, ')}`, context);
    // The model: every event of those categories starting on or after the day 31 days back, by start time.
    const since = Date.UTC(2026, 7, 15);
    const expected = [...Array(25).keys()]
      .map((i) => store.get(eventId(i + 1))!)
      .filter((event) => (picked.length === 0 || picked.includes(event.category as Category)) && event.startMs >= since)
      .sort((a, b) => a.startMs - b.startMs || (a.id < b.id ? -1 : 1));
    assert.deepEqual(feed.events.map((event) => event.uid), expected.map((event) => `${event.id}@campus-events`), context);
    for (const [index, got] of feed.events.entries()) {
      const stored = expected[index]!;
      const record = JSON.parse(stored.json) as ReturnType<typeof sampleRecord>;
      assert.deepEqual(
        got,
        {
          uid: `${stored.id}@campus-events`,
          summary: record.title,
          description: record.description,
          location: record.location,
          categories: record.category,
          startMs: stored.startMs,
          endMs: stored.endMs,
          organizerName: record.organizer.name,
          organizerUri: `mailto:${record.organizer.email}`,
          createdMs: Math.floor(Date.parse(stored.createdAt) / 1000) * 1000,
          lastModifiedMs: Math.floor(stored.modifiedMs / 1000) * 1000,
          dtstampMs: Math.floor(stored.modifiedMs / 1000) * 1000,
          relatedTo: record.series_id === undefined ? null : `${record.series_id}@campus-events`,
          status: "CONFIRMED",
        },
        context,
      );
    }
    const etag = `"${createHash('sha256').update(answer.body!).digest('base64url').slice(0, 27)}"`;
    assert.deepEqual(answer.headers, { ETag: etag, 'Cache-Control': 'private, no-cache', 'Content-Type': CALENDAR_TYPE }, context);
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      assert.deepEqual(await route.handle(contextOf(query, { 'if-none-match': header })), { status: 304, body: null, headers: { ETag: etag, 'Cache-Control': 'private, no-cache' } }, `${context}: If-None-Match ${header}`);
    }
    assert.equal((await route.handle(contextOf(query, { 'if-none-match': '"other"' }))).status, 200, context);
  }
  assert.equal(CALENDAR_TYPE, 'text/calendar; charset=utf-8');
});

test('the feed reads start_date and its 31-day default in the campus zone', async () => {
  const store = new MemoryStore({ now: () => NOW });
  // Berlin is UTC+1 in March: A (23:30 UTC on the 28th) is on the 29th there, B (22:30 UTC) still on the 28th.
  const a = sampleRecord(1, { start_time: '2026-03-28T23:30:00.000Z', end_time: '2026-03-28T23:45:00.000Z' });
  const b = sampleRecord(2, { start_time: '2026-03-28T22:30:00.000Z', end_time: '2026-03-28T22:45:00.000Z' });
  for (const record of [a, b]) await store.write(record.id, () => record);
  const uids = async (timeZone: string | undefined, query: string, now = NOW): Promise<string[]> => {
    const { route } = calendarRoute({ store, now: () => now, ...(timeZone === undefined ? {} : { timeZone }) });
    return parseFeed((await route.handle(contextOf(query))).body!).events.map((event) => event.uid.slice(0, -'@campus-events'.length));
  };
  assert.deepEqual(await uids('Europe/Berlin', 'start_date=2026-03-29'), [a.id]);
  assert.deepEqual(await uids(undefined, 'start_date=2026-03-29'), [], 'UTC by default: both are on the 28th');
  // At 22:30 UTC on 28 April it is 29 April in Berlin: the default window starts on 29 March there, on 28 March in UTC.
  const late = Date.UTC(2026, 3, 28, 22, 30);
  assert.deepEqual(await uids('Europe/Berlin', '', late), [a.id]);
  assert.deepEqual(await uids(undefined, '', late), [b.id, a.id]);
});
