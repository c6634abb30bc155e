// monthGrid(): the days of a month in a zone in Monday-first weeks, its first and end instants there, and the filter that reaches them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dayOf, monthGrid, monthKey, shiftMonth, type GridDay } from '../../../src/console/web/month.js';

const days = (key: string): GridDay[] => monthGrid(key, 'UTC').weeks.flat().filter((day): day is GridDay => day !== null);

test('monthGrid() lays a month out in Monday-first weeks with every day once, in order', () => {
  const grid = monthGrid('2026-09', 'UTC');
  assert.equal(grid.weeks.length, 5);
  for (const week of grid.weeks) assert.equal(week.length, 7);
  assert.deepEqual(days('2026-09').map((day) => day.day), Array.from({ length: 30 }, (_, i) => i + 1));
  // 1 September 2026 is a Tuesday: one empty Monday before it.
  assert.equal(grid.weeks[0]![0], null);
  assert.deepEqual(grid.weeks[0]![1], { key: '2026-09-01', day: 1 });
});

test('monthGrid() handles February of a leap year and a month starting on Monday or Sunday', () => {
  assert.equal(days('2028-02').length, 29);
  assert.equal(days('2027-02').length, 28);
  assert.equal(monthGrid('2026-06', 'UTC').weeks[0]![0]!.day, 1, 'June 2026 starts on a Monday');
  assert.equal(monthGrid('2026-11', 'UTC').weeks[0]![6]!.day, 1, 'November 2026 starts on a Sunday');
  assert.equal(monthGrid('2026-11', 'UTC').weeks.length, 6);
});

test('monthGrid() starts and ends the month at midnight in its zone, and filters from two days before', () => {
  const berlin = monthGrid('2026-10', 'Europe/Berlin');
  assert.equal(new Date(berlin.first).toISOString(), '2026-09-30T22:00:00.000Z', 'CEST');
  assert.equal(new Date(berlin.end).toISOString(), '2026-10-31T23:00:00.000Z', 'CET after the change');
  assert.equal(berlin.startDate, '2026-09-29');
  const kiritimati = monthGrid('2026-12', 'Pacific/Kiritimati');
  assert.equal(new Date(kiritimati.end).toISOString(), '2026-12-31T10:00:00.000Z', 'UTC+14: the year ends early');
});

test('monthGrid() falls back to the month of now in its zone on a missing or malformed key', () => {
  // 23:30 UTC on 31 March is already April in Berlin.
  const now = Date.parse('2027-03-31T23:30:00Z');
  for (const key of [null, '', '2027-13', 'March']) assert.equal(monthKey(monthGrid(key, 'Europe/Berlin', now)), '2027-04', String(key));
  assert.equal(monthKey(monthGrid(null, 'America/Los_Angeles', now)), '2027-03');
});

test('shiftMonth() crosses years both ways; dayOf() places an instant on its day in the zone', () => {
  assert.equal(shiftMonth({ year: 2026, month: 12 }, 1), '2027-01');
  assert.equal(shiftMonth({ year: 2026, month: 1 }, -1), '2025-12');
  assert.equal(dayOf('2026-09-02T01:00:00.000Z', 'America/Los_Angeles'), '2026-09-01');
  assert.equal(dayOf('2026-09-02T01:00:00.000Z', 'Europe/Berlin'), '2026-09-02');
});
