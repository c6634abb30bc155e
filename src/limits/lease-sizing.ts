// How many slots a key's lease asks the source for at once: the batch of its sub-window, and the ranges ahead.
import type { KeyLease } from './key-lease.js';
import { SLICE_MS } from './key-rate.js';
import { AHEAD_PACE, aheadWants, HORIZON_MS, MARGIN, MOST_AHEAD, type Want } from './lease-ahead.js';

/** The outage of the database slots are held for: what a key needs is its rate over this long (see #needInBucket). */
const AHEAD_MS = 12_000;
/** A key faster than its limit has slots held ahead only while its window's room lasts it this long (see #roomAhead). */
const LASTING_MS = 3 * HORIZON_MS;

/** What a LeaseSizing sizes by: the limit and its window, how the window is cut, and the largest batch. */
export interface LeaseSizingOptions {
  limit: number;
  windowMs: number;
  /** The length of a sub-window (ms). */
  bucketMs: number;
  /** Sub-windows in a range leased ahead. */
  span: number;
  /** Most slots asked for at once. */
  maxBatch: number;
}

/** What to ask for, and whether the slots held ahead are to go back first (the key grew too busy for them). */
export interface SizedWants {
  wants: Want[];
  giveBackAhead: boolean;
}

/**
 * The sizes a LeasedWindowLimiter asks for, so that leases left unused on one instance hold back little from the others:
 * a batch that shrinks as the window fills (down to one slot near the limit), at least what the key needs in its
 * sub-window at its pace, and, for a key used here steadily and far enough from its limit, the ranges ahead that
 * aheadWants names.
 */
export class LeaseSizing {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #bucketMs: number;
  readonly #span: number;
  readonly #maxBatch: number;

  constructor(options: LeaseSizingOptions) {
    this.#limit = options.limit;
    this.#windowMs = options.windowMs;
    this.#bucketMs = options.bucketMs;
    this.#span = options.span;
    this.#maxBatch = options.maxBatch;
  }

  /**
   * What to ask for: a batch of the current sub-window when `current` (fewer as the window fills, down to one), and,
   * for a key used here steadily (not a single burst), the ranges ahead that aheadWants names: enough to go through an
   * outage of the database. A slot leased ahead holds back only the windows it meets (see grantsWithin in
   * rate-leases.ts); a burst of the same key may meet it, and have it as its range comes. Notes on `lease` when to look
   * again (lookAt) and the last range asked for (aheadTo).
   */
  wants(lease: KeyLease, nowMs: number, current: boolean): SizedWants {
    const wants: Want[] = [];
    const free = Math.max(0, this.#limit - lease.total);
    const batch = this.#batch(lease);
    // Near the limit (a batch of one) one slot at a time; else a batch, or twice what the key needs in the sub-window.
    const inBucket = this.#needInBucket(lease, nowMs);
    // Short sub-windows (a small window) are leased by the key's rate, not by batches mostly given back a moment later.
    const want = this.#bucketMs < 1000 ? Math.min(batch, Math.max(2, 2 * inBucket)) : Math.max(batch, Math.min(2 * inBucket, Math.floor(free / 4)));
    if (current) wants.push({ bucket: lease.bucket, want: batch < 2 ? 1 : want });
    lease.lookAt = Math.min(nowMs + AHEAD_MS / 4, (lease.bucket + 1) * this.#bucketMs);
    if (!lease.rate.steady(nowMs)) return { wants, giveBackAhead: false };
    // A key grown too busy for slots ahead (or first judged on too little) gives back those it holds: on its limit they
    // would be its last requests refused, on whichever instance.
    if (!this.#roomAhead(lease, nowMs)) return { wants, giveBackAhead: lease.ahead !== undefined };
    const ahead = aheadWants({ nowMs, bucket: lease.bucket, bucketMs: this.#bucketMs, span: this.#span, perMs: this.#perMs(lease, nowMs), margin: MARGIN, most: (MOST_AHEAD * this.#limit) / Math.min(this.#windowMs, HORIZON_MS), held: lease.ahead, current: lease.range, aheadTo: lease.aheadTo });
    lease.aheadTo = ahead.aheadTo;
    return { wants: [...wants, ...ahead.wants], giveBackAhead: false };
  }

  /**
   * When to ask for the next batch of the sub-window, `current` slots of it just granted: once half of them are used, or
   * sooner when fewer would be left than the key needs in the rest of its sub-window; never ahead near the limit (-1).
   */
  lowWater(lease: KeyLease, current: number, nowMs: number): number {
    return this.#batch(lease) >= 2 ? Math.min(lease.left - 1, Math.max(Math.floor(current / 2), this.#needInBucket(lease, nowMs))) : -1;
  }

  /**
   * Requests the key would make in AHEAD_MS at its recent rate here (never above the limit's), with half again as margin,
   * within one sub-window: its slots are usable only there.
   */
  #needInBucket(lease: KeyLease, nowMs: number): number {
    const need = Math.ceil(this.#perMs(lease, nowMs) * AHEAD_MS * MARGIN) + 1;
    return Math.ceil((need * Math.min(this.#bucketMs, AHEAD_MS)) / AHEAD_MS);
  }

  /** The key's requests per ms here, never above the limit's rate (no instance can use more). */
  #perMs(lease: KeyLease, nowMs: number): number {
    return Math.min(lease.rate.perMs(nowMs), this.#limit / this.#windowMs);
  }

  /**
   * True when slots held ahead cannot cost the key a request: its pace over all instances stays within AHEAD_PACE of
   * its limit, or what its window has left (besides this instance's slots) lasts it LASTING_MS at that pace, so what is
   * held ahead (HORIZON_MS) is used up before the window fills. A key on course for its limit sooner gets no slot ahead:
   * slots held ahead then fill its window before the limit, and requests are refused early (a burst of 20 on a limit of
   * 20 a minute over three instances met 429 at the 9th; the failed-authentication throttle, at the 91st). Before a 429
   * an instance gives back its own slots ahead, and asks the others for theirs (LeasedWindowLimiter's #ask).
   */
  #roomAhead(lease: KeyLease, nowMs: number): boolean {
    // Refused lately: at its limit, its slots come back as fast as it uses them, and one held ahead is a refusal now.
    if (nowMs - lease.refusedAt < 2 * SLICE_MS) return false;
    // Its pace over all instances, not here alone: a key in turn on three instances is a third as busy on each, and
    // each judged it far from its limit (a loop at 40 a 10 s met 429 at its 9th request).
    const perMs = Math.max(lease.rate.perMs(nowMs), lease.allPerMs);
    if (perMs * this.#windowMs <= this.#limit * AHEAD_PACE) return true;
    return this.#limit - lease.total + lease.usable() + lease.heldAhead() >= perMs * LASTING_MS;
  }

  /** Slots of one batch: fewer as the window fills (down to one), so leases unused here hold back little from others. */
  #batch(lease: KeyLease): number {
    return Math.max(1, Math.min(this.#maxBatch, Math.floor(Math.max(0, this.#limit - lease.total) / 8)));
  }
}
