// The rate-limit checks of the history checker, per API key over all instances: never one admitted over the limit in
// any window, RateLimit-Remaining never above what is left, and no read refused while the key is under its limit (the
// exceptions API.md §12 makes, each stated below). Seen from outside, a request was decided at some instant between its
// start and its end: every bound below holds for every such instant, so a violation is certain, never an artefact of
// the timing.
import type { Exchange, Fault, RateSettings } from './history-record.js';
import type { Violation } from './history-checker.js';

/**
 * Certainly admitted by the limiter: an answer only a request past it gets (API.md §3's order puts 400, 404 for a path,
 * 405 and 401 before it; a 503 may be the limiter's own refusal, a 404 an unknown path).
 */
const certainlyAdmitted = (exchange: Exchange): boolean => (exchange.status >= 200 && exchange.status < 400) || [403, 409, 410, 412, 422].includes(exchange.status);
/** The limiter's own refusal while the database is away: a 503 saying the instance holds no slot of the key's limit. */
export const heldNoSlot = (exchange: Exchange): boolean => exchange.status === 503 && /holds no slot of the limit/.test(messageOf(exchange));
/** Perhaps admitted: anything but a 429 or the limiter's own 503 (no answer, or another 503, may have taken a slot). */
const perhapsAdmitted = (exchange: Exchange): boolean => exchange.status !== 429 && !heldNoSlot(exchange);

/** Every exchange of `key`'s that starts in [from, to), by binary search over `sorted` (by start). */
function startingBetween(sorted: readonly Exchange[], from: number, to: number): Exchange[] {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.start < from) lo = mid + 1;
    else hi = mid;
  }
  const result: Exchange[] = [];
  for (let i = lo; i < sorted.length && sorted[i]!.start < to; i++) result.push(sorted[i]!);
  return result;
}

/** The names of the checks this module makes: each violation's first exchange is its subject (a phase reports its own). */
export const RATE_CHECKS: readonly string[] = ['over-admitted', 'remaining-overstated', 'read-refused', 'rate-refused'];

/**
 * The rate-limit violations of every key in `exchanges`. `faults`: those of the phases so far; a 429 short of the limit
 * counts only while the database could not be reached by anyone (the goal of issue 34), since otherwise slots leased to
 * another instance and not used yet (or held by a killed one until the window passes) may rightly stand between the
 * count and the limit: API.md §12 promises that no window admits one more over all instances, not that every instance
 * can tell what the others have left.
 */
export function rateViolations(exchanges: readonly Exchange[], rate: RateSettings, faults: readonly Fault[] = []): Violation[] {
  const byKey = new Map<string, Exchange[]>();
  for (const exchange of exchanges) byKey.set(exchange.key, [...(byKey.get(exchange.key) ?? []), exchange]);
  const instances = new Set(exchanges.map((exchange) => exchange.instance)).size;
  const violations: Violation[] = [];
  for (const [key, all] of byKey) {
    const sorted = [...all].sort((a, b) => a.start - b.start);
    const longest = Math.max(0, ...sorted.map((exchange) => exchange.end - exchange.start).filter(Number.isFinite));
    violations.push(...overAdmitted(key, sorted.filter(certainlyAdmitted), rate), ...overstated(key, sorted, rate), ...refusedUnder(key, sorted, { rate, longest, faults, instances }));
  }
  return violations;
}

/**
 * More than the limit certainly decided within one window: those begun at or after a's start and answered before a's
 * start + window. One violation per key and phase (the fullest window starting in it).
 */
function overAdmitted(key: string, admitted: readonly Exchange[], rate: RateSettings): Violation[] {
  const worst = new Map<string, Exchange[]>();
  for (const a of admitted) {
    const inside = startingBetween(admitted, a.start, a.start + rate.windowMs).filter((b) => b.end < a.start + rate.windowMs);
    if (inside.length > rate.limit && inside.length > (worst.get(a.phase)?.length ?? 0)) worst.set(a.phase, inside);
  }
  return [...worst.values()].map((inside) => ({ check: 'over-admitted', message: `key ${key}: ${inside.length} requests admitted within ${rate.windowMs} ms from ${Math.round(inside[0]!.start)} ms, over the limit of ${rate.limit}`, exchanges: [...inside.slice(0, 2), ...inside.slice(-4)].map((exchange) => exchange.n) }));
}

/**
 * RateLimit-Remaining above the most that can be left: the limit, less the requests certainly admitted and still in
 * the window whatever instant each was decided at (answered before this one began, begun less than a window before it
 * ended), less this one.
 */
