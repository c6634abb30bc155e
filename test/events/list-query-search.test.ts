// parseListQuery: q, several categories, and days in the campus zone (API.md §5).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/http/errors.js';
import { parseListQuery } from '../../src/events/list-query.js';

function assertBad(query: string, part: string, timeZone?: string): void {
  assert.throws(() => parseListQuery(query, { timeZone }), (error: unknown) => error instanceof ApiError && error.status === 400 && error.message.includes(part), query);
}

test('parseListQuery() reads q into folded words and keeps q as given for Link', () => {
  const parsed = parseListQuery('q=Chem%20LAB%20chemistry');
  assert.deepEqual(parsed.words, ['chemistry', 'lab']);
  assert.deepEqual(parsed.filters, [['q', 'Chem LAB chemistry']]);
});

test('parseListQuery() refuses a q without a word, empty, over 200 characters (code points), or twice', () => {
  assertBad('q=--', 'q must hold at least one word');
  assertBad('q=', 'q must be 1 to 200 characters, got 0');
  assertBad(`q=${'a'.repeat(201)}`, 'got 201');
  assertBad('q=a&q=b', 'q is given more than once');
  assert.equal(parseListQuery(`q=${encodeURIComponent('😀'.repeat(199) + 'a')}`).words?.length, 1, '200 code points are 400 UTF-16 units');
});

test('parseListQuery() reads one category as category and several as categories, keeping the list as given', () => {
  assert.equal(parseListQuery('category=social').category, 'social');
  assert.equal(parseListQuery('category=social').categories, undefined);
  const several = parseListQuery('category=social,academic&start_date=2026-09-01&q=x');
  assert.deepEqual(several.categories, ['social', 'academic']);
  assert.equal(several.category, undefined);
  assert.deepEqual(several.filters, [['category', 'social,academic'], ['start_date', '2026-09-01'], ['q', 'x']]);
});

test('parseListQuery() refuses an unknown, empty or repeated category in a list, naming it', () => {
  assertBad('category=social,party', '"party"');
  assertBad('category=social,', 'got ""');
  assertBad('category=social,social', '"social" more than once');
});

test('parseListQuery() starts and ends days at local midnight of the campus zone', () => {
  const la = parseListQuery('start_date=2026-09-01&end_date=2026-09-01', { timeZone: 'America/Los_Angeles' });
  assert.equal(la.startFromMs, Date.UTC(2026, 8, 1, 7));
  assert.equal(la.endByMs, Date.UTC(2026, 8, 2, 7));
  const kiritimati = parseListQuery('start_date=2026-09-01&end_date=2026-09-01', { timeZone: 'Pacific/Kiritimati' });
  assert.equal(kiritimati.startFromMs, Date.UTC(2026, 7, 31, 10));
  assert.equal(kiritimati.endByMs, Date.UTC(2026, 8, 1, 10));
});

test('parseListQuery() gives a spring-forward day 23 hours and a fall-back day 25 (Berlin)', () => {
  const spring = parseListQuery('start_date=2026-03-29&end_date=2026-03-29', { timeZone: 'Europe/Berlin' });
  assert.equal(spring.startFromMs, Date.UTC(2026, 2, 28, 23));
  assert.equal(spring.endByMs! - spring.startFromMs!, 23 * 3_600_000);
  const fall = parseListQuery('start_date=2026-10-25&end_date=2026-10-25', { timeZone: 'Europe/Berlin' });
  assert.equal(fall.startFromMs, Date.UTC(2026, 9, 24, 22));
  assert.equal(fall.endByMs! - fall.startFromMs!, 25 * 3_600_000);
});

test('parseListQuery() with UTC, or no zone, keeps the v1 instants', () => {
  for (const timeZone of [undefined, 'UTC']) {
    const parsed = parseListQuery('start_date=1970-01-01&end_date=9999-12-31', { timeZone });
    assert.equal(parsed.startFromMs, 0);
    assert.equal(parsed.endByMs, Date.UTC(10000, 0, 1));
  }
});
