// Expands a recurrence rule into occurrence instants in an IANA zone (RFC 5545 §3.3.10, the subset of API.md §11); pure, no I/O.
import { daysInMonth } from '../lib/calendar.js';
import { MAX_TIME_MS } from '../events/time.js';
import { instantOfWall, localTime, offsetAt, wallAsUtc, type LocalTime } from '../lib/time-zone.js';
import { MAX_OCCURRENCES, type RecurrenceRule } from './recurrence-rule.js';

/** What a series' schedule is: its first occurrence, its zone, its rule and the starts it leaves out. */
export interface Schedule {
  startMs: number;
  endMs: number;
  zone: string;
  rule: RecurrenceRule;
  /** Starts (ms) to leave out; each must be a start the rule makes (planExdates keeps the others apart). */
  exdates?: readonly number[];
}

/** One occurrence: its start and end instants. */
export interface Occurrence {
  startMs: number;
  endMs: number;
}

/** A schedule that makes no valid series; `part` is `recurrence`, `exdates` (with its index) or `start_time`. */
export class ScheduleProblem extends Error {
  override readonly name = 'ScheduleProblem';
  constructor(readonly field: string, message: string) {
    super(message);
  }
}

/** The last occurrence starts at most this long after the first (API.md §11: 1096 days). */
export const MAX_SPAN_MS = 1096 * 86_400_000;
const DAY_MS = 86_400_000;
/** Periods looked at past the span before concluding the rule makes nothing more (a rule of Feb 29ths every 12 months). */
const PERIODS_PAST_SPAN = 1200;

/**
 * The occurrences of `schedule` in start order, exdates left out. The first is exactly `startMs`–`endMs`. Every
 * other starts at the first's local wall time on its day and lasts as long as the first in local terms, or, where
 * the first's local length is not positive (it ends in the second pass of a repeated hour), as long as the first in
 * elapsed time. A day without that wall time (a spring-forward gap) or without that date (April 31st) makes none
 * and is not counted. Throws ScheduleProblem when the rule does not make `startMs` its first occurrence, makes more
 * than 500, spans more than 1096 days, ends an occurrence after 9999-12-31T23:59:59.999Z, when an exdate is not one
 * of its starts, or when nothing is left (unless `allowNone`: a series whose occurrences were all deleted one by one,
 * edited without a new schedule).
 */
export function expandSchedule(schedule: Schedule, options: { allowNone?: boolean } = {}): Occurrence[] {
  const excluded = new Set(schedule.exdates ?? []);
  const starts = ruleStarts(schedule, excluded);
  const known = new Set(starts);
  (schedule.exdates ?? []).forEach((ms, index) => {
    if (!known.has(ms)) throw new ScheduleProblem(`exdates[${index}]`, `exdates[${index}] ${new Date(ms).toISOString()} is not the start of an occurrence of this series`);
  });
  const endOf = occurrenceEnds(schedule);
  const occurrences: Occurrence[] = [];
  for (const startMs of starts) {
    if (excluded.has(startMs)) continue;
    const endMs = endOf(startMs);
    if (endMs > MAX_TIME_MS) {
      throw new ScheduleProblem('recurrence', `recurrence makes an occurrence from ${new Date(startMs).toISOString()} that ends after 9999-12-31T23:59:59.999Z, the last instant stored: end it sooner with COUNT or UNTIL`);
    }
    occurrences.push({ startMs, endMs });
  }
  if (occurrences.length === 0 && options.allowNone !== true) throw new ScheduleProblem('recurrence', 'recurrence makes no occurrence that exdates do not leave out: the series would have none');
  return occurrences;
}

/**
 * The end of the occurrence starting at `startMs` in a schedule whose first runs from `startMs` to `endMs` in `zone`:
 * as long as the first in local terms, or in elapsed time when the first's local length is not positive. The first
 * ends when it was sent to, whatever hour that is (the second pass of a repeated hour).
 */
