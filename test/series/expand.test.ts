// expandSchedule() and parseRecurrence(): the named cases of API.md §11 across daylight-saving changes, with exact instants.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandSchedule, ScheduleProblem, type Occurrence } from '../../src/series/expand.js';
import { formatRecurrence, parseRecurrence, type RecurrenceRule } from '../../src/series/recurrence-rule.js';

function rule(text: string): RecurrenceRule {
  const parsed = parseRecurrence(text);
  assert.ok(!Array.isArray(parsed), `${text}: ${JSON.stringify(parsed)}`);
  return parsed;
}

function expand(zone: string, start: string, end: string, text: string, exdates: string[] = []): Occurrence[] {
  return expandSchedule({ startMs: Date.parse(start), endMs: Date.parse(end), zone, rule: rule(text), exdates: exdates.map(Date.parse) });
}

const iso = (ms: number): string => new Date(ms).toISOString();
const starts = (occurrences: Occurrence[]): string[] => occurrences.map((each) => iso(each.startMs));

test('a 10:00–11:30 lecture keeps 10:00 Berlin time across both daylight-saving changes of a year', () => {
  const weekly = expand('Europe/Berlin', '2027-03-23T10:00:00+01:00', '2027-03-23T11:30:00+01:00', 'FREQ=WEEKLY;UNTIL=20271109');
  const byDate = new Map(weekly.map((each) => [iso(each.startMs).slice(0, 10), [iso(each.startMs), iso(each.endMs)]]));
  assert.deepEqual(byDate.get('2027-03-23'), ['2027-03-23T09:00:00.000Z', '2027-03-23T10:30:00.000Z'], 'winter: UTC+1');
  assert.deepEqual(byDate.get('2027-03-30'), ['2027-03-30T08:00:00.000Z', '2027-03-30T09:30:00.000Z'], 'summer from 2027-03-28: UTC+2');
  assert.deepEqual(byDate.get('2027-10-26'), ['2027-10-26T08:00:00.000Z', '2027-10-26T09:30:00.000Z']);
  assert.deepEqual(byDate.get('2027-11-02'), ['2027-11-02T09:00:00.000Z', '2027-11-02T10:30:00.000Z'], 'winter again from 2027-10-31');
  assert.equal(weekly.length, 34, "every Tuesday from March 23 to November 9 inclusive");
});

test('a 02:30 meeting on the spring-forward day is skipped and not counted (RFC 5545 §3.3.10)', () => {
  const daily = expand('America/New_York', '2027-03-12T02:30:00-05:00', '2027-03-12T03:00:00-05:00', 'FREQ=DAILY;COUNT=4');
  assert.deepEqual(starts(daily), ['2027-03-12T07:30:00.000Z', '2027-03-13T07:30:00.000Z', '2027-03-15T06:30:00.000Z', '2027-03-16T06:30:00.000Z']);
});

test('an ambiguous local time (the repeated hour) is its first instant, and an end inside a gap moves later', () => {
  const fallBack = expand('America/New_York', '2027-11-06T01:30:00-04:00', '2027-11-06T02:00:00-04:00', 'FREQ=DAILY;COUNT=2');
  assert.deepEqual(starts(fallBack), ['2027-11-06T05:30:00.000Z', '2027-11-07T05:30:00.000Z'], '01:30 EDT, the first of the two');
  const acrossGap = expand('Europe/Berlin', '2027-03-27T01:30:00+01:00', '2027-03-27T02:30:00+01:00', 'FREQ=DAILY;COUNT=2');
  assert.deepEqual(acrossGap.map((each) => [iso(each.startMs), iso(each.endMs)])[1], ['2027-03-28T00:30:00.000Z', '2027-03-28T01:30:00.000Z'], '02:30 does not exist: read with the offset before the gap (RFC 5545 §3.3.5), i.e. 03:30 CEST');
});

