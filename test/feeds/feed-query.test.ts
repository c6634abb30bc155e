// Tests of parseFeedQuery(): the filters of GET /events with the same checks, no paging, `key` skipped, and the 31-day default.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/http/errors.js';
import { DEFAULT_LOOKBACK_DAYS, FEED_MAX_EVENTS, parseFeedQuery } from '../../src/feeds/feed-query.js';
import { mulberry32 } from '../helpers/random.js';

const NOW = Date.UTC(2026, 8, 15, 13, 45, 12, 345);

function assertBadQuery(query: string, ...parts: string[]): void {
  assert.throws(
    () => parseFeedQuery(query, NOW),
    (error: unknown) => {
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.code, 'bad_request');
      for (const part of parts) assert.ok(error.message.includes(part), `message ${JSON.stringify(error.message)} lacks ${JSON.stringify(part)}`);
      return true;
    },
  );
}

test('parseFeedQuery() without start_date starts 31 days before today (UTC), at midnight', () => {
  const query = parseFeedQuery('', NOW);
  assert.equal(DEFAULT_LOOKBACK_DAYS, 31);
  assert.equal(query.startFromMs, Date.UTC(2026, 7, 15));
  assert.equal(query.endByMs, undefined);
  assert.equal(query.limit, FEED_MAX_EVENTS);
  assert.equal(query.page, 1);
  assert.equal(parseFeedQuery('', Date.UTC(2026, 8, 15)).startFromMs, Date.UTC(2026, 7, 15), 'midnight itself is today');
  assert.equal(parseFeedQuery('', Date.UTC(2026, 8, 15) - 1).startFromMs, Date.UTC(2026, 7, 14), 'one ms before is yesterday');
});

test('parseFeedQuery() takes category, start_date and end_date as GET /events does', () => {
  const query = parseFeedQuery('category=social&start_date=2020-01-01&end_date=2020-01-31', NOW);
  assert.equal(query.category, 'social');
  assert.equal(query.startFromMs, Date.UTC(2020, 0, 1));
  assert.equal(query.endByMs, Date.UTC(2020, 1, 1));
  assert.equal(query.limit, 1000);
});

test('parseFeedQuery() skips key, which the pipeline has judged', () => {
  assert.equal(parseFeedQuery('key=cek_whatever&category=academic', NOW).category, 'academic');
});

test('parseFeedQuery() refuses limit and page: the feed has no pages', () => {
  assertBadQuery('limit=10', 'limit', '1000');
  assertBadQuery('page=1', 'page');
  assertBadQuery('category=social&page=2', 'page');
});

test('parseFeedQuery() refuses unknown parameters, naming them and what it takes', () => {
  assertBadQuery('sort=x', '"sort"', 'category, start_date, end_date, q, series_id, status and key');
});

test('parseFeedQuery() takes status published or cancelled, and refuses draft or pending naming status (API.md §14)', () => {
  assert.deepEqual(parseFeedQuery('status=cancelled', NOW).statuses, ['cancelled']);
  assert.deepEqual(parseFeedQuery('status=published,cancelled', NOW).statuses, ['published', 'cancelled']);
  assert.equal(parseFeedQuery('', NOW).statuses, undefined);
  assertBadQuery('status=draft', 'status', '"draft"');
  for (const role of ['admin', 'organizer'] as const) assert.throws(() => parseFeedQuery('status=pending', NOW, { role }), (error: unknown) => error instanceof ApiError && error.code === 'bad_request' && error.message.includes('in no calendar'));
  // A key that never sees them is refused as on GET /events (API.md §14): a 403, after the 400s of the query.
  for (const role of ['reader', 'feed'] as const) {
    for (const query of ['status=draft', 'status=published,pending']) {
      assert.throws(() => parseFeedQuery(query, NOW, { role }), (error: unknown) => error instanceof ApiError && error.code === 'forbidden' && error.message.includes(`A ${role} key`), `${role} ${query}`);
    }
    assert.throws(() => parseFeedQuery('status=draft&category=party', NOW, { role }), (error: unknown) => error instanceof ApiError && error.code === 'bad_request', 'a bad category is a 400 first');
    assert.deepEqual(parseFeedQuery('status=cancelled', NOW, { role }).statuses, ['cancelled']);
  }
  assertBadQuery('status=published,pending', 'status', '"pending"');
  assertBadQuery('status=gone', 'status', '"gone"');
});

test('parseFeedQuery() gives the 400s of GET /events for bad values', () => {
  assertBadQuery('category=party', 'category');
  assertBadQuery('start_date=2026-02-30', 'start_date');
  assertBadQuery('end_date=tomorrow', 'end_date');
  assertBadQuery('start_date=2026-09-02&end_date=2026-09-01', 'start_date', 'end_date');
  assertBadQuery('category=social&category=academic', 'category', 'more than once');
});

