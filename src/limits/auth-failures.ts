// Limits failed authentications per client address so API keys cannot be guessed by brute force.

import { addressKey, widerPrefixKey } from "./address.js";
import { LeasedWindowLimiter } from "./leased-window.js";
import type { LeaseSource } from "./lease-source.js";
import { SlidingWindowLimiter, type SavedWindows } from "./sliding-window.js";

/** API.md §6: 100 failed authentications from one address in 15 minutes, then 429. */
const MAX_FAILURES = 100;
const WINDOW_MS = 15 * 60_000;
/** The addresses whose failures are counted at once (each instance's table, and on PostgreSQL its leases). */
const MAX_ADDRESSES = 10_000;

/** What the shared throttle's keys start with: an address's failed authentications are counted under `auth ADDRESS`. */
const AUTH_FAILURE_PREFIX = 'auth ';

/** The key of the shared throttle (leasedAuthFailures) that counts `remoteAddress`'s failed authentications. */
export function authFailureKey(remoteAddress: string): string {
  return `${AUTH_FAILURE_PREFIX}${addressKey(remoteAddress)}`;
}

/**
 * The same rule counted over every instance (PostgreSQL): slots of each address's window leased from `source`, for
 * at most MAX_ADDRESSES addresses at once, as one instance's throttle (past it the oldest address's slots go back).
 * One slot a failure: a batch would hold slots unused on one instance, and an address that went on failing on another
 * met its 429 short of its 100 (at the 94th after 70 here). Failures are few, so a round trip each costs little.
 */
export function leasedAuthFailures(source: LeaseSource, clock: () => number): LeasedWindowLimiter {
  return new LeasedWindowLimiter({ limit: MAX_FAILURES, windowMs: WINDOW_MS, maxKeys: MAX_ADDRESSES, maxBatch: 1, source, counts: "failed authentications from this address", clock, keyPrefix: AUTH_FAILURE_PREFIX });
}

/** Options for {@link AuthFailureThrottle}. */
export interface AuthFailureThrottleOptions {
  /** Failures an address may have within the window before it is blocked. Default 100. */
  maxFailures?: number;
  /** Length of the window in milliseconds. Default 15 minutes. */
  windowMs?: number;
  /** Most addresses whose failures are counted at once; past it the least recently failing are forgotten. Default 10,000. */
  maxAddresses?: number;
  /** Most blocked addresses (and prefixes) remembered at once; past it the block that ends soonest goes first. Default 50,000. */
  maxBlocked?: number;
  /** Blocked /64s within one IPv6 /48 that block the whole /48 too. Default 16. */
  prefixFlood?: number;
}

/** What a throttle held, for one started later (see AuthFailureThrottle.save). */
export interface SavedThrottle {
  failures: SavedWindows;
  /** Address key (or /48) and when its block ends, in ms. */
  blocked: Array<[key: string, until: number]>;
  /** IPv6 /48 and when the blocks of its blocked /64s end. */
  prefixes: Array<[prefix: string, ends: number[]]>;
}

/** Whether an address may try a key now, and if not, for how long to wait. */
export interface AuthBlockDecision {
  blocked: boolean;
  /** Whole seconds until the address may try again (at least 1 when blocked, else 0); never more than the window. */
  retryAfterSeconds: number;
}

/**
 * Counts failed authentications per address (IPv6 by its /64) in a sliding window. An
 * address that already has `maxFailures` failures in the window is blocked, so the 101st
 * failing request on is refused by default.
 *
 * Counting and blocking are kept apart, so churn cannot lift a block: the
 * counts live in a bounded limiter that forgets idle addresses, and the moment an address
 * reaches its limit it enters a separate table of blocks, which only time empties. That
 * table is bounded too; filling it takes `maxFailures` failures per entry, and when it is full
 * the block that ends soonest goes first. Once `prefixFlood` /64s of one IPv6 /48 are
 * blocked at the same time, the whole /48 is blocked for a window: one site with many /64s gets one budget.
 */
export class AuthFailureThrottle {
  /** Failures an address may have within the window. */
  readonly maxFailures: number;
  readonly #failures: SlidingWindowLimiter;
  readonly #windowMs: number;
  readonly #maxBlocked: number;
  readonly #prefixFlood: number;
  /** Address key (or /48) → the time its block ends, in ms; insertion order is nearly end order. */
  readonly #blocked = new Map<string, number>();
  /** IPv6 /48 → when the blocks of its blocked /64s end (at most `prefixFlood` of them, ended ones dropped as it grows). */
  readonly #prefixBlocks = new Map<string, number[]>();

  constructor(options: AuthFailureThrottleOptions = {}) {
    const { maxFailures = MAX_FAILURES, windowMs = WINDOW_MS, maxAddresses = MAX_ADDRESSES, maxBlocked = 50_000, prefixFlood = 16 } = options;
    for (const [name, value] of Object.entries({ maxFailures, maxAddresses, maxBlocked, prefixFlood })) {
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
    }
    this.#failures = new SlidingWindowLimiter({ limit: maxFailures, windowMs, maxKeys: maxAddresses });
    this.maxFailures = maxFailures;
    this.#windowMs = windowMs;
    this.#maxBlocked = maxBlocked;
    this.#prefixFlood = prefixFlood;
  }