function overstated(key: string, sorted: readonly Exchange[], rate: RateSettings): Violation[] {
  const violations: Violation[] = [];
  for (const exchange of sorted) {
    const header = exchange.headers['ratelimit-remaining'];
    if (header === undefined || !certainlyAdmitted(exchange)) continue;
    const used = startingBetween(sorted, exchange.end - rate.windowMs, exchange.start).filter((other) => other !== exchange && certainlyAdmitted(other) && other.end < exchange.start && other.start > exchange.end - rate.windowMs);
    const most = rate.limit - used.length - 1;
    if (Number(header) <= most) continue;
    violations.push({ check: 'remaining-overstated', message: `key ${key}: RateLimit-Remaining ${header} when at most ${most} was left (${used.length} requests of the key admitted within the window before it, limit ${rate.limit}); the answers before it follow`, exchanges: [exchange, ...used.slice(-5)].map((other) => other.n) });
  }
  return violations;
}

/** What an instance leases ahead for a key, per request the key made there lately (docs/postgres.md): half again. */
const HELD_PER_REQUEST = 1.5;
/** ...but never more than half the limit in a window (MOST_AHEAD in src/limits/lease-ahead.ts). */
const MOST_AHEAD = 0.5;
/** ...in ranges of about a second, each one slot more, for the next 15 s. */
const RANGE_MS = 1_000;
const HORIZON_MS = 15_000;
/** The look-back over which an instance sees a key as used there lately (its last 3 s slice at least; its rate is measured over 3 to 6 s). */
const LATELY_MS = 3_000;
/**
 * How an instance measures a key's rate (src/limits/key-rate.ts): over a second at the least, only once the key has been
 * used there for STEADY_MS, two at most of its requests in that time counted.
 */
const SHORTEST_MS = 1_000;
const STEADY_MS = 300;
const OPENING_COUNTED = 2;
/**
 * A key an instance serves steadily: two requests there at least this far apart (one burst at one instant is no
 * steady use), answered this long before the database went away (a lease takes a moment to come back).
 */
const LEASE_MS = 300;
/**
 * What an instance keeps in each range of the next few seconds for a key it serves steadily: half again the key's rate
 * there, over its last 3 to 6 s, plus one slot (docs/postgres.md), topped up once a quarter short (or whenever another
 * range is asked for): three quarters of half again at the least, 1.125 times its rate when last asked.
 */
const KEPT_PER_REQUEST = 1.125;
/** After the database is back, an instance may still refuse for this long: it probes the hosts every 0.5 s, and a key whose lease just failed is answered 503 at once for 1 s. */
const RECONNECT_MS = 2_000;

/**
 * The share of its limit a key may use and still have room, in every window, for what each instance serving it leases
 * ahead: HELD_PER_REQUEST times the key's rate there over the next HORIZON_MS (all of a window as short as the outage),
 * in ranges of RANGE_MS with one slot more each. Above it the instances' leases ahead compete for what is left, and one
 * of them may run out first: the `slots on that instance run out` of API.md §12; so does a key whose leases ahead
 * reach the most one instance holds. For 600 a 10 s over three instances, a third (the test's clients use about a
 * sixth of their limit, its prober all of it).
 */
export function nearShare(rate: RateSettings, instances: number): number {
  const ahead = Math.min(1, HORIZON_MS / rate.windowMs);
  const perWindow = HELD_PER_REQUEST * (1 + RANGE_MS / rate.windowMs);
  const extra = instances * (Math.min(rate.windowMs, HORIZON_MS) / RANGE_MS + 1);
  const fits = (rate.limit - extra) / (rate.limit * (1 - ahead + ahead * perWindow));
  // One instance's leases ahead stop growing at MOST_AHEAD of the limit a window (of the horizon, when the window is
  // longer): a key using more than that share of it over HELD_PER_REQUEST on one instance may outrun them in an outage.
  const capped = (MOST_AHEAD / HELD_PER_REQUEST) * Math.max(1, rate.windowMs / HORIZON_MS);
  return Math.min(fits, capped);
}

/** When the database could not be reached from `instance`: a restart or failover (everyone), or a cut of its own link. */
function awayFor(faults: readonly Fault[], instance: number): { from: number; to: number }[] {
  return faults.flatMap((fault) => (fault.outage !== undefined ? [fault.outage] : fault.kind === 'freeze' && fault.instance === instance ? [{ from: fault.at, to: fault.healed }] : []));
}

interface RefusalContext {
  rate: RateSettings;
  longest: number;
  faults: readonly Fault[];
  instances: number;
}

