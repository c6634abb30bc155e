// The console's "Repeats" rules: the RRULE the form sends, read back, and the preview of the starts it makes (API.md §11).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addsStart, appliedExdates, describeRepeat, exdatesFor, exdatesOf, fromRrule, previewStarts, readSchedule, scheduleWords, toRrule, type Repeat } from '../../../src/console/web/repeat-rule.js';
import { formatDate, instantAt } from '../../../src/console/web/format.js';
import { parseRecurrence } from '../../../src/series/recurrence-rule.js';
import { expandSchedule } from '../../../src/series/expand.js';
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
    [weekly(['TU', 'WE', 'FR'], { until: '2026-12-18' }), 'FREQ=WEEKLY;BYDAY=TU,WE,FR;UNTIL=20261218T225900Z'],
  ];
  for (const [repeat, rule] of cases) {
    assert.equal(toRrule(repeat, start, 'Europe/Berlin'), rule);
    assert.deepEqual(fromRrule(rule, start, 'Europe/Berlin'), repeat, rule);
  }
  assert.equal(toRrule(monthly('last-weekday', { count: 2 }), at('2026-10-30T18:00'), 'UTC'), 'FREQ=MONTHLY;BYDAY=-1FR;COUNT=2');
  assert.deepEqual(fromRrule('FREQ=WEEKLY;BYDAY=TU;UNTIL=20261215', start, 'UTC')?.end, { until: '2026-12-15' }, 'a date UNTIL');
  // A rule sent to the API by hand, kept as sent: any case, parts in any order, a signed ordinal.
  assert.deepEqual(fromRrule('count=26;byday=tu,th;interval=2;freq=weekly', start, 'Europe/Berlin'), weekly(['TU', 'TH'], { count: 26 }, 2));
  assert.deepEqual(fromRrule('FREQ=MONTHLY;BYDAY=+1TU;COUNT=3', start, 'Europe/Berlin'), monthly('weekday', { count: 3 }));
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

test('toRrule() with a start day not ticked adds the start alone: its weekday\'s later dates are exdates, counted in COUNT, and the server makes what the preview shows', () => {
  // Monday 5 April 2027; the group meets on Tuesdays and Thursdays after it.
  const start = at('2027-04-05T16:00');
  const zone = 'America/Los_Angeles';
  for (const end of [{ count: 8 }, { until: '2027-04-30' }] as Repeat['end'][]) {
    const repeat = weekly(['TU', 'TH'], end);
    assert.equal(addsStart(repeat, start), true);
    const preview = previewStarts(repeat, start, zone);
    assert.deepEqual(iso(preview.starts).slice(0, 4), ['2027-04-05T23:00', '2027-04-06T23:00', '2027-04-08T23:00', '2027-04-13T23:00'], 'Monday first, then Tuesdays and Thursdays');
    if ('count' in end) assert.equal(preview.starts.length, 8);
    const rrule = toRrule(repeat, start, zone);
    assert.match(rrule, /BYDAY=MO,TU,TH/);
    const rule = parseRecurrence(rrule);
    assert.ok(!Array.isArray(rule), String(rule));
    const made = expandSchedule({ startMs: instantAt(zone, start)!, endMs: instantAt(zone, { ...start, hour: 17 })!, zone, rule, exdates: exdatesOf(repeat, start, zone).map((day) => Date.parse(day)) });
    assert.deepEqual(made.map((occurrence) => occurrence.startMs), preview.starts, `${rrule}: the server makes the preview's starts`);
  }
  assert.equal(addsStart(weekly(['MO', 'TH'], { count: 3 }), start), false, 'a ticked start day is not added');
  assert.deepEqual(exdatesOf(weekly([], { count: 3 }), start, zone), [], 'no day ticked: weekly on the start\'s day');
  assert.equal(toRrule(weekly([], { count: 3 }), start, zone), 'FREQ=WEEKLY;BYDAY=MO;COUNT=3');
});

