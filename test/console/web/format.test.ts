// The console's zone arithmetic: a `datetime-local` value is read in a named zone (the campus's or the browser's) and
// sent as UTC; instants are shown in that zone; gaps and repeated hours of daylight-saving changes are handled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTyped, fromZoneInput, instantAt, parseInput, toZoneInput, wallClock } from '../../../src/console/web/format.js';

test('fromZoneInput() reads the value in the zone given, whatever the process zone, and answers UTC', () => {
  assert.equal(fromZoneInput('2026-09-01T18:00', 'America/Los_Angeles'), '2026-09-02T01:00:00.000Z');
  assert.equal(fromZoneInput('2026-09-01T08:30', 'Asia/Tokyo'), '2026-08-31T23:30:00.000Z');
  assert.equal(fromZoneInput('2026-09-01T08:30', 'UTC'), '2026-09-01T08:30:00.000Z');
  assert.equal(fromZoneInput('2026-01-15T10:00', 'Australia/Lord_Howe'), '2026-01-14T23:00:00.000Z', 'UTC+11 in summer');
  assert.equal(fromZoneInput('2026-07-15T10:00', 'Australia/Lord_Howe'), '2026-07-14T23:30:00.000Z', 'UTC+10:30 in winter');
});

test('fromZoneInput() gives undefined for an empty, malformed or impossible value, so the API names the missing field', () => {
  for (const value of ['', '2026-09-01', 'tomorrow', '2026-09-01 18:00', '2026-02-30T10:00', '2026-09-01T24:00']) assert.equal(fromZoneInput(value, 'UTC'), undefined, value);
});

test('instantAt() refuses a wall time in a spring-forward gap and takes the first of a repeated hour', () => {
  assert.equal(instantAt('America/New_York', { year: 2026, month: 3, day: 8, hour: 2, minute: 30 }), undefined);
  assert.equal(new Date(instantAt('America/New_York', { year: 2026, month: 11, day: 1, hour: 1, minute: 30 })!).toISOString(), '2026-11-01T05:30:00.000Z', 'EDT, the first 01:30');
  assert.equal(instantAt('Pacific/Apia', { year: 2011, month: 12, day: 30, hour: 12, minute: 0 }), undefined, 'a day the zone skipped');
  // A typed time in the gap is read as the clocks read just after their jump, as a browser's own local time does.
  assert.equal(fromZoneInput('2026-03-08T02:30', 'America/New_York'), '2026-03-08T07:30:00.000Z');
});

test('toZoneInput() is the inverse of fromZoneInput() to the minute, in several zones', () => {
  for (const zone of ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Pacific/Kiritimati', 'UTC']) {
    for (const iso of ['2026-09-01T17:00:00.000Z', '2026-12-31T23:59:00.000Z', '2027-03-28T01:30:00.000Z']) {
      assert.equal(fromZoneInput(toZoneInput(iso, zone), zone), iso, `${zone} ${iso}`);
    }
  }
  assert.equal(toZoneInput('2026-09-01T17:00:00.000Z', 'Europe/Paris'), '2026-09-01T19:00');
});

test('wallClock() and parseInput() agree on the fields of a wall time', () => {
  assert.deepEqual(wallClock('Asia/Kolkata', Date.parse('2026-09-01T17:00:00Z')), { year: 2026, month: 9, day: 1, hour: 22, minute: 30 });
  assert.deepEqual(parseInput('2026-09-01T22:30'), { year: 2026, month: 9, day: 1, hour: 22, minute: 30 });
});

test('formatTyped() shows a typed time alone beside another of the same day, and with its date otherwise', () => {
  const sameDay = formatTyped('2027-01-03T18:00', 'Europe/Berlin', '2027-01-03T17:00');
  assert.match(sameDay, /^(18:00|6:00\sPM)$/, sameDay);
  const otherDay = formatTyped('2027-01-03T18:00', 'Europe/Berlin', '2027-01-04T17:00');
  assert.match(otherDay, /2027/);
  assert.match(otherDay, /18:00|6:00\sPM/);
});
