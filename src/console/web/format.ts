// Times as people read and type them, in a named IANA zone (the campus's, or the browser's), from the browser's own Intl.

/** A wall-clock date and time; `month` is 1–12. */
export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const DAY_MS = 86_400_000;
const splitters = new Map<string, Intl.DateTimeFormat>();

/** The formatter that reads an instant's wall clock in `zone` (cached: building one is slow). */
function splitter(zone: string): Intl.DateTimeFormat {
  let found = splitters.get(zone);
  if (found === undefined) {
    found = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    splitters.set(zone, found);
  }
  return found;
}

/** What the clocks of `zone` show at instant `ms` (seconds dropped). */
export function wallClock(zone: string, ms: number): Wall {
  const read: Record<string, number> = {};
  for (const part of splitter(zone).formatToParts(ms)) if (part.type !== 'literal') read[part.type] = Number(part.value);
  return { year: read['year']!, month: read['month']!, day: read['day']!, hour: read['hour']!, minute: read['minute']! };
}

/** A wall time counted as if it were UTC: the base of the zone arithmetic below. */
function naive(wall: Wall): number {
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
}

/** How far `zone`'s clocks are ahead of UTC at instant `ms`, in ms (to the minute). */
function aheadOfUtc(zone: string, ms: number): number {
  const minute = Math.floor(ms / 60_000) * 60_000;
  return naive(wallClock(zone, minute)) - minute;
}

/**
 * The instant at which `zone`'s clocks show `wall`: the earlier one when they show it twice (the repeated
 * hour), undefined when they never do (a spring-forward gap, or a day the zone skipped).
 */
export function instantAt(zone: string, wall: Wall): number | undefined {
  const target = naive(wall);
  // The offsets in force a day either side cover every real change but a zone's two in one day.
  const candidates = [target - aheadOfUtc(zone, target - DAY_MS), target - aheadOfUtc(zone, target + DAY_MS)];
  const hits = candidates.filter((candidate) => naive(wallClock(zone, candidate)) === target);
  return hits.length === 0 ? undefined : Math.min(...hits);
}

/** `wall` as an instant, or, in a gap, the instant just past it (what the clocks read once they have jumped). */
export function instantNear(zone: string, wall: Wall): number {
  return instantAt(zone, wall) ?? naive(wall) - aheadOfUtc(zone, naive(wall) - DAY_MS);
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** `YYYY-MM-DD` of a wall date. */
export function dayKey(wall: Pick<Wall, 'year' | 'month' | 'day'>): string {
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}`;
}

/** An instant as the value of a `datetime-local` input in `zone`: `YYYY-MM-DDTHH:MM`. */
export function toZoneInput(iso: string, zone: string): string {
  const wall = wallClock(zone, Date.parse(iso));
  return `${dayKey(wall)}T${pad(wall.hour)}:${pad(wall.minute)}`;
}

/** Reads `YYYY-MM-DDTHH:MM` (a `datetime-local` value); undefined when empty or malformed. */
export function parseInput(value: string): Wall | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?$/.exec(value);
  if (match === null) return undefined;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number];
  const check = new Date(Date.UTC(year, month - 1, day, hour, minute));
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59) return undefined;
  return { year, month, day, hour, minute };
}

/** A `datetime-local` value read in `zone`, as an RFC 3339 UTC time; undefined when empty or not a date. */
export function fromZoneInput(value: string, zone: string): string | undefined {
  const wall = parseInput(value);
  return wall === undefined ? undefined : new Date(instantNear(zone, wall)).toISOString();
}

const shown = new Map<string, Intl.DateTimeFormat>();
/**
 * A date beside its time always names its weekday (a Tue/Thu series must look like one at a glance). `dateStyle` cannot
 * be mixed with `weekday`, so the date's parts are spelled out; the time keeps the locale's `timeStyle` ("05:00").
 */
export const DATE_WITH_WEEKDAY: Intl.DateTimeFormatOptions = { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' };

function formatter(zone: string, style: 'shortDate' | 'time' | 'date'): Intl.DateTimeFormat {
  const key = `${zone} ${style}`;
  let found = shown.get(key);
  if (found === undefined) {
    const options: Intl.DateTimeFormatOptions = style === 'shortDate' ? DATE_WITH_WEEKDAY : style === 'time' ? { timeStyle: 'short' } : { dateStyle: 'full' };
    found = new Intl.DateTimeFormat(undefined, { ...options, timeZone: zone });
    shown.set(key, found);
  }
  return found;
}

/** An instant as a date and time in `zone`, with its weekday, e.g. "Tue, 1 Sept 2026, 19:00". */
export function formatDateTime(iso: string | number, zone: string): string {
  const date = new Date(iso);
  return `${formatter(zone, 'shortDate').format(date)}, ${formatter(zone, 'time').format(date)}`;
}

/** When an event is, in one line: "Tue 3 Mar 2027, 10:00 – 11:30", the end's date too when it ends on another day. */
export function formatSpan(start: string, end: string, zone: string): string {
  const sameDay = dayKey(wallClock(zone, Date.parse(start))) === dayKey(wallClock(zone, Date.parse(end)));
  return `${formatDateTime(start, zone)} – ${sameDay ? formatTime(end, zone) : formatDateTime(end, zone)}`;
}

/** An instant's time of day in `zone`. */
export function formatTime(iso: string | number, zone: string): string {
  return formatter(zone, 'time').format(new Date(iso));
}

/** An instant's date in `zone`, with its weekday: "Tuesday 1 September 2026". */
export function formatDate(iso: string | number, zone: string): string {
  return formatter(zone, 'date').format(new Date(iso));
}

/** A `datetime-local` value as the person sees it: its time alone when `sameDayAs` is a value on the same day ("6:00 PM"), else its date too. */
export function formatTyped(value: string, zone: string, sameDayAs?: string): string {
  const wall = parseInput(value);
  if (wall === undefined) return value;
  const at = instantNear(zone, wall);
  return sameDayAs !== undefined && sameDayAs.slice(0, 10) === value.slice(0, 10) ? formatTime(at, zone) : formatDateTime(at, zone);
}

/** The browser's time zone name, e.g. "Europe/Paris". */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