  /** Number of addresses currently remembered (counted or blocked). */
  get size(): number {
    return this.#failures.size + this.#blocked.size;
  }

  /** The failures counted and the blocks in force, for a throttle started later (a server restarted). */
  save(): SavedThrottle {
    return { failures: this.#failures.save(), blocked: [...this.#blocked], prefixes: [...this.#prefixBlocks] };
  }

  /**
   * Counts again what a throttle of the same window saved (false, and nothing kept, when its window was another); blocks
   * that ended by `nowMs` are dropped, and one ending past a window from it ends a window from it.
   */
  restore(saved: SavedThrottle, nowMs: number): boolean {
    if (!this.#failures.restore(saved.failures, nowMs)) return false;
    const inForce = (until: unknown): until is number => typeof until === 'number' && until > nowMs;
    const bounded = (until: number): number => Math.min(until, nowMs + this.#windowMs);
    for (const [key, until] of saved.blocked) if (inForce(until) && !this.#blocked.has(key)) this.#block(key, bounded(until), nowMs);
    for (const [prefix, ends] of saved.prefixes) {
      const kept = ends.filter(inForce).map(bounded).slice(-this.#prefixFlood);
      if (kept.length > 0 && !this.#prefixBlocks.has(prefix) && this.#prefixBlocks.size < this.#maxBlocked) this.#prefixBlocks.set(prefix, kept);
    }
    return true;
  }

  /** Whether `remoteAddress` has used up its failures; checked before trying a key. */
  isBlocked(remoteAddress: string, nowMs: number): AuthBlockDecision {
    const key = addressKey(remoteAddress);
    const prefix = widerPrefixKey(remoteAddress);
    const until = Math.max(this.#blockEnd(key, nowMs), prefix === undefined ? 0 : this.#blockEnd(prefix, nowMs));
    if (until > nowMs) return { blocked: true, retryAfterSeconds: Math.max(1, Math.ceil((until - nowMs) / 1000)) };
    const decision = this.#failures.peek(key, nowMs);
    return decision.allowed ? { blocked: false, retryAfterSeconds: 0 } : { blocked: true, retryAfterSeconds: decision.resetSeconds };
  }

  /** Counts one failed authentication against `remoteAddress`; the one that reaches the limit starts its block. */
  recordFailure(remoteAddress: string, nowMs: number): void {
    const key = addressKey(remoteAddress);
    this.#failures.record(key, nowMs);
    const decision = this.#failures.peek(key, nowMs);
    if (decision.allowed) return;
    const until = nowMs + decision.resetSeconds * 1000;
    this.#block(key, until, nowMs);
    const prefix = widerPrefixKey(remoteAddress);
    if (prefix !== undefined) this.#countPrefixBlock(prefix, until, nowMs);
  }

  /** Notes one more blocked /64 in `prefix`; once `prefixFlood` of them are blocked at once, blocks the whole /48 for a window. */
  #countPrefixBlock(prefix: string, until: number, nowMs: number): void {
    const ends = (this.#prefixBlocks.get(prefix) ?? []).filter((end) => end > nowMs);
    ends.push(until);
    if (ends.length > this.#prefixFlood) ends.shift();
    this.#prefixBlocks.delete(prefix);
    this.#prefixBlocks.set(prefix, ends);
    if (ends.length >= this.#prefixFlood) this.#block(prefix, nowMs + this.#windowMs, nowMs);
    // Bounded like the blocks: past the bound the prefix noted longest ago is forgotten.
    if (this.#prefixBlocks.size > this.#maxBlocked) {
      const oldest = this.#prefixBlocks.keys().next().value;
      if (oldest !== undefined) this.#prefixBlocks.delete(oldest);
    }
  }

  /** When the block of `key` ends (0 when none); an ended block is dropped. */
  #blockEnd(key: string, nowMs: number): number {
    const until = this.#blocked.get(key);
    if (until === undefined) return 0;
    if (until > nowMs) return until;
    this.#unblock(key);
    return 0;
  }

  #block(key: string, until: number, nowMs: number): void {
    if (this.#blocked.has(key)) this.#unblock(key);
    else if (this.#blocked.size >= this.#maxBlocked) this.#makeRoom(nowMs);
    this.#blocked.set(key, until);
  }

  /**
   * Drops ended blocks among the oldest few, then, if still full, the one of them that ends
   * soonest. Blocks enter in nearly end order (each lasts at most a window), so the front holds
   * the soonest ends; looking at a fixed few keeps this O(1).
   */
  #makeRoom(nowMs: number): void {
    let soonest: string | undefined;
    let soonestEnd = Infinity;
    let looked = 0;
    for (const [key, until] of this.#blocked) {
      if (++looked > 64) break;
      if (until <= nowMs) this.#unblock(key);
      else if (until < soonestEnd) {
        soonest = key;
        soonestEnd = until;
      }
    }
    if (soonest !== undefined && this.#blocked.size >= this.#maxBlocked) this.#unblock(soonest);
  }

  #unblock(key: string): void {
    this.#blocked.delete(key);
  }
}
