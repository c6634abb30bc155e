// When a failed message is tried again (API.md §13): growing delays, then every 10 hours, for 3 days, across restarts.
import type { WebhookState } from '../store/webhook-state.js';

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

/**
 * When the next attempt at the pending message of a saved webhook is due, from what every store already keeps: the
 * count of failed attempts, when the first failed, and the time of the last in the delivery log (the newest failed
 * attempt of that number). Undefined when nothing failed (send at once) or the log no longer shows the last attempt.
 * So a restart neither hurries nor delays a message (API.md §13): it is tried when it was due, at once if overdue.
 */
export function savedRetryAt(state: Pick<WebhookState, 'attempts' | 'firstFailureMs' | 'deliveries'>): number | undefined {
  if (state.attempts === 0 || state.firstFailureMs === null) return undefined;
  const last = state.deliveries.find((entry) => entry.message_id !== null && entry.status === 'failed' && entry.attempt === state.attempts);
  const lastMs = last === undefined ? NaN : Date.parse(last.at);
  if (Number.isNaN(lastMs)) return undefined;
  // Past the 3 days the next attempt is due at once; its failure makes the webhook failing.
  return nextAttemptAt(state.attempts, state.firstFailureMs, lastMs) ?? lastMs;
}