test('readSchedule() reads a start day added alone back as it was ticked, counting the starts the series has; other exdates are kept', () => {
  // Monday 5 April 2027; Wednesdays and Fridays after it.
  const start = at('2027-04-05T10:00');
  const zone = 'Europe/Berlin';
  for (const end of [{ count: 6 }, { until: '2027-04-30' }] as Repeat['end'][]) {
    const repeat = weekly(['WE', 'FR'], end);
    const rule = toRrule(repeat, start, zone);
    const exdates = exdatesOf(repeat, start, zone);
    assert.ok(exdates.length > 0);
    assert.deepEqual(readSchedule(rule, exdates, start, zone), { repeat, added: true, kept: [] }, rule);
    // A Wednesday cancelled on its own stays an exdate of its own.
    const wednesday = new Date(previewStarts(repeat, start, zone).starts[3]!).toISOString();
    assert.deepEqual(readSchedule(rule, [...exdates, wednesday].sort(), start, zone), { repeat, added: true, kept: [wednesday] });
    // Mondays ticked, one of three cancelled on its own: the rule as it is.
    const ticked = weekly(['MO', 'WE', 'FR'], 'count' in end ? { count: 9 } : end);
    const monday = new Date(previewStarts(ticked, start, zone).starts[3]!).toISOString();
    assert.deepEqual(readSchedule(toRrule(ticked, start, zone), [monday], start, zone), { repeat: ticked, added: false, kept: [monday] });
    assert.deepEqual(readSchedule(toRrule(ticked, start, zone), [], start, zone), { repeat: ticked, added: false, kept: [] });
  }
  assert.deepEqual(readSchedule('FREQ=WEEKLY;BYDAY=MO,WE;COUNT=2', [], start, zone)?.added, false, 'no later Monday yet: read as it stands');
  // Every later Monday cancelled on its own reads as a Monday added alone: the same occurrences either way.
  const lone = exdatesOf(weekly(['WE', 'FR'], { count: 6 }), start, zone);
  assert.deepEqual(readSchedule('FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=8', lone, start, zone)?.repeat, weekly(['WE', 'FR'], { count: 6 }));
  assert.equal(readSchedule('FREQ=DAILY;COUNT=3', [], start, zone), undefined);
});

test('exdatesFor() sends the later dates of a start day added alone for the new schedule, with the cancelled occurrences it still makes; the server makes what the preview shows', () => {
  const zone = 'Europe/Berlin';
  const start = at('2027-04-05T10:00');
  const created = weekly(['WE', 'FR'], { count: 6 });
  const wednesday = new Date(previewStarts(created, start, zone).starts[3]!).toISOString();
  const stored = [...exdatesOf(created, start, zone), wednesday].sort();
  const read = readSchedule(toRrule(created, start, zone), stored, start, zone);
  assert.equal(exdatesFor(created, start, zone, stored, read), undefined, 'the same schedule: the stored exdates stand');

  const serverMakes = (repeat: Repeat, from: Wall, exdates: string[] | undefined): number[] => {
    const rule = parseRecurrence(toRrule(repeat, from, zone));
    assert.ok(!Array.isArray(rule), String(rule));
    return expandSchedule({ startMs: instantAt(zone, from)!, endMs: instantAt(zone, { ...from, hour: from.hour + 2 })!, zone, rule, exdates: (exdates ?? []).map((each) => Date.parse(each)) }).map((occurrence) => occurrence.startMs);
  };
  // Two more: the new later Mondays join, the Wednesday cancelled alone stays out.
  const longer = weekly(['WE', 'FR'], { count: 8 });
  const sent = exdatesFor(longer, start, zone, stored, read)!;
  assert.deepEqual(iso(sent.map((each) => Date.parse(each))), ['2027-04-12T08:00', '2027-04-14T08:00', '2027-04-19T08:00', '2027-04-26T08:00']);
  assert.deepEqual(serverMakes(longer, start, sent), previewStarts(longer, start, zone).starts.filter((at) => at !== Date.parse(wednesday)));
  // An hour later: the Mondays at 11:00 are left out, and the Wednesday cancelled alone moves with the start: still out.
  const later = at('2027-04-05T11:00');
  const moved = exdatesFor(created, later, zone, stored, read, start)!;
  assert.deepEqual(iso(moved.map((each) => Date.parse(each))), ['2027-04-12T09:00', '2027-04-14T09:00', '2027-04-19T09:00']);
  assert.deepEqual(serverMakes(created, later, moved), previewStarts(created, later, zone).starts.filter((at) => iso([at])[0] !== '2027-04-14T09:00'));
  // A day later, on Tuesdays and Thursdays: every occurrence moves a day, and the cancelled Wednesday is the Thursday after.
  const tuesday = at('2027-04-06T10:00');
  const shifted = exdatesFor(weekly(['TH'], { count: 4 }), tuesday, zone, stored, read, start)!;
  assert.deepEqual(iso(shifted.map((each) => Date.parse(each))), ['2027-04-13T08:00', '2027-04-15T08:00', '2027-04-20T08:00']);
  // Fridays only at 11:00: no Wednesday to move it to, so it is sent as stored (the server keeps it, unapplied).
  const fridays = exdatesFor(weekly(['FR'], { count: 4 }), later, zone, stored, read, start)!;
  assert.ok(fridays.includes(wednesday), JSON.stringify(fridays));
  // Monday ticked after all, with the very rule stored: the exdates alone change, to the cancelled Wednesday.
  const ticked = weekly(['MO', 'WE', 'FR'], { count: 8 });
  assert.equal(toRrule(ticked, start, zone), toRrule(created, start, zone));
  assert.deepEqual(exdatesFor(ticked, start, zone, stored, read), [wednesday]);
  // Neither schedule adds its start: nothing sent, the server keeps what it has.
  const plain = weekly(['MO', 'TH'], { count: 4 });
  assert.equal(exdatesFor(weekly(['MO', 'TH'], { count: 5 }), start, zone, [], readSchedule(toRrule(plain, start, zone), [], start, zone)), undefined);
});

