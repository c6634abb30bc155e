// The rate-limit checks of the history checker, per API key over all instances: never one admitted over the limit in
// any window, RateLimit-Remaining never above what is left, and no request refused (a read for any reason) under it.
// Seen from outside, a request was decided at some instant between its start and its end: every bound below holds
// for every such instant, so a violation is certain, never an artefact of the timing.
import type { Exchange, RateSettings } from './history-record.js';
import type { Violation } from './history-checker.js';

/**
 * Certainly admitted by the limiter: an answer only a request past it gets (API.md §3's order puts 400, 404 for a path,
 * 405 and 401 before it; a 503 may be the limiter's own refusal, a 404 an unknown path).
 */
const certainlyAdmitted = (exchange: Exchange): boolean => (exchange.status >= 200 && exchange.status < 400) || [403, 409, 410, 412, 422].includes(exchange.status);
/** Perhaps admitted: anything but a 429 (no answer, or a 503, may have taken a slot). */
const perhapsAdmitted = (exchange: Exchange): boolean => exchange.status !== 429;

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
 * The rate-limit violations of every key in `exchanges`. `outages`: when the database could not be reached; a 429
 * short of the limit counts only then (the goal of issue 34), since otherwise slots leased to another instance and
 * not used yet (or held by a killed one until the window passes) may rightly stand between the count and the limit.
 */
export function rateViolations(exchanges: readonly Exchange[], rate: RateSettings, outages: readonly { from: number; to: number }[] = []): Violation[] {
  const byKey = new Map<string, Exchange[]>();
  for (const exchange of exchanges) byKey.set(exchange.key, [...(byKey.get(exchange.key) ?? []), exchange]);
  const violations: Violation[] = [];
  for (const [key, all] of byKey) {
    const sorted = [...all].sort((a, b) => a.start - b.start);
    const longest = Math.max(0, ...sorted.map((exchange) => exchange.end - exchange.start).filter(Number.isFinite));
    violations.push(...overAdmitted(key, sorted.filter(certainlyAdmitted), rate), ...overstated(key, sorted, rate), ...refusedUnder(key, sorted, rate, longest, outages));
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

/**
 * A read answered 503, or a 429 during an outage, while the key was certainly under its limit: fewer than the limit
 * perhaps admitted in the window of any instant it was decided at (a slot may come back up to 1/60 of a window late,
 * API.md §6).
 */
function refusedUnder(key: string, sorted: readonly Exchange[], rate: RateSettings, longest: number, outages: readonly { from: number; to: number }[]): Violation[] {
  const violations: Violation[] = [];
  const reach = rate.windowMs * (61 / 60);
  for (const exchange of sorted) {
    const read = exchange.method === 'GET' || exchange.method === 'HEAD';
    const inOutage = outages.some((outage) => exchange.start < outage.to && exchange.end > outage.from);
    if (!(exchange.status === 429 && inOutage) && !(read && exchange.status === 503)) continue;
    const perhaps = startingBetween(sorted, exchange.start - reach - longest, exchange.end + 1e-9).filter((other) => other !== exchange && perhapsAdmitted(other) && other.start <= exchange.end && !(other.end <= exchange.start - reach));
    if (perhaps.length >= rate.limit) continue;
    violations.push(read
      ? { check: 'read-refused', message: `key ${key}: a read answered ${exchange.status} with at most ${perhaps.length} of its ${rate.limit} requests used: ${messageOf(exchange)}`, exchanges: [exchange.n] }
      : { check: 'rate-refused', message: `key ${key}: a write answered 429 with at most ${perhaps.length} of its ${rate.limit} requests used`, exchanges: [exchange.n] });
  }
  return violations;
}

function messageOf(exchange: Exchange): string {
  const message = (exchange.body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? JSON.stringify(message.slice(0, 160)) : '(no message)';
}