/**
 * A read refused with 503, or any request with 429 certainly while nobody could reach the database, while the key was under its
 * limit. Tolerated, as API.md §12 allows (an instance counts such requests against slots it already holds, and a key
 * whose slots on that instance run out gets 503), only when one of these shows that its slots there could run out:
 * - near its limit: the key's requests perhaps admitted in the window of any instant it was decided at reach
 *   nearShare() of the limit (a slot may come back up to 1/60 of a window late, API.md §6), or its pace before it
 *   (before the database went away) would in a window, or in the HORIZON_MS leased ahead when that is shorter
 *   (paceBefore: a young key's leases ahead are by its rate);
 * - at its limit: a 429 of the key ended within a window before the request, or before the database went away for its
 *   instance (the database counted its window full when last asked: it used slots as fast as they freed, and none
 *   was left to lease ahead);
 * - a 503 while the database was away for its instance (or back less than RECONNECT_MS before), for a key that instance
 *   had not served steadily before it went away (two requests LEASE_MS apart in LATELY_MS: it holds no slot for a key it
 *   did not serve, API.md §12), or that came there faster than it did before and used up what the instance kept for
 *   the second it is in (outranItsSlots: a retry moved onto that instance, a burst).
 */
function refusedUnder(key: string, sorted: readonly Exchange[], context: RefusalContext): Violation[] {
  const { rate, longest, faults } = context;
  const violations: Violation[] = [];
  const reach = rate.windowMs * (61 / 60);
  const near = nearShare(rate, context.instances) * rate.limit;
  const outages = faults.flatMap((fault) => (fault.outage === undefined ? [] : [fault.outage]));
  const limited = sorted.filter((exchange) => exchange.status === 429);
  for (const exchange of sorted) {
    const read = exchange.method === 'GET' || exchange.method === 'HEAD';
    const overlaps = (span: { from: number; to: number }, after = 0): boolean => exchange.start < span.to + after && exchange.end > span.from;
    // A 429 is the database's answer: counted only when certainly decided while nobody could reach it (one that may have
    // been decided once it was back is like any other, leases held elsewhere standing between).
    const within = (outage: { from: number; to: number }): boolean => exchange.start >= outage.from && exchange.end <= outage.to;
    if (!(exchange.status === 429 && outages.some(within)) && !(read && exchange.status === 503)) continue;
    const perhaps = startingBetween(sorted, exchange.start - reach - longest, exchange.end + 1e-9).filter((other) => other !== exchange && perhapsAdmitted(other) && other.start <= exchange.end && !(other.end <= exchange.start - reach));
    if (perhaps.length >= near) continue;
    const away = awayFor(faults, exchange.instance).find((span) => overlaps(span, RECONNECT_MS));
    if (paceBefore(sorted, Math.min(exchange.start, away?.from ?? Infinity)) * Math.min(rate.windowMs, HORIZON_MS) >= near) continue;
    const since = Math.min(exchange.start, away?.from ?? Infinity) - rate.windowMs;
    if (limited.some((other) => other !== exchange && other.end < exchange.start && other.end >= since)) continue;
    if (exchange.status === 503 && away !== undefined && (!servedSteadily(sorted, exchange.instance, away.from) || outranItsSlots(sorted, exchange, away.from, longest))) continue;
    violations.push(read
      ? { check: 'read-refused', message: `key ${key}: a read answered ${exchange.status} with at most ${perhaps.length} of its ${rate.limit} requests used (near its limit from ${Math.ceil(near)}), no 429 a window before${away === undefined ? '' : `, served steadily on instance ${exchange.instance} before the database went away and no faster since`}: ${messageOf(exchange)}`, exchanges: [exchange.n] }
      : { check: 'rate-refused', message: `key ${key}: a write answered 429 with at most ${perhaps.length} of its ${rate.limit} requests used (near its limit from ${Math.ceil(near)}) while the database could not be reached`, exchanges: [exchange.n] });
  }
  return violations;
}

/**
 * The least pace, over all instances, by which they can have leased ahead for the key just before `at` (requests per
 * ms): on each, KeyRate's mean (src/limits/key-rate.ts) at its last lease up to LEASE_MS before `at`, over the key's
 * time there since it last paused for a whole slice (certain only after a gap of two: the slices' alignment is not
 * known), a second at the least and LATELY_MS to twice that at the most, two at most of its first STEADY_MS counted;
 * nothing where it is younger than STEADY_MS (no slot is leased ahead for it). Counted: the requests certainly decided
 * by then. A key young at a pace near its limit has leases ahead that compete for its window long before its requests
 * fill it (the prober, 1.6 s old when a failover came, in history seed 623630363).
 */