test('BYMONTHDAY=31 skips the months without a 31st; -1 is the last day of each month', () => {
  assert.deepEqual(starts(expand('UTC', '2027-01-31T12:00:00Z', '2027-01-31T13:00:00Z', 'FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4')), [
    '2027-01-31T12:00:00.000Z', '2027-03-31T12:00:00.000Z', '2027-05-31T12:00:00.000Z', '2027-07-31T12:00:00.000Z',
  ]);
  assert.deepEqual(starts(expand('UTC', '2028-01-31T12:00:00Z', '2028-01-31T13:00:00Z', 'FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=3')), [
    '2028-01-31T12:00:00.000Z', '2028-02-29T12:00:00.000Z', '2028-03-31T12:00:00.000Z',
  ]);
});

test('BYDAY=-1FR is the last Friday of each month', () => {
  assert.deepEqual(starts(expand('Asia/Kolkata', '2027-01-29T18:00:00+05:30', '2027-01-29T19:00:00+05:30', 'FREQ=MONTHLY;BYDAY=-1FR;COUNT=4')), [
    '2027-01-29T12:30:00.000Z', '2027-02-26T12:30:00.000Z', '2027-03-26T12:30:00.000Z', '2027-04-30T12:30:00.000Z',
  ]);
});

test('INTERVAL=2 with BYDAY=TU,TH takes Tuesdays and Thursdays of every other week', () => {
  assert.deepEqual(starts(expand('UTC', '2027-09-07T09:00:00Z', '2027-09-07T10:00:00Z', 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=5')), [
    '2027-09-07T09:00:00.000Z', '2027-09-09T09:00:00.000Z', '2027-09-21T09:00:00.000Z', '2027-09-23T09:00:00.000Z', '2027-10-05T09:00:00.000Z',
  ]);
});

test('UNTIL is inclusive, as an instant and as a whole local day', () => {
  assert.equal(expand('UTC', '2027-09-01T09:00:00Z', '2027-09-01T10:00:00Z', 'FREQ=DAILY;UNTIL=20270903T090000Z').length, 3);
  assert.equal(expand('UTC', '2027-09-01T09:00:00Z', '2027-09-01T10:00:00Z', 'FREQ=DAILY;UNTIL=20270903T085959Z').length, 2);
  // 23:00 Berlin on Sept 3 is 21:00Z: the date UNTIL is Berlin's day, not UTC's.
  assert.equal(expand('Europe/Berlin', '2027-09-01T23:00:00+02:00', '2027-09-01T23:30:00+02:00', 'FREQ=DAILY;UNTIL=20270903').length, 3);
});

test('exdates leave out occurrences, still counted by COUNT', () => {
  const occurrences = expand('UTC', '2027-09-01T09:00:00Z', '2027-09-01T10:00:00Z', 'FREQ=DAILY;COUNT=3', ['2027-09-02T09:00:00Z']);
  assert.deepEqual(starts(occurrences), ['2027-09-01T09:00:00.000Z', '2027-09-03T09:00:00.000Z']);
});

test('a rule whose first occurrence is not start_time is refused, naming recurrence', () => {
  assert.throws(() => expand('UTC', '2027-09-01T09:00:00Z', '2027-09-01T10:00:00Z', 'FREQ=WEEKLY;BYDAY=TU;COUNT=3'), (error: unknown) => error instanceof ScheduleProblem && error.field === 'recurrence' && /first occurrence/.test(error.message));
  assert.throws(() => expand('UTC', '2027-09-15T09:00:00Z', '2027-09-15T10:00:00Z', 'FREQ=MONTHLY;BYMONTHDAY=1;COUNT=3'), /first occurrence/);
});

test('more than 500 occurrences, or one more than 1096 days after the first, is refused', () => {
  assert.throws(() => expand('UTC', '2027-01-01T09:00:00Z', '2027-01-01T10:00:00Z', 'FREQ=DAILY;UNTIL=20290101'), /more than 500/);
  assert.throws(() => expand('UTC', '2027-01-01T09:00:00Z', '2027-01-01T10:00:00Z', 'FREQ=MONTHLY;COUNT=40'), /1096 days/);
  assert.equal(expand('UTC', '2027-01-01T09:00:00Z', '2027-01-01T10:00:00Z', 'FREQ=MONTHLY;COUNT=37').length, 37);
});

test('parseRecurrence() names the part at fault for what §11 does not take', () => {
  const problems = (text: string): string => {
    const parsed = parseRecurrence(text);
    assert.ok(Array.isArray(parsed), text);
    return parsed.join(' | ');
  };
  assert.match(problems('FREQ=YEARLY;COUNT=2'), /FREQ="YEARLY" is not supported/);
  assert.match(problems('FREQ=DAILY;BYHOUR=9;COUNT=2'), /BYHOUR is not supported/);
  assert.match(problems('FREQ=DAILY;COUNT=2;UNTIL=20270101'), /not both/);
  assert.match(problems('FREQ=WEEKLY'), /exactly one of COUNT/);
  assert.match(problems('FREQ=WEEKLY;BYDAY=1MO;COUNT=2'), /only FREQ=MONTHLY/);
  assert.match(problems('FREQ=DAILY;BYMONTHDAY=3;COUNT=2'), /only with FREQ=MONTHLY/);
  assert.match(problems('FREQ=MONTHLY;BYMONTHDAY=32;COUNT=2'), /BYMONTHDAY entry "32"/);
  assert.match(problems('FREQ=DAILY;INTERVAL=100;COUNT=2'), /INTERVAL="100"/);
  assert.match(problems('FREQ=DAILY;UNTIL=20270101T000000'), /in UTC/);
  assert.match(problems('RRULE:FREQ=DAILY;COUNT=2'), /RRULE/);
  assert.equal(formatRecurrence(rule('count=3;byday=tu,-1fr;freq=monthly')), 'FREQ=MONTHLY;BYDAY=TU,-1FR;COUNT=3');
});

const spans = (occurrences: Occurrence[]): string[][] => occurrences.map((each) => [iso(each.startMs), iso(each.endMs)]);

test('a one-hour series ending in the second pass of the repeated hour is not 1 ms long: the first is as sent, the others last one elapsed hour (issue 33.1, Los Angeles 2027-11-07)', () => {
  // 01:32 PDT to 01:32 PST: a local length of zero, so every occurrence lasts the first's elapsed hour.
  assert.deepEqual(spans(expand('America/Los_Angeles', '2027-11-07T08:32:00Z', '2027-11-07T09:32:00Z', 'FREQ=DAILY;COUNT=3')), [
    ['2027-11-07T08:32:00.000Z', '2027-11-07T09:32:00.000Z'],
    ['2027-11-08T09:32:00.000Z', '2027-11-08T10:32:00.000Z'],
    ['2027-11-09T09:32:00.000Z', '2027-11-09T10:32:00.000Z'],
  ]);
  // 01:50 PDT to 01:10 PST: a negative local length (-40 min), 20 elapsed minutes.
  assert.deepEqual(spans(expand('America/Los_Angeles', '2027-11-07T08:50:00Z', '2027-11-07T09:10:00Z', 'FREQ=WEEKLY;COUNT=2')), [
    ['2027-11-07T08:50:00.000Z', '2027-11-07T09:10:00.000Z'],
    ['2027-11-14T09:50:00.000Z', '2027-11-14T10:10:00.000Z'],
  ]);
});

test('a Berlin series whose first occurrence ends in the second pass of the repeated hour is not one hour short (issue 33.1)', () => {
  // Saturday 02:30 CEST to Sunday 02:30 CET, 2027-10-31: 24 local hours, 25 elapsed; the first keeps its 25 hours.
  const daily = expand('Europe/Berlin', '2027-10-30T00:30:00Z', '2027-10-31T01:30:00Z', 'FREQ=DAILY;COUNT=3');
  assert.deepEqual(spans(daily), [
    ['2027-10-30T00:30:00.000Z', '2027-10-31T01:30:00.000Z'],
    ['2027-10-31T00:30:00.000Z', '2027-11-01T01:30:00.000Z'],
    ['2027-11-01T01:30:00.000Z', '2027-11-02T01:30:00.000Z'],
  ], 'the second starts at 02:30 CEST (the first pass) and ends 02:30 CET the next day; the third is 24 h');
});

test('a series whose occurrences would end after 9999-12-31T23:59:59.999Z is refused naming recurrence, not stored (issue 33.2)', () => {
  const refused = (error: unknown): boolean => error instanceof ScheduleProblem && error.field === 'recurrence' && /9999-12-31T23:59:59.999Z/.test(error.message);
  assert.throws(() => expand('UTC', '9999-12-30T10:00:00Z', '9999-12-30T11:00:00Z', 'FREQ=DAILY;COUNT=5'), refused);
  assert.throws(() => expand('UTC', '9999-12-01T10:00:00Z', '9999-12-01T11:00:00Z', 'FREQ=MONTHLY;COUNT=2'), refused);
  assert.throws(() => expand('Pacific/Kiritimati', '9999-12-31T09:00:00Z', '9999-12-31T09:30:00Z', 'FREQ=WEEKLY;COUNT=2'), refused);
  // Ending on the last instant is fine; so is a series that stops in time.
  assert.equal(expand('UTC', '9999-12-29T23:00:00Z', '9999-12-29T23:59:59.999Z', 'FREQ=DAILY;COUNT=3').length, 3);
  assert.throws(() => expand('UTC', '9999-12-29T23:00:00Z', '9999-12-30T00:00:00Z', 'FREQ=DAILY;COUNT=3'), refused, 'the third would end at 10000-01-01');
});

test('a refusal past the year 9999 names the day as a date, not a cut ISO string such as "+010000-01"', () => {
  const message = (text: string, start: string, end: string): string => {
    try {
      expand('UTC', start, end, text);
    } catch (error) {
      assert.ok(error instanceof ScheduleProblem);
      return error.message;
    }
    return assert.fail(`${text} from ${start} was taken`);
  };
  assert.match(message('FREQ=DAILY;COUNT=5', '9999-12-30T10:00:00Z', '9999-12-30T11:00:00Z'), /an occurrence on 10000-01-01, after/);
  assert.match(message('FREQ=MONTHLY;COUNT=3', '9999-12-01T10:00:00Z', '9999-12-01T11:00:00Z'), /an occurrence on 10000-01-01, after/);
});

test('BYMONTHDAY=1,1,-28 and a repeated BYDAY value count once, not a refusal (issue 33.4)', () => {
  assert.equal(formatRecurrence(rule('FREQ=MONTHLY;BYMONTHDAY=1,1,-28;COUNT=4')), 'FREQ=MONTHLY;BYMONTHDAY=1,-28;COUNT=4');
  assert.equal(formatRecurrence(rule('FREQ=WEEKLY;BYDAY=TU,TH,TU;COUNT=4')), 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=4');
  assert.equal(formatRecurrence(rule('FREQ=MONTHLY;BYDAY=1MO,+1MO,-1FR,-1FR;COUNT=4')), 'FREQ=MONTHLY;BYDAY=1MO,-1FR;COUNT=4');
  // In a 28-day February, -28 is the 1st: one occurrence that day.
  assert.deepEqual(starts(expand('UTC', '2027-02-01T09:00:00Z', '2027-02-01T10:00:00Z', 'FREQ=MONTHLY;BYMONTHDAY=1,1,-28;COUNT=4')), [
    '2027-02-01T09:00:00.000Z', '2027-03-01T09:00:00.000Z', '2027-03-04T09:00:00.000Z', '2027-04-01T09:00:00.000Z',
  ]);
});
