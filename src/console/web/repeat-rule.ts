// The "Repeats" choices of the form as an RFC 5545 RRULE (API.md §11) and back, and a preview of the starts it makes.
// The console offers a subset of what the API takes: weekly on chosen days, monthly by date or by weekday.
// The preview follows the rules of §11 (the first start counts, skipped dates and gap times are not counted);
// the server expands the rule itself on save, so a difference would show on the series page, never in data.
import { dayKey, formatDate, instantAt, instantNear, wallClock, type Wall } from './format.js';

export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** What the form's "Repeats" section says. */
export interface Repeat {
  freq: 'WEEKLY' | 'MONTHLY';
  /** Every `interval` weeks or months, 1–99. */
  interval: number;
  /** WEEKLY: the days it meets on. */
  days: Weekday[];
  /** MONTHLY: on the start's day of the month, on its nth weekday (the 2nd Tuesday), or on the last such weekday. */
  monthly: 'date' | 'weekday' | 'last-weekday';
  /** How it ends: after a number of occurrences, or on a day (inclusive, in the series' zone). */
  end: { count: number } | { until: string };
}

/** At most this many occurrences, within this many days of the first (API.md §11). */
export const MAX_OCCURRENCES = 500;
export const MAX_SPAN_DAYS = 1096;
const DAY_MS = 86_400_000;

const dayNumber = (year: number, month: number, day: number): number => Date.UTC(year, month - 1, day) / DAY_MS;
const fromDayNumber = (days: number): { year: number; month: number; day: number } => {
  const date = new Date(days * DAY_MS);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
};
const monthLength = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The weekday of a wall date. */
export function weekdayOf(wall: Pick<Wall, 'year' | 'month' | 'day'>): Weekday {
  return WEEKDAYS[(new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay() + 6) % 7]!;
}

/** Which of its weekday in the month the date is: 1 for the first Tuesday, up to 5. */
export function ordinalInMonth(wall: Pick<Wall, 'day'>): number {
  return Math.ceil(wall.day / 7);
}

/** Whether the date is the last of its weekday in its month. */
export function isLastInMonth(wall: Pick<Wall, 'year' | 'month' | 'day'>): boolean {
  return wall.day + 7 > monthLength(wall.year, wall.month);
}

/** The RRULE value (no `RRULE:` prefix) for a start in `zone`; an `until` day ends at its last minute there, sent in UTC. */
export function toRrule(repeat: Repeat, start: Wall, zone: string): string {
  const parts = [`FREQ=${repeat.freq}`];
  if (repeat.interval !== 1) parts.push(`INTERVAL=${repeat.interval}`);
  const adds = addsStart(repeat, start);
  if (repeat.freq === 'WEEKLY') parts.push(`BYDAY=${WEEKDAYS.filter((day) => weeklyDays(repeat, start).includes(day)).join(',')}`);
  else if (repeat.monthly === 'date') parts.push(`BYMONTHDAY=${start.day}`);
  else parts.push(`BYDAY=${repeat.monthly === 'weekday' ? ordinalInMonth(start) : -1}${weekdayOf(start)}`);
  if ('count' in repeat.end) {
    // The start's weekday is in BYDAY only to make the start the first occurrence: its later dates, left out as
    // exdates, still count toward COUNT (API.md §11), so COUNT counts them too.
    const preview = adds ? previewStarts(repeat, start, zone) : undefined;
    parts.push(`COUNT=${preview === undefined ? repeat.end.count : preview.starts.length + preview.skipped.length}`);
  } else parts.push(`UNTIL=${untilValue(repeat.end.until, zone)}`);
  return parts.join(';');
}

/**
 * Whether the start's weekday is not among the days ticked for a weekly rule: the start is then added as the first
 * occurrence alone (the API makes the start the first occurrence and wants the rule to name its day).
 */
export function addsStart(repeat: Repeat, start: Wall): boolean {
  return repeat.freq === 'WEEKLY' && repeat.days.length > 0 && !repeat.days.includes(weekdayOf(start));
}

/** The days a weekly rule names: those ticked (none: the start's), and the start's when it is added. */
function weeklyDays(repeat: Repeat, start: Wall): Weekday[] {
  return repeat.days.length === 0 || addsStart(repeat, start) ? [...repeat.days, weekdayOf(start)] : repeat.days;
}

