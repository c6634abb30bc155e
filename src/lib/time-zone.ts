// Wall-clock time in an IANA zone, from the ICU that Node ships (Intl.DateTimeFormat): no zone database of our own.

/** A local date and time in some zone; `month` is 1–12. */
export interface LocalTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The formatter that splits an instant into local fields in `zone` (cached: building one costs tens of µs). */
function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Whether `name` is a time zone this Node knows (`Europe/Berlin`, `UTC`); case as IANA writes it is not required. */
export function isTimeZone(name: string): boolean {
  if (name === '' || name.length > 64) return false;
  try {
    formatterFor(name);
    return true;
  } catch {
    return false;
  }
}

/** The local fields of instant `ms` in `zone`. */
export function localTime(zone: string, ms: number): LocalTime {
  const fields = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  let before = false;
  for (const part of formatterFor(zone).formatToParts(ms)) {
    if (part.type === 'era') before = part.value === 'BC' || part.value === 'B';
    else if (part.type in fields) fields[part.type as keyof typeof fields] = Number(part.value);
  }
  if (before) fields.year = 1 - fields.year;
  return { ...fields, millisecond: ((ms % 1000) + 1000) % 1000 };
}

/** The zone's offset from UTC at instant `ms`, in ms (Berlin in summer: +7,200,000). */
export function offsetAt(zone: string, ms: number): number {
  // No zone changes its offset twice within twelve hours: when a bucket's two ends agree, so does all of it.
  const bucket = Math.floor(ms / BUCKET_MS);
  const before = bucketOffset(zone, bucket);
  return before === bucketOffset(zone, bucket + 1) ? before : exactOffsetAt(zone, ms);
}

function exactOffsetAt(zone: string, ms: number): number {
  const whole = ms - (((ms % 1000) + 1000) % 1000);
  return wallAsUtc(localTime(zone, whole)) - whole;
}

/** The offset at the start of twelve-hour bucket `bucket`, cached (a series' expansion asks for thousands of nearby instants). */
function bucketOffset(zone: string, bucket: number): number {
  let offsets = bucketOffsets.get(zone);
  if (offsets === undefined) bucketOffsets.set(zone, (offsets = new Map()));
  let offset = offsets.get(bucket);
  if (offset === undefined) {
    if (offsets.size >= MAX_BUCKETS_PER_ZONE) offsets.clear();
    offset = exactOffsetAt(zone, bucket * BUCKET_MS);
    offsets.set(bucket, offset);
  }
  return offset;
}

const BUCKET_MS = 12 * 3_600_000;
/** About 136 years of buckets per zone; the cache is cleared past it, so memory stays bounded. */
const MAX_BUCKETS_PER_ZONE = 100_000;
const bucketOffsets = new Map<string, Map<number, number>>();

/**
 * The instant at which `zone`'s clocks show `local`, or undefined when they never do (the gap of a
 * spring-forward change, or a day a zone skipped). A time shown twice (the repeated hour) gives its first instant.
 */
export function instantOf(zone: string, local: LocalTime): number | undefined {
  return instantOfWall(zone, wallAsUtc(local));
}

/** instantOf for a wall time given as ms read as UTC (see wallAsUtc). */
export function instantOfWall(zone: string, wall: number): number | undefined {
  // Offsets in force around the wall time; a zone changes at most a few times within two days.
  const offsets = new Set([offsetAt(zone, wall - 2 * DAY_MS), offsetAt(zone, wall), offsetAt(zone, wall + 2 * DAY_MS)]);
  let first: number | undefined;
  for (const offset of offsets) {
    const candidate = wall - offset;
    if (offsetAt(zone, candidate) === offset && (first === undefined || candidate < first)) first = candidate;
  }
  return first;
}

/**
 * The first instant of local day `year-month-day` in `zone`: its midnight, or, where a change skips midnight
 * (clocks jump from 23:59:59 to 01:00), the first instant the clocks show that day.
 */
export function startOfDay(zone: string, year: number, month: number, day: number): number {
  const midnight = { year, month, day, hour: 0, minute: 0, second: 0, millisecond: 0 };
  const exact = instantOf(zone, midnight);
  if (exact !== undefined) return exact;
  // Midnight fell in a gap: the day starts where the gap ends, at the instant the offset changes.
  const wall = wallAsUtc(midnight);
  let low = wall - DAY_MS - offsetAt(zone, wall - DAY_MS);
  let high = wall + DAY_MS - offsetAt(zone, wall + DAY_MS);
  const before = offsetAt(zone, low);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (offsetAt(zone, middle) === before) low = middle;
    else high = middle;
  }
  return high;
}

/** The wall time read as if it were UTC: the arithmetic base every zone computation starts from. */
export function wallAsUtc(local: LocalTime): number {
  const date = new Date(0);
  date.setUTCFullYear(local.year, local.month - 1, local.day);
  date.setUTCHours(local.hour, local.minute, local.second, local.millisecond);
  return date.getTime();
}

const DAY_MS = 86_400_000;
