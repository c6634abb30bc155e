// Limits failed authentications per client address so API keys cannot be guessed by brute force.

import { addressKey } from "./address.js";
import { SlidingWindowLimiter } from "./sliding-window.js";

/** Options for {@link AuthFailureThrottle}. */
export interface AuthFailureThrottleOptions {
  /** Failures an address may have within the window before it is blocked. Default 100. */
  maxFailures?: number;
  /** Length of the window in milliseconds. Default 15 minutes. */
  windowMs?: number;
  /** Most addresses remembered at once; past it the least recently failing is forgotten. Default 10,000. */
  maxAddresses?: number;
}

/** Whether an address may try a key now, and if not, for how long to wait. */
export interface AuthBlockDecision {
  blocked: boolean;
  /** Whole seconds until the address may try again (at least 1 when blocked, else 0). */
  retryAfterSeconds: number;
}

/**
 * Counts failed authentications per address (IPv6 by its /64) in a sliding window. An
 * address that already has `maxFailures` failures in the window is blocked, so the
 * 101st failing request on is refused by default. The table of addresses is bounded.
 */
export class AuthFailureThrottle {
  readonly #failures: SlidingWindowLimiter;

  constructor(options: AuthFailureThrottleOptions = {}) {
    const { maxFailures = 100, windowMs = 15 * 60_000, maxAddresses = 10_000 } = options;
    if (!Number.isInteger(maxFailures) || maxFailures < 1) {
      throw new RangeError(`maxFailures must be a positive integer, got ${maxFailures}`);
    }
    if (!Number.isInteger(maxAddresses) || maxAddresses < 1) {
      throw new RangeError(`maxAddresses must be a positive integer, got ${maxAddresses}`);
    }
    this.#failures = new SlidingWindowLimiter({ limit: maxFailures, windowMs, maxKeys: maxAddresses });
  }

  /** Number of addresses currently remembered. */
  get size(): number {
    return this.#failures.size;
  }

  /** Whether `remoteAddress` has used up its failures; checked before trying a key. */
  isBlocked(remoteAddress: string, nowMs: number): AuthBlockDecision {
    const decision = this.#failures.peek(addressKey(remoteAddress), nowMs);
    return decision.allowed
      ? { blocked: false, retryAfterSeconds: 0 }
      : { blocked: true, retryAfterSeconds: decision.resetSeconds };
  }

  /** Counts one failed authentication against `remoteAddress`. */
  recordFailure(remoteAddress: string, nowMs: number): void {
    this.#failures.record(addressKey(remoteAddress), nowMs);
  }
}