/** The starts (RFC 3339) to leave out when the start's weekday is added for the start alone: its later dates. */
export function exdatesOf(repeat: Repeat, start: Wall, zone: string): string[] {
  return addsStart(repeat, start) ? previewStarts(repeat, start, zone).skipped.map((at) => new Date(at).toISOString()) : [];
}

/** The last minute of day `YYYY-MM-DD` in `zone`, as an RRULE UTC date-time `20270115T225900Z`. */
function untilValue(day: string, zone: string): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const wall = { year, month, day: date, hour: 23, minute: 59 };
  const at = instantAt(zone, wall) ?? instantAt(zone, { ...wall, hour: 22 }) ?? Date.UTC(year, month - 1, date, 23, 59);
  return new Date(at).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** Reads a rule back into the form's choices; undefined for a rule the form cannot show (DAILY, several month days...). */
export function fromRrule(rule: string, start: Wall, zone: string): Repeat | undefined {
  // The server keeps a rule as it was sent, and takes its names in any case and its ordinals signed (+1MO).
  const parts = new Map(rule.toUpperCase().replaceAll('+', '').split(';').map((part) => part.split('=') as [string, string]));
  const freq = parts.get('FREQ');
  const interval = Number(parts.get('INTERVAL') ?? '1');
  if ((freq !== 'WEEKLY' && freq !== 'MONTHLY') || !Number.isInteger(interval)) return undefined;
  const byday = parts.get('BYDAY');
  let days: Weekday[] = [];
  let monthly: Repeat['monthly'] = 'date';
  if (freq === 'WEEKLY') {
    days = byday === undefined ? [weekdayOf(start)] : (byday.split(',') as Weekday[]);
    if (!days.every((day) => (WEEKDAYS as readonly string[]).includes(day))) return undefined;
  } else if (byday !== undefined) {
    const match = /^(-1|[1-5])(MO|TU|WE|TH|FR|SA|SU)$/.exec(byday);
    if (match === null || match[2] !== weekdayOf(start)) return undefined;
    monthly = match[1] === '-1' ? 'last-weekday' : 'weekday';
  } else if (parts.has('BYMONTHDAY') && parts.get('BYMONTHDAY') !== String(start.day)) {
    return undefined;
  }
  const count = parts.get('COUNT');
  const until = parts.get('UNTIL');
  if (count !== undefined) return { freq, interval, days, monthly, end: { count: Number(count) } };
  if (until === undefined) return undefined;
  const [, y, m, d, time] = /^(\d{4})(\d{2})(\d{2})(T\d{6}Z)?$/.exec(until) ?? [];
  if (y === undefined) return undefined;
  const untilDay = time === undefined ? `${y}-${m}-${d}` : dayKey(wallClock(zone, Date.UTC(Number(y), Number(m) - 1, Number(d), Number(time.slice(1, 3)), Number(time.slice(3, 5)))));
  return { freq, interval, days, monthly, end: { until: untilDay } };
}

/** A series' rule and exdates in the form's terms. */
export interface ReadSchedule {
  repeat: Repeat;
  /** Whether the start's weekday was added for the start alone: the rule names it, and every later date of it is an exdate. */
  added: boolean;
  /** The exdates that are not those later dates: occurrences cancelled on their own. */
  kept: string[];
}

/**
 * Reads a series' rule and exdates back into the form's choices (undefined for a rule the form cannot show). A start
 * weekday the console added for the start alone is taken out of the days again, and the count is that of the starts the
 * series has, so the form shows what was ticked, says the start is added, and previews what the series holds.
 */
export function readSchedule(rule: string, exdates: readonly string[], start: Wall, zone: string): ReadSchedule | undefined {
  const repeat = fromRrule(rule, start, zone);
  if (repeat === undefined) return undefined;
  const weekday = weekdayOf(start);
  const asIs = { repeat, added: false, kept: [...exdates] };
  if (repeat.freq !== 'WEEKLY' || repeat.days.length < 2 || !repeat.days.includes(weekday)) return asIs;
  const excluded = new Set(exdates.map((each) => Date.parse(each)));
  const later = previewStarts(repeat, start, zone).starts.slice(1).filter((at) => weekdayOf(wallClock(zone, at)) === weekday);
  // A rule that has not reached a second date of the start's weekday tells nothing: both readings make the same series.
  if (later.length === 0 || !later.every((at) => excluded.has(at))) return asIs;
  const leftOut = new Set(later);
  return {
    repeat: { ...repeat, days: repeat.days.filter((day) => day !== weekday), end: 'count' in repeat.end ? { count: repeat.end.count - later.length } : repeat.end },
    added: true,
    kept: exdates.filter((each) => !leftOut.has(Date.parse(each))),
  };
}