export function occurrenceEnds(schedule: { startMs: number; endMs: number; zone: string }): (startMs: number) => number {
  const { zone, startMs: firstStartMs, endMs: firstEndMs } = schedule;
  const wallDuration = wallOf(zone, firstEndMs) - wallOf(zone, firstStartMs);
  return (startMs) => {
    if (startMs === firstStartMs) return firstEndMs;
    if (wallDuration <= 0) return startMs + (firstEndMs - firstStartMs);
    return Math.max(startMs + 1, lenientInstantOf(zone, wallOf(zone, startMs) + wallDuration));
  };
}

/**
 * The starts the rule makes from `startMs`, those in `excluded` included, checked against the limits of API.md §11:
 * at most 500 occurrences, none starting more than 1096 days after the first. The limits count only the starts not in
 * `excluded` (exdates leave out occurrences), while COUNT counts every date the rule makes, as RFC 5545 counts them.
 */
export function ruleStarts(schedule: Pick<Schedule, 'startMs' | 'zone' | 'rule'>, excluded: ReadonlySet<number> = new Set()): number[] {
  const starts = startsUnchecked(schedule, excluded);
  if (starts.length === 0) {
    const why = schedule.rule.until === undefined ? 'start the series on a day the rule names' : 'its UNTIL is before start_time';
    throw new ScheduleProblem('recurrence', `recurrence makes no occurrence from start_time (${new Date(schedule.startMs).toISOString()}): ${why}`);
  }
  return starts;
}

function startsUnchecked(schedule: Pick<Schedule, 'startMs' | 'zone' | 'rule'>, excluded: ReadonlySet<number>): number[] {
  const { startMs, zone, rule } = schedule;
  const first = localTime(zone, startMs);
  const firstDay = dayNumber(first.year, first.month, first.day);
  const timeOfDay = wallOf(zone, startMs) - firstDay * DAY_MS;
  const untilDay = rule.until?.kind === 'date' ? dayNumber(rule.until.year, rule.until.month, rule.until.day) : Infinity;
  const untilMs = rule.until?.kind === 'instant' ? rule.until.ms : Infinity;
  const starts: number[] = [];
  /** Starts not excluded: the occurrences the limits count. Past the span, only excluded starts (at most 500) go on. */
  let occurrences = 0;
  let periodsPastSpan = 0;
  for (let period = 0; ; period++) {
    const days = periodDays(rule, first, firstDay, period);
    if (days.firstDay > firstDay + MAX_SPAN_MS / DAY_MS + 1 && ++periodsPastSpan > PERIODS_PAST_SPAN) return starts;
    for (const day of days.days) {
      if (day < firstDay) continue;
      if (day > untilDay) return starts;
      const ms = day === firstDay ? (starts.length === 0 ? startMs : undefined) : instantOfWall(zone, day * DAY_MS + timeOfDay);
      if (ms === undefined) continue;
      if (ms > untilMs) return starts;
      if (ms > MAX_TIME_MS) {
        throw new ScheduleProblem('recurrence', `recurrence makes an occurrence on ${isoDate(day)}, after 9999-12-31T23:59:59.999Z, the last instant stored: end it sooner with COUNT or UNTIL`);
      }
      if (starts.length === 0 && day !== firstDay) {
        throw new ScheduleProblem('recurrence', `recurrence does not make start_time (${new Date(startMs).toISOString()}) its first occurrence: its first date from there is ${isoDate(day)}; start the series on a day the rule names`);
      }
      if (!excluded.has(ms)) {
        if (ms - startMs > MAX_SPAN_MS) throw new ScheduleProblem('recurrence', `recurrence makes an occurrence on ${isoDate(day)}, more than 1096 days after the first: end it sooner with COUNT or UNTIL`);
        if (++occurrences > MAX_OCCURRENCES) throw new ScheduleProblem('recurrence', `recurrence makes more than ${MAX_OCCURRENCES} occurrences: end it sooner with COUNT or UNTIL`);
      }
      starts.push(ms);
      if (starts.length === rule.count) return starts;
    }
    if (starts.length === 0 && days.firstDay > firstDay) {
      throw new ScheduleProblem('recurrence', `recurrence does not make start_time (${new Date(startMs).toISOString()}) its first occurrence; start the series on a day the rule names`);
    }
  }
}

