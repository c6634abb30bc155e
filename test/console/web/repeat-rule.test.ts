// The console's "Repeats" rules: the RRULE the form sends, read back, and the preview of the starts it makes (API.md §11).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeRepeat, fromRrule, previewStarts, toRrule, type Repeat } from '../../../src/console/web/repeat-rule.js';
import type { Wall } from '../../../src/console/web/format.js';

const at = (text: string): Wall => {
  const [date, time] = text.split('T') as [string, string];
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  return { year, month, day, hour, minute };
};
const iso = (starts: number[]): string[] => starts.map((ms) => new Date(ms).toISOString().slice(0, 16));
const weekly = (days: Repeat['days'], end: Repeat['end'], interval = 1): Repeat => ({ freq: 'WEEKLY', interval, days, monthly: 'date', end });
const monthly = (kind: Repeat['monthly'], end: Repeat['end'], interval = 1): Repeat => ({ freq: 'MONTHLY', interval, days: [], monthly: kind, end });

test('toRrule() writes the subset of §11 the form offers, and fromRrule() reads it back', () => {
  const start = at('2026-09-01T10:00');
  const cases: [Repeat, string][] = [
    [weekly(['TU', 'TH'], { count: 26 }, 2), 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=26'],
    [monthly('date', { count: 12 }), 'FREQ=MONTHLY;BYMONTHDAY=1;COUNT=12'],
    [monthly('weekday', { count: 3 }), 'FREQ=MONTHLY;BYDAY=1TU;COUNT=3'],
    [weekly(['MO', 'WE', 'FR'], { until: '2026-12-18' }), 'FREQ=WEEKLY;BYDAY=MO,WE,FR;UNTIL=20261218T225900Z'],
  ];
  for (const [repeat, rule] of cases) {
    assert.equal(toRrule(repeat, start, 'Europe/Berlin'), rule);
    assert.deepEqual(fromRrule(rule, start, 'Europe/Berlin'), repeat, rule);
  }
  assert.equal(toRrule(monthly('last-weekday', { count: 2 }), at('2026-10-30T18:00'), 'UTC'), 'FREQ=MONTHLY;BYDAY=-1FR;COUNT=2');
  assert.deepEqual(fromRrule('FREQ=WEEKLY;BYDAY=TU;UNTIL=20261215', start, 'UTC')?.end, { until: '2026-12-15' }, 'a date UNTIL');
  for (const rule of ['FREQ=DAILY;COUNT=3', 'FREQ=MONTHLY;BYMONTHDAY=2;COUNT=3', 'FREQ=MONTHLY;BYDAY=1WE;COUNT=3', 'FREQ=WEEKLY;BYDAY=XX;COUNT=2', 'FREQ=WEEKLY']) {
    assert.equal(fromRrule(rule, start, 'UTC'), undefined, `${rule} is not something the form can show`);
  }
});

test('a 10:00 lecture on Tuesdays and Thursdays every other week keeps 10:00 local across the autumn change', () => {
  const { starts } = previewStarts(weekly(['TU', 'TH'], { count: 6 }, 2), at('2026-10-13T10:00'), 'Europe/Berlin');
  assert.deepEqual(iso(starts), ['2026-10-13T08:00', '2026-10-15T08:00', '2026-10-27T09:00', '2026-10-29T09:00', '2026-11-10T09:00', '2026-11-12T09:00']);
});

test('a 02:30 meeting on the spring-forward day is skipped and not counted', () => {
  const { starts } = previewStarts(weekly(['SU'], { count: 3 }), at('2026-03-01T02:30'), 'America/New_York');
  assert.deepEqual(iso(starts), ['2026-03-01T07:30', '2026-03-15T06:30', '2026-03-22T06:30']);
});

test('monthly on day 31 skips short months; the last Friday; the second Tuesday', () => {
  assert.deepEqual(iso(previewStarts(monthly('date', { count: 4 }), at('2027-01-31T12:00'), 'UTC').starts), ['2027-01-31T12:00', '2027-03-31T12:00', '2027-05-31T12:00', '2027-07-31T12:00']);
  assert.deepEqual(iso(previewStarts(monthly('last-weekday', { count: 3 }), at('2026-10-30T18:00'), 'UTC').starts), ['2026-10-30T18:00', '2026-11-27T18:00', '2026-12-25T18:00']);
  assert.deepEqual(iso(previewStarts(monthly('weekday', { count: 3 }, 2), at('2026-09-08T09:00'), 'UTC').starts), ['2026-09-08T09:00', '2026-11-10T09:00', '2027-01-12T09:00']);
});

test('UNTIL is inclusive of its day in the zone; too many or too long is told', () => {
  const { starts } = previewStarts(weekly(['MO'], { until: '2026-09-21' }), at('2026-09-07T23:30'), 'America/Los_Angeles');
  assert.deepEqual(iso(starts), ['2026-09-08T06:30', '2026-09-15T06:30', '2026-09-22T06:30'], 'the Monday 21st at 23:30 local is in');
  const many = previewStarts(weekly(['MO', 'TU', 'WE', 'TH', 'FR'], { count: 501 }), at('2026-09-07T09:00'), 'UTC');
  assert.equal(many.tooMany, true);
  assert.equal(many.starts.length, 501);
  const long = previewStarts(monthly('date', { count: 40 }), at('2026-09-07T09:00'), 'UTC');
  assert.deepEqual([long.tooMany, long.tooLong, long.starts.length], [false, true, 40]);
  assert.equal(previewStarts(monthly('date', { count: 36 }), at('2026-09-07T09:00'), 'UTC').tooLong, false);
});

test('describeRepeat() says the rule in words', () => {
  const day = (text: string): string => text;
  assert.equal(describeRepeat(weekly(['TU', 'TH'], { count: 26 }, 2), at('2026-09-01T10:00'), day), 'Every 2 weeks on Tuesday and Thursday, 26 times');
  assert.equal(describeRepeat(monthly('weekday', { until: '2027-06-30' }), at('2026-09-07T10:00'), day), 'Every month on the first Monday, until 2027-06-30');
  assert.equal(describeRepeat(monthly('last-weekday', { count: 1 }), at('2026-10-30T10:00'), day), 'Every month on the last Friday, 1 time');
});