/**
 * The `exdates` to send with a changed schedule: the later dates of a start weekday added alone (`exdatesOf`), with the
 * occurrences cancelled on their own (`read.kept`) moved as the first start moved (from `from`, the start as stored:
 * the same shift of wall-clock time, as the server moves exdates it keeps). One the new schedule makes is sent moved;
 * one it does not make is sent as stored, which the server keeps without applying, so a later schedule that makes it
 * again does not bring the occurrence back (API.md §11). Undefined leaves the stored exdates to the server: when
 * neither the old nor the new schedule adds its start, or when the list would be the stored one.
 */
export function exdatesFor(repeat: Repeat, start: Wall, zone: string, stored: readonly string[], read: ReadSchedule | undefined, from: Wall = start): string[] | undefined {
  const own = exdatesOf(repeat, start, zone);
  if (own.length === 0 && read?.added !== true) return undefined;
  const { starts, skipped } = previewStarts(repeat, start, zone);
  const makes = new Set([...starts, ...skipped]);
  const kept = (read?.kept ?? stored).map((each) => {
    const at = Date.parse(each);
    const moved = movedWith(at, start, from, zone);
    return moved !== undefined && makes.has(moved) ? moved : at;
  });
  const result = [...new Set([...own.map((each) => Date.parse(each)), ...kept])].sort((a, b) => a - b);
  const before = new Set(stored.map((each) => Date.parse(each)));
  return result.length === before.size && result.every((at) => before.has(at)) ? undefined : result.map((at) => new Date(at).toISOString());
}

/**
 * The starts the server leaves out of a saved schedule: the exdates exdatesFor sends, or, when it sends none, the
 * stored ones moved as the first start moved (the server keeps them so). The preview leaves them out too.
 */
export function appliedExdates(repeat: Repeat, start: Wall, zone: string, stored: readonly string[], read: ReadSchedule | undefined, from: Wall = start): Set<number> {
  const sent = exdatesFor(repeat, start, zone, stored, read, from);
  if (sent !== undefined) return new Set(sent.map((each) => Date.parse(each)));
  return new Set(stored.map((each) => movedWith(Date.parse(each), start, from, zone) ?? Date.parse(each)));
}

/** The instant `at` moved by the wall-clock shift of the first start from `from` to `start` (undefined in a gap). */
function movedWith(at: number, start: Wall, from: Wall, zone: string): number | undefined {
  const shift = wallMs(start) - wallMs(from);
  return shift === 0 ? at : instantAt(zone, fromWallMs(wallMs(wallClock(zone, at)) + shift));
}

/** A wall time as ms of a UTC clock showing it (for shifts), and back. */
const wallMs = (wall: Wall): number => Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
function fromWallMs(ms: number): Wall {
  const date = new Date(ms);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: date.getUTCHours(), minute: date.getUTCMinutes() };
}

/** The starts a rule makes: at most MAX_OCCURRENCES + 1 (so "too many" can be told), and whether the last is too far. */
export interface Preview {
  starts: number[];
  /** Starts the rule makes that are left out (exdates): the later dates on the start's weekday, when it is added for the start alone. */
  skipped: number[];
  tooMany: boolean;
  tooLong: boolean;
}

/** The dates the rule meets on, period by period from the start's, in order (before gap times are dropped). */
function* candidateDays(repeat: Repeat, start: Wall): Generator<number> {
  const first = dayNumber(start.year, start.month, start.day);
  const weekday = WEEKDAYS.indexOf(weekdayOf(start));
  const days = weeklyDays(repeat, start);
  const offsets = WEEKDAYS.flatMap((day, index) => (days.includes(day) ? [index] : []));
  // Enough periods to pass three years at any interval; a rule with no day in reach ends here.
  for (let period = 0; period <= 160; period++) {
    if (repeat.freq === 'WEEKLY') {
      const monday = first - weekday + period * 7 * repeat.interval;
      for (const offset of offsets) if (monday + offset >= first) yield monday + offset;
      continue;
    }
    const index = start.year * 12 + start.month - 1 + period * repeat.interval;
    const [year, month] = [Math.floor(index / 12), (index % 12) + 1];
    const length = monthLength(year, month);
    let day: number;
    if (repeat.monthly === 'date') day = start.day;
    else {
      const target = WEEKDAYS.indexOf(weekdayOf(start));
      const firstWeekday = WEEKDAYS.indexOf(weekdayOf({ year, month, day: 1 }));
      const firstMatch = 1 + ((target - firstWeekday + 7) % 7);
      day = repeat.monthly === 'weekday' ? firstMatch + 7 * (ordinalInMonth(start) - 1) : firstMatch + 7 * Math.floor((length - firstMatch) / 7);
    }
    if (day <= length) yield dayNumber(year, month, day);
  }
}