/** The candidate local days (day numbers, ascending) of period `period` (the n-th interval from the first). */
function periodDays(rule: RecurrenceRule, first: LocalTime, firstDay: number, period: number): { firstDay: number; days: number[] } {
  const weekdays = new Set(rule.byDay.filter((each) => each.ordinal === undefined).map((each) => each.weekday));
  if (rule.freq === 'DAILY') {
    const day = firstDay + period * rule.interval;
    return { firstDay: day, days: weekdays.size === 0 || weekdays.has(weekdayOf(day)) ? [day] : [] };
  }
  if (rule.freq === 'WEEKLY') {
    const weekStart = firstDay - ((weekdayOf(firstDay) - rule.wkst + 7) % 7) + period * 7 * rule.interval;
    const wanted = weekdays.size === 0 ? new Set([weekdayOf(firstDay)]) : weekdays;
    const days: number[] = [];
    for (let day = weekStart; day < weekStart + 7; day++) if (wanted.has(weekdayOf(day))) days.push(day);
    return { firstDay: weekStart, days };
  }
  const monthIndex = first.year * 12 + (first.month - 1) + period * rule.interval;
  const year = Math.floor(monthIndex / 12);
  const month = (monthIndex % 12) + 1;
  const length = daysInMonth(year, month);
  const start = dayNumber(year, month, 1);
  const byMonthDay = new Set<number>();
  for (const each of rule.byMonthDay) {
    const date = each > 0 ? each : length + each + 1;
    if (date >= 1 && date <= length) byMonthDay.add(start + date - 1);
  }
  const byDay = new Set<number>();
  for (const each of rule.byDay) {
    const firstOfWeekday = start + ((each.weekday - weekdayOf(start) + 7) % 7);
    if (each.ordinal === undefined) {
      for (let day = firstOfWeekday; day < start + length; day += 7) byDay.add(day);
    } else {
      const lastOfWeekday = firstOfWeekday + Math.floor((start + length - 1 - firstOfWeekday) / 7) * 7;
      const day = each.ordinal > 0 ? firstOfWeekday + (each.ordinal - 1) * 7 : lastOfWeekday + (each.ordinal + 1) * 7;
      if (day >= start && day < start + length) byDay.add(day);
    }
  }
  let days: number[];
  if (rule.byMonthDay.length > 0 && rule.byDay.length > 0) days = [...byMonthDay].filter((day) => byDay.has(day));
  else if (rule.byMonthDay.length > 0) days = [...byMonthDay];
  else if (rule.byDay.length > 0) days = [...byDay];
  else days = first.day <= length ? [start + first.day - 1] : [];
  return { firstDay: start, days: days.sort((a, b) => a - b) };
}

/**
 * The instant of a wall time (read as UTC, see wallAsUtc) in `zone`: the first of a repeated hour, and in a gap,
 * the wall time read with the offset before the gap (RFC 5545 §3.3.5), so an end that falls in a gap moves later.
 */
export function lenientInstantOf(zone: string, wall: number): number {
  const exact = instantOfWall(zone, wall);
  if (exact !== undefined) return exact;
  // A gap is at most a day long (Apia skipped 2011-12-30): a day before, the clocks kept the offset before it.
  return wall - offsetAt(zone, wall - DAY_MS);
}

/** Days since 1970-01-01 of a civil date. */
export function dayNumber(year: number, month: number, day: number): number {
  return Math.floor(wallAsUtc({ year, month, day, hour: 0, minute: 0, second: 0, millisecond: 0 }) / DAY_MS);
}

/** The wall time (read as UTC) that `zone`'s clocks show at instant `ms`. */
export function wallOf(zone: string, ms: number): number {
  return ms + offsetAt(zone, ms);
}

/** 0 = Monday … 6 = Sunday (1970-01-01 was a Thursday). */
function weekdayOf(day: number): number {
  return (((day + 3) % 7) + 7) % 7;
}

/** `YYYY-MM-DD` of a day number; past 9999 the year has five digits (`10000-01-01`), not ISO's `+010000-01-01`. */
function isoDate(day: number): string {
  const date = new Date(day * DAY_MS);
  const two = (value: number): string => String(value).padStart(2, '0');
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}`;
}
