// monthGrid(): the local days of a month in Monday-first weeks, and the UTC filter that reaches them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { monthGrid, monthKey, shiftMonth } from '../../../src/console/web/month.js';

test('monthGrid() lays a month out in Monday-first weeks with every day once, in order', () => {
  const grid = monthGrid('2026-09');
  assert.equal(grid.weeks.length, 5);
  for (const week of grid.weeks) assert.equal(week.length, 7);
  const days = grid.weeks.flat().filter((day): day is Date => day !== null);
  assert.deepEqual(days.map((day) => day.getDate()), Array.from({ length: 30 }, (_, i) => i + 1));
  // 1 September 2026 is a Tuesday: one empty Monday before it.
  assert.equal(grid.weeks[0]![0], null);
  assert.equal(grid.weeks[0]![1]!.getDate(), 1);
});

test('monthGrid() handles February of a leap year and a month starting on Monday or Sunday', () => {
  assert.equal(monthGrid('2028-02').weeks.flat().filter((day) => day !== null).length, 29);
  assert.equal(monthGrid('2027-02').weeks.flat().filter((day) => day !== null).length, 28);
  assert.equal(monthGrid('2026-06').weeks[0]![0]!.getDate(), 1, 'June 2026 starts on a Monday');
  assert.equal(monthGrid('2026-11').weeks[0]![6]!.getDate(), 1, 'November 2026 starts on a Sunday');
  assert.equal(monthGrid('2026-11').weeks.length, 6);
});

test('monthGrid() filters from the day before the month (UTC) and ends at the next local midnight', () => {
  const grid = monthGrid('2026-09');
  assert.ok(grid.startDate <= '2026-08-31', grid.startDate);
  assert.equal(grid.end.getTime(), new Date(2026, 9, 1).getTime());
});

test('monthGrid() falls back to the month of today on a missing or malformed key', () => {
  const today = new Date(2027, 2, 15);
  for (const key of [null, '', '2027-13', 'March']) assert.equal(monthKey(monthGrid(key, today).first), '2027-03', String(key));
});

test('shiftMonth() crosses years both ways', () => {
  assert.equal(shiftMonth(new Date(2026, 11, 1), 1), '2027-01');
  assert.equal(shiftMonth(new Date(2026, 0, 1), -1), '2025-12');
});