/**
 * The starts (instants) of the rule for a first start at `start` in `zone`, as the API would make them. A start typed
 * in the hour the clocks skip is sent as the instant just past it (03:30 for 02:30), and the series goes on at that.
 */
export function previewStarts(repeat: Repeat, typed: Wall, zone: string): Preview {
  const start = wallClock(zone, instantNear(zone, typed));
  const starts: number[] = [];
  const skipped: number[] = [];
  const count = 'count' in repeat.end ? repeat.end.count : Infinity;
  const untilDay = 'until' in repeat.end ? repeat.end.until : undefined;
  const startWeekday = weekdayOf(start);
  const adds = addsStart(repeat, start);
  for (const days of candidateDays(repeat, start)) {
    if (starts.length >= count || starts.length + skipped.length > MAX_OCCURRENCES) break;
    const date = fromDayNumber(days);
    if (untilDay !== undefined && dayKey(date) > untilDay) break;
    const at = instantAt(zone, { ...date, hour: start.hour, minute: start.minute });
    // A local time that does not exist that day (a spring-forward gap) is skipped and not counted.
    if (at === undefined) continue;
    if (adds && starts.length > 0 && weekdayOf(date) === startWeekday) skipped.push(at);
    else starts.push(at);
  }
  const first = starts[0];
  const last = Math.max(starts.at(-1) ?? 0, skipped.at(-1) ?? 0);
  return { starts, skipped, tooMany: starts.length + skipped.length > MAX_OCCURRENCES, tooLong: first !== undefined && last - first > MAX_SPAN_DAYS * DAY_MS };
}

const DAY_NAMES: Record<Weekday, string> = { MO: 'Monday', TU: 'Tuesday', WE: 'Wednesday', TH: 'Thursday', FR: 'Friday', SA: 'Saturday', SU: 'Sunday' };
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth'];

/** The rule in words: "Every 2 weeks on Tuesday and Thursday, 12 times". `until` is formatted by the caller. */
export function describeRepeat(repeat: Repeat, start: Wall, formatDay: (day: string) => string): string {
  const every = repeat.interval === 1 ? `Every ${repeat.freq === 'WEEKLY' ? 'week' : 'month'}` : `Every ${repeat.interval} ${repeat.freq === 'WEEKLY' ? 'weeks' : 'months'}`;
  // No day ticked: a weekly rule meets on the start's weekday (RFC 5545 without BYDAY).
  const days = repeat.days.length === 0 ? [weekdayOf(start)] : repeat.days;
  const names = WEEKDAYS.filter((day) => days.includes(day)).map((day) => DAY_NAMES[day]);
  const when =
    repeat.freq === 'WEEKLY'
      ? `on ${names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`}`
      : repeat.monthly === 'date'
        ? `on day ${start.day}`
        : `on the ${repeat.monthly === 'weekday' ? ORDINALS[ordinalInMonth(start) - 1] : 'last'} ${DAY_NAMES[weekdayOf(start)]}`;
  const end = 'count' in repeat.end ? `${repeat.end.count} time${repeat.end.count === 1 ? '' : 's'}` : `until ${formatDay(repeat.end.until)}`;
  return `${every} ${when}, ${end}`;
}

/** The schedule as the conflict screen compares it: the rule in words, and the start day when it is added alone. */
export function scheduleWords(repeat: Repeat, start: Wall): string {
  const words = describeRepeat(repeat, start, (day) => formatDate(`${day}T12:00:00Z`, 'UTC'));
  return addsStart(repeat, start) ? `${words}; ${DAY_NAMES[weekdayOf(start)]}, the start date, is added as the first occurrence` : words;
}
