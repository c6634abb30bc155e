// daysInMonth against the platform's calendar: the day before the first of the next month, every month of four
// centuries (leap years every 4, not every 100, every 400).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { daysInMonth } from '../../src/lib/calendar.js';

test('daysInMonth() is the length of every month from 1900 to 2400, as Date.UTC counts it', () => {
  for (let year = 1900; year <= 2400; year++) {
    for (let month = 1; month <= 12; month++) assert.equal(daysInMonth(year, month), new Date(Date.UTC(year, month, 0)).getUTCDate(), `${year}-${month}`);
  }
  assert.deepEqual([1900, 2000, 2024, 2100].map((year) => daysInMonth(year, 2)), [28, 29, 29, 28]);
});
