// When a failed message is tried again (API.md §13): growing delays, then every 10 hours, for 3 days.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait after the 1st, 2nd, … failed attempt; every later one waits as long as the last. */
export const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR];

/** How long a message may keep failing before its webhook becomes `failing`. */
export const FAILING_AFTER_MS = 3 * 24 * HOUR;

/**
 * When to try again after `attempt` failed attempts, the first of which failed at `firstFailureMs`; undefined when
 * the 3 days are over (the webhook is then `failing`). The last retry falls exactly at the end of the 3 days.
 */
export function nextAttemptAt(attempt: number, firstFailureMs: number, nowMs: number): number | undefined {
  const deadline = firstFailureMs + FAILING_AFTER_MS;
  if (nowMs >= deadline) return undefined;
  const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1]!;
  return Math.min(nowMs + delay, deadline);
}
