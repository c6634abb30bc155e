// Tests of parseFeedQuery(): the filters of GET /events with the same checks, no paging, `key` skipped, and the 31-day default.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/http/errors.js';
import { DEFAULT_LOOKBACK_DAYS, FEED_MAX_EVENTS, parseFeedQuery } from '../../src/feeds/feed-query.js';

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
  assertBadQuery('sort=x', '"sort"', 'category, start_date, end_date, q, series_id and key');
});

test('parseFeedQuery() gives the 400s of GET /events for bad values', () => {
  assertBadQuery('category=party', 'category');
  assertBadQuery('start_date=2026-02-30', 'start_date');
  assertBadQuery('end_date=tomorrow', 'end_date');
  assertBadQuery('start_date=2026-09-02&end_date=2026-09-01', 'start_date', 'end_date');
  assertBadQuery('category=social&category=academic', 'category', 'more than once');
});
