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

/**
 * Zone names are resolved without building a formatter per spelling: an Intl.DateTimeFormat holds ICU memory the
 * garbage collector hardly sees, so one built for each name a client sends (4,000 case variants of one zone) took a
 * server from 75 to 151 MiB. Names ICU lists are known by their lowercase spelling from the start;
 * any other name (an alias such as `US/Pacific`, or no zone) is asked of Intl once per lowercase spelling, and the
 * answers are kept in a bounded table. Formatters are kept by canonical name, so there are at most as many as ICU
 * has zones.
 */
const listedZones = new Map<string, string>(Intl.supportedValuesOf('timeZone').map((name) => [name.toLowerCase(), name]));
/** Lowercase spellings not listed → their canonical name, or null for no zone; cleared when full. */
const otherSpellings = new Map<string, string | null>();
/** Most spellings kept in otherSpellings: IANA has about 600 names in all, so a bound well above it. */
export const MAX_OTHER_SPELLINGS = 2048;
/** Formatters by canonical zone name. */
const formatters = new Map<string, Intl.DateTimeFormat>();
/** The last name resolved and its canonical name: a series' expansion asks for one zone thousands of times. */
let lastName = '';
let lastCanonical = '';

/**
 * The canonical name ICU gives the zone `name` (`america/argentina/buenos_aires` → `America/Buenos_Aires`,
 * `utc` → `UTC`), or undefined when `name` is no zone. Case is not significant (ECMA-402).
 */
export function canonicalZone(name: string): string | undefined {
  if (name === '' || name.length > 64) return undefined;
  if (name === lastName) return lastCanonical;
  const lower = name.toLowerCase();
  let canonical: string | null | undefined = listedZones.get(lower) ?? otherSpellings.get(lower);
  if (canonical === undefined) {
    try {
      canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    } catch {
      canonical = null;
    }
    if (otherSpellings.size >= MAX_OTHER_SPELLINGS) otherSpellings.clear();
    otherSpellings.set(lower, canonical);
  }
  if (canonical === null) return undefined;
  lastName = name;
  lastCanonical = canonical;
  return canonical;
}

/** How many entries the zone caches hold now (for tests: none grows with the names clients send). */
export function zoneCacheSizes(): { spellings: number; formatters: number; offsetZones: number; offsetBuckets: number } {
  return { spellings: otherSpellings.size, formatters: formatters.size, offsetZones: bucketOffsets.size, offsetBuckets };
}

/** The formatter that splits an instant into local fields in `zone` (cached: building one costs tens of µs). */
function formatterFor(zone: string): Intl.DateTimeFormat {
  const canonical = canonicalZone(zone);
  if (canonical === undefined) throw new RangeError(`not a time zone: ${JSON.stringify(zone.slice(0, 64))}`);
  let formatter = formatters.get(canonical);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: canonical,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(canonical, formatter);
  }
  return formatter;
}

/** Whether `name` is a time zone this Node knows (`Europe/Berlin`, `UTC`); case as IANA writes it is not required. */
export function isTimeZone(name: string): boolean {
  return canonicalZone(name) !== undefined;
}

/** The local fields of instant `ms` in `zone`. */
export function localTime(zone: string, ms: number): LocalTime {
  const fields = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, millisecond: ((ms % 1000) + 1000) % 1000 };
  let before = false;
  for (const part of formatterFor(zone).formatToParts(ms)) {
    if (part.type === 'era') before = part.value === 'BC' || part.value === 'B';
    else if (part.type in fields) fields[part.type as keyof typeof fields] = Number(part.value);
  }
  if (before) fields.year = 1 - fields.year;
  return fields;
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
  const canonical = canonicalZone(zone) ?? zone;
  let offsets = bucketOffsets.get(canonical);
  if (offsets === undefined) bucketOffsets.set(canonical, (offsets = new Map()));
  let offset = offsets.get(bucket);
  if (offset === undefined) {
    if (offsetBuckets >= MAX_BUCKETS) {
      bucketOffsets.clear();
      bucketOffsets.set(canonical, (offsets = new Map()));
      offsetBuckets = 0;
    }
    offset = exactOffsetAt(zone, bucket * BUCKET_MS);
    offsets.set(bucket, offset);
    offsetBuckets++;
  }
  return offset;
}

const BUCKET_MS = 12 * 3_600_000;
/** Buckets kept over all zones (about 68 years of one zone, or a 1096-day series in each of 90); cleared past it, so memory stays bounded. */
const MAX_BUCKETS = 50_000;
/** Offsets by canonical zone name, then bucket. */
const bucketOffsets = new Map<string, Map<number, number>>();
let offsetBuckets = 0;

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