test('scheduleWords() says a schedule as the conflict screen compares it, the start day added alone included', () => {
  const start = at('2027-04-05T10:00');
  assert.equal(scheduleWords(weekly(['MO', 'WE'], { count: 6 }), start), 'Every week on Monday and Wednesday, 6 times');
  assert.equal(scheduleWords(weekly(['WE', 'FR'], { count: 6 }), start), 'Every week on Wednesday and Friday, 6 times; Monday, the start date, is added as the first occurrence');
  // The day as the console writes a date alone (in the browser's language).
  assert.equal(scheduleWords(monthly('weekday', { until: '2027-06-30' }), start), `Every month on the first Monday, until ${formatDate('2027-06-30T12:00:00Z', 'UTC')}`);
});

test('appliedExdates(): the preview of a series whose occurrences were deleted on their own leaves them out, as the server does', () => {
  const zone = 'UTC';
  const start = at('2027-02-02T09:00');
  const created = weekly(['TU', 'TH'], { count: 4 });
  const rule = toRrule(created, start, zone);
  const made = previewStarts(created, start, zone).starts;
  const serverMakes = (repeat: Repeat, from: Wall, exdates: readonly number[]): number[] => {
    const parsed = parseRecurrence(toRrule(repeat, from, zone));
    assert.ok(!Array.isArray(parsed), String(parsed));
    const startMs = instantAt(zone, from)!;
    try {
      return expandSchedule({ startMs, endMs: startMs + 3_600_000, zone, rule: parsed, exdates: [...exdates] }).map((occurrence) => occurrence.startMs);
    } catch {
      return [];
    }
  };
  const previewOf = (repeat: Repeat, from: Wall, stored: string[]): number[] => {
    const gone = appliedExdates(repeat, from, zone, stored, readSchedule(rule, stored, start, zone), start);
    return previewStarts(repeat, from, zone).starts.filter((each) => !gone.has(each));
  };
  // The first Tuesday deleted, then the count raised to 6: five occurrences, not six, and not that Tuesday.
  const first = [new Date(made[0]!).toISOString()];
  const six = weekly(['TU', 'TH'], { count: 6 });
  assert.deepEqual(iso(previewOf(six, start, first)), iso(serverMakes(six, start, first.map((each) => Date.parse(each)))));
  assert.equal(previewOf(six, start, first).length, 5);
  // An hour later: the deleted date moves with the start, and stays out.
  const later = at('2027-02-02T10:00');
  const moved = [...appliedExdates(six, later, zone, first, readSchedule(rule, first, start, zone), start)];
  assert.deepEqual(iso(previewOf(six, later, first)), iso(serverMakes(six, later, moved)));
  // Every occurrence deleted: the schedule as the form reads it back previews none.
  const all = made.map((each) => new Date(each).toISOString());
  assert.deepEqual(previewOf(readSchedule(rule, all, start, zone)!.repeat, start, all), []);
});