/** The local calendar day of instant `ms` in `zone`, `YYYY-MM-DD`, from Intl directly (the model; not src/lib/time-zone). */
function localDay(zone: string, ms: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);
}

/** The calendar day `days` before `day` (`YYYY-MM-DD`). */
function daysBefore(day: string, days: number): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, date - days)).toISOString().slice(0, 10);
}

// Zones with odd offsets, both hemispheres, and (São Paulo before 2019, Havana) daylight saving that starts at midnight.
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Pacific/Auckland', 'Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns', 'America/Sao_Paulo', 'America/Havana', 'Pacific/Kiritimati'];

test('parseFeedQuery() without start_date starts at the first instant of the local day 31 days before today, in any zone (seeded random instants)', () => {
  const seed = Number(process.env['TEST_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  const random = mulberry32(seed);
  for (let round = 0; round < 300; round++) {
    const zone = ZONES[round % ZONES.length]!;
    const nowMs = Date.UTC(1972, 0, 1) + Math.floor(random() * (Date.UTC(2099, 0, 1) - Date.UTC(1972, 0, 1)));
    const start = parseFeedQuery('', nowMs, { timeZone: zone }).startFromMs!;
    const context = `seed ${seed} (rerun with TEST_SEED=${seed}), round ${round}: ${zone} at ${new Date(nowMs).toISOString()}, start ${new Date(start).toISOString()}`;
    // The first instant on or after that day: a day a zone skipped (Kiritimati's 1994-12-31) starts the next one.
    const firstDay = daysBefore(localDay(zone, nowMs), DEFAULT_LOOKBACK_DAYS);
    assert.ok(localDay(zone, start) >= firstDay, `${context}: starts before ${firstDay}`);
    assert.ok(localDay(zone, start - 1) < firstDay, `${context}: not the first instant on or after ${firstDay}`);
    if (localDay(zone, start) !== firstDay) assert.equal(localDay(zone, start), daysBefore(firstDay, -1), `${context}: skips more than the missing day`);
  }
});

test('parseFeedQuery() starts at the next day when the day 31 days back never happened (Kiritimati skipped 1994-12-31)', () => {
  const kiritimati = { timeZone: 'Pacific/Kiritimati' };
  // 1995-01-31 19:29 local (+14:00); 31 days before is 1994-12-31, which the islands skipped going from -10:00 to +14:00.
  assert.equal(parseFeedQuery('', Date.UTC(1995, 0, 31, 5, 29, 34), kiritimati).startFromMs, Date.UTC(1994, 11, 31, 10), '1995-01-01 00:00 at +14:00');
});

test('parseFeedQuery() reads start_date and end_date as days of the given zone, and starts 31 local days back (Berlin, around the March change)', () => {
  const berlin = { timeZone: 'Europe/Berlin' };
  const query = parseFeedQuery('start_date=2026-03-29&end_date=2026-03-29', NOW, berlin);
  assert.equal(query.startFromMs, Date.UTC(2026, 2, 28, 23), 'midnight in winter time, +01:00');
  assert.equal(query.endByMs, Date.UTC(2026, 2, 29, 22), 'the next midnight is in summer time, +02:00: a day of 23 hours');
  // 2026-04-29 00:30 in Berlin is still 2026-04-28 in UTC: the local day counts.
  assert.equal(parseFeedQuery('', Date.UTC(2026, 3, 28, 22, 30), berlin).startFromMs, Date.UTC(2026, 2, 28, 23), '31 days before 29 April is 29 March, which starts at 23:00 UTC');
  assert.equal(parseFeedQuery('', Date.UTC(2026, 3, 28, 22, 30)).startFromMs, Date.UTC(2026, 2, 28), 'without a zone, days are UTC days');
});

test('parseFeedQuery() takes q and series_id as GET /events does', () => {
  const query = parseFeedQuery('q=jazz&series_id=ser_0000000000000000000001', NOW);
  assert.deepEqual(query.words, ['jazz']);
  assert.equal(query.seriesId, 'ser_0000000000000000000001');
});

test('parseFeedQuery() says why page and limit are refused, and clips a long unknown name at 60 characters', () => {
  assertBadQuery('page=1', 'page is not taken by GET /events.ics', 'no pages');
  assertBadQuery('limit=1', 'limit is not taken by GET /events.ics', 'no pages');
  assertBadQuery(`${'n'.repeat(60)}=1`, `"${'n'.repeat(60)}"`);
  assertBadQuery(`${'n'.repeat(61)}=1`, `"${'n'.repeat(57)}..."`);
});