function paceBefore(sorted: readonly Exchange[], at: number): number {
  let pace = 0;
  for (const instance of new Set(sorted.map((exchange) => exchange.instance))) {
    const there = sorted.filter((other) => other.instance === instance && perhapsAdmitted(other) && other.status !== 0 && other.end <= at);
    let least = Infinity;
    for (let lease = at - LEASE_MS; lease <= at && least > 0; lease += RATE_STEP_MS) {
      const done = there.filter((other) => other.end <= lease);
      let first = done.length - 1;
      while (first > 0 && done[first]!.start - done[first - 1]!.start < 2 * LATELY_MS) first--;
      const since = done[first]?.start;
      if (since === undefined || lease - since < STEADY_MS) {
        least = 0;
        break;
      }
      const opening = Math.max(0, done.filter((other) => other.start >= since && other.start < since + STEADY_MS).length - OPENING_COUNTED);
      const shortest = Math.max(SHORTEST_MS, Math.min(LATELY_MS, lease - since));
      const longest = Math.max(SHORTEST_MS, Math.min(2 * LATELY_MS, lease - since));
      for (let over = shortest; over <= longest; over += RATE_STEP_MS) {
        const counted = done.filter((other) => other.start >= lease - over).length - (since >= lease - over ? opening : 0);
        least = Math.min(least, counted / over);
      }
    }
    pace += least;
  }
  return pace;
}

/** The key's requests on `instance` perhaps admitted, answered or not, starting in [from, to). */
function thereBetween(sorted: readonly Exchange[], instance: number, from: number, to: number): Exchange[] {
  return startingBetween(sorted, from, to).filter((other) => other.instance === instance && perhapsAdmitted(other));
}

/** Two requests of the key on `instance` answered, LEASE_MS apart, in the LATELY_MS before `from` and LEASE_MS before it. */
function servedSteadily(sorted: readonly Exchange[], instance: number, from: number): boolean {
  const there = thereBetween(sorted, instance, from - LATELY_MS, from).filter((other) => other.status !== 0 && other.end <= from - LEASE_MS);
  return there.length >= 2 && there[there.length - 1]!.start - there[0]!.start >= LEASE_MS;
}

/**
 * True when `exchange` may have come after the key used up what its instance kept for the second it is in: at least
 * ⌊KEPT_PER_REQUEST × the least rate the instance can have measured for the key when it last leased⌋ + 1 of its
 * requests there perhaps admitted and perhaps decided in the second before it (a range of a second lies within that
 * second: fewer cannot have used it up).
 */
function outranItsSlots(sorted: readonly Exchange[], exchange: Exchange, awayFrom: number, longest: number): boolean {
  const kept = Math.floor(KEPT_PER_REQUEST * leastRate(sorted, exchange.instance, awayFrom) * RANGE_MS) + 1;
  const from = exchange.start - RANGE_MS;
  return thereBetween(sorted, exchange.instance, from - longest, exchange.end).filter((other) => other !== exchange && other.end > from).length >= kept;
}

/** How often leastRate looks at the instants and lengths an instance may have measured a key's rate at and over (ms). */
const RATE_STEP_MS = 25;

/**
 * The least rate (requests per ms) `instance` can have measured for the key when it last leased ahead before the
 * database went away at `awayFrom`: KeyRate's mean over the key's last 3 to 6 s there (from the start of the slice
 * before the current one, on the server's clock, which the history does not know), at a last lease up to LEASE_MS
 * before `awayFrom` (the one under way when the link froze never came back). Counted: only the requests certainly
 * decided within that span (begun in it, answered by its end).
 */
function leastRate(sorted: readonly Exchange[], instance: number, awayFrom: number): number {
  const done = thereBetween(sorted, instance, awayFrom - LEASE_MS - 2 * LATELY_MS, awayFrom).filter((other) => other.status !== 0 && other.end <= awayFrom);
  let least = Infinity;
  for (let at = awayFrom - LEASE_MS; at <= awayFrom; at += RATE_STEP_MS) {
    const before = done.filter((other) => other.end <= at);
    for (let over = LATELY_MS; over <= 2 * LATELY_MS; over += RATE_STEP_MS) {
      least = Math.min(least, before.filter((other) => other.start >= at - over).length / over);
    }
  }
  return least;
}

function messageOf(exchange: Exchange): string {
  const message = (exchange.body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? JSON.stringify(message.slice(0, 160)) : '(no message)';
}
