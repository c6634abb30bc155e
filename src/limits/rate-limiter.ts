// What the pipeline asks of a per-key rate limit, whichever counts it.
import type { LimitDecision } from './sliding-window.js';

/** A sliding-window limit by key (an API key's id, or `auth ADDRESS` for failed authentications): in memory (SlidingWindowLimiter), or over several instances (LeasedWindowLimiter), whose `take` may ask a database. */
export interface RateLimiter {
  readonly limit: number;
  take(key: string, nowMs: number): LimitDecision | Promise<LimitDecision>;
  peek(key: string, nowMs: number): LimitDecision;
  refund(key: string, nowMs: number): void;
}
