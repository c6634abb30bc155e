// Per-key sliding-window rate limiter: never more than `limit` in any window, bounded memory per key.

/** The outcome of asking the limiter about one key at one instant. */
export interface LimitDecision {
  /** Whether the request may proceed (for `take`, it has then been counted). */
  allowed: boolean;
  /** The configured number of requests per window. */
  limit: number;
  /** Requests left in the current window after this one (0..limit). */
  remaining: number;
  /** Whole seconds until a slot frees (at least 1 when refused, 0 when nothing is counted). */
  resetSeconds: number;
}

/** Options for {@link SlidingWindowLimiter}. */
export interface SlidingWindowOptions {
  /** Requests allowed in any window of `windowMs`; an integer from 1 to 2^32 - 1. */
  limit: number;
  /** Length of the window in milliseconds. */
  windowMs: number;
  /** Most keys held at once; past it the least recently used key is forgotten. Default 100,000. */
  maxKeys?: number;
}

/** Sub-windows per window (a freed slot returns at most one late, API.md §6); one more is counted so that partial buckets at both ends are covered. */
export const BUCKETS_PER_WINDOW = 60;
const RING_SIZE = BUCKETS_PER_WINDOW + 1;
const MAX_LIMIT = 0xffff_ffff;

/** Position of an absolute bucket index in the ring (also for negative indices). */
function slotOf(bucket: number): number {
  return ((bucket % RING_SIZE) + RING_SIZE) % RING_SIZE;
}

/**
 * The counts of every key a limiter held, for one started later on the same window (a server restarted on its data
 * folder): per key, its head bucket and oldest counted bucket, then for each counted bucket its distance back from the
 * head, its count and its latest request's time in ms after the bucket's start. Flat arrays of numbers, not objects:
 * the file holds up to 100,000 keys.
 */
export interface SavedWindows {
  windowMs: number;
  keys: Array<[key: string, buckets: number[]]>;
}

interface KeyState {
  /**
   * One buffer for the ring (one object per key, not two): slot `i` holds the count of its bucket,
   * slot `RING_SIZE + i` the time of the bucket's latest request, in ms after the bucket's start
   * (see #startOf): when the whole bucket stops counting.
   */
  counts: Uint32Array;
  /** Absolute index of the newest bucket the ring has been advanced to. */
  headBucket: number;
  /** Sum of the counts. */
  total: number;
  /** No counted bucket is older than this one: where the search for the oldest starts. */
  oldest: number;
}

/**
 * Counts requests per key in a ring of 61 buckets, each 1/60 of the window wide, each
 * remembering when its latest request came. A bucket counts until a whole window has passed
 * since its latest request, so no true window ever sees more than `limit`; a freed slot
 * returns at most `windowMs / 60` late. So `resetSeconds` is exact: never more than the
 * window, and a request made that many seconds later is admitted. Time is in
 * whole ms (fractions are dropped), passed in, and expected not to go backwards per key (an
 * earlier time is treated as the latest seen).
 */
export class SlidingWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly maxKeys: number;
  /**
   * Two generations bound the table without per-request bookkeeping: keys live in `#young`;
   * when it holds maxKeys/2, it becomes `#old` and the previous old one is dropped whole. A key
   * used again while old moves back to young, so only keys idle for a whole generation go.
   */
  #young = new Map<string, KeyState>();
  #old = new Map<string, KeyState>();
  readonly #generationSize: number;

  constructor(options: SlidingWindowOptions) {
    const { limit, windowMs, maxKeys = 100_000 } = options;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${MAX_LIMIT}, got ${limit}`);
    }
    if (!Number.isFinite(windowMs) || windowMs <= 0) {
      throw new RangeError(`windowMs must be a positive number of milliseconds, got ${windowMs}`);
    }
    if (!Number.isInteger(maxKeys) || maxKeys < 1) {
      throw new RangeError(`maxKeys must be a positive integer, got ${maxKeys}`);
    }
    this.limit = limit;
    this.windowMs = windowMs;
    this.maxKeys = maxKeys;
    this.#generationSize = Math.max(1, Math.floor(maxKeys / 2));
  }

  /** Number of keys currently held. */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** Every key with requests still counted, oldest used first (see SavedWindows). */
  save(): SavedWindows {
    const keys: SavedWindows['keys'] = [];
    for (const generation of [this.#old, this.#young]) {
      for (const [key, state] of generation) {
        if (state.total === 0) continue;
        const buckets = [state.headBucket, state.oldest];
        for (let back = BUCKETS_PER_WINDOW; back >= 0; back--) {
          const slot = slotOf(state.headBucket - back);
          const count = state.counts[slot] ?? 0;
          if (count > 0) buckets.push(back, count, state.counts[RING_SIZE + slot] ?? 0);
        }
        keys.push([key, buckets]);
      }
    }
    return { windowMs: this.windowMs, keys };
  }

  /**
   * Counts again what another limiter saved, when its window was this one's (bucket numbers depend on it); false, and
   * nothing kept, when it was not. A key this limiter already holds keeps its own counts; an entry not of save()'s
   * shape, or whose counts have all left the window by `nowMs`, is skipped. Counts saved ahead of `nowMs` (by a process
   * whose clock ran ahead, then was set right) are shifted back so that the newest bucket is now's, the older ones
   * keeping their distance from it: they still count, and all free within a window, not when the clock reaches them.
   */
  restore(saved: SavedWindows, nowMs: number): boolean {
    if (saved.windowMs !== this.windowMs) return false;
    const nowBucket = this.#bucketOf(Math.floor(nowMs));
    // The head bucket's latest request is no later than now: counts saved ahead of the clock (or later in this very
    // bucket) free a window from now, so the Retry-After said at once is enough.
    const nowOffset = Math.max(0, Math.floor(nowMs) - this.#startOf(nowBucket));
    const bucketMs = Math.ceil(this.windowMs / BUCKETS_PER_WINDOW);
    for (const [key, buckets] of saved.keys) {
      if (this.#young.has(key) || this.#old.has(key)) continue;
      const [savedHead, savedOldest] = buckets;
      if (!Number.isSafeInteger(savedHead) || !Number.isSafeInteger(savedOldest) || buckets.length % 3 !== 2) continue;
      // Every count of a key last used more than a window ago has left it: nothing to keep.
      if (savedHead! < nowBucket - BUCKETS_PER_WINDOW) continue;
      const headBucket = Math.min(savedHead!, nowBucket);
      const ahead = savedHead! - headBucket;
      const oldest = Math.min(Math.max(savedOldest! - ahead, headBucket - BUCKETS_PER_WINDOW), headBucket);
      const state: KeyState = { counts: new Uint32Array(2 * RING_SIZE), headBucket, total: 0, oldest };
      for (let i = 2; i < buckets.length; i += 3) {
        const [back, count, latest] = [buckets[i]!, buckets[i + 1]!, buckets[i + 2]!];
        if (!(Number.isInteger(back) && back >= 0 && back <= BUCKETS_PER_WINDOW && Number.isInteger(count) && count > 0 && count <= MAX_LIMIT && Number.isInteger(latest) && latest >= 0)) continue;
        const slot = slotOf(headBucket - back);
        state.total += count - (state.counts[slot] ?? 0);
        state.counts[slot] = count;
        state.counts[RING_SIZE + slot] = Math.min(latest, back === 0 && headBucket === nowBucket ? nowOffset : bucketMs);
      }
      if (state.total === 0) continue;
      this.#keep(key, state);
    }
    return true;
  }

  /** Counts one request for `key` if it fits in the window; a refused request is not counted. */
  take(key: string, nowMs: number): LimitDecision {
    const now = Math.floor(nowMs);
    const state = this.#touch(key, now);
    const allowed = state.total < this.limit;
    if (allowed) this.#count(state, now);
    return this.#decision(state, allowed, now);
  }

  /** Reports whether a request for `key` would be admitted now, without counting it. */
  peek(key: string, nowMs: number): LimitDecision {
    const state = this.#young.get(key) ?? this.#old.get(key);
    if (state === undefined) return { allowed: true, limit: this.limit, remaining: this.limit, resetSeconds: 0 };
    const now = Math.floor(nowMs);
    this.#advance(state, now);
    return this.#decision(state, state.total < this.limit, now);
  }

  /**
   * Gives back the latest request counted for `key`: for a request refused (429) after its slot was taken,
   * since refused requests do not count (API.md §6). Nothing happens when none is counted.
   */
  refund(key: string, nowMs: number): void {
    const state = this.#young.get(key) ?? this.#old.get(key);
    if (state === undefined) return;
    this.#advance(state, Math.floor(nowMs));
    for (let b = state.headBucket; b >= state.headBucket - BUCKETS_PER_WINDOW; b--) {
      const slot = slotOf(b);
      const count = state.counts[slot] ?? 0;
      if (count === 0) continue;
      state.counts[slot] = count - 1;
      state.total -= 1;
      return;
    }
  }

  /** Counts one event for `key` without checking the limit (e.g. a failed authentication). */
  record(key: string, nowMs: number): void {
    const now = Math.floor(nowMs);
    this.#count(this.#touch(key, now), now);
  }

  #bucketOf(nowMs: number): number {
    return Math.floor((nowMs * BUCKETS_PER_WINDOW) / this.windowMs);
  }

  /** Where bucket `bucket` starts, in whole ms (a reference point for `latest`; at or before any time in it). */
  #startOf(bucket: number): number {
    return Math.floor((bucket * this.windowMs) / BUCKETS_PER_WINDOW);
  }

  /** Finds or creates the state for `key` (in the young generation) and advances its ring. */
  #touch(key: string, now: number): KeyState {
    let state = this.#young.get(key);
    if (state === undefined) {
      state = this.#old.get(key);
      const bucket = this.#bucketOf(now);
      if (state === undefined) state = { counts: new Uint32Array(2 * RING_SIZE), headBucket: bucket, total: 0, oldest: bucket };
      else this.#old.delete(key);
      this.#keep(key, state);
    }
    this.#advance(state, now);
    return state;
  }

  /** Puts `state` in the young generation, which becomes the old one when full. */
  #keep(key: string, state: KeyState): void {
    if (this.#young.size >= this.#generationSize) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, state);
  }

  /** Moves the ring to `now`: buckets 61 or more behind are dropped, and the one 60 behind once a window has passed since its latest request. */
  #advance(state: KeyState, now: number): void {
    const bucket = this.#bucketOf(now);
    const steps = bucket - state.headBucket;
    if (steps >= RING_SIZE) {
      state.counts.fill(0, 0, RING_SIZE);
      state.total = 0;
    } else {
      for (let b = state.headBucket + 1; b <= bucket; b++) {
        const slot = slotOf(b);
        state.total -= state.counts[slot] ?? 0;
        state.counts[slot] = 0;
      }
    }
    if (steps > 0) state.headBucket = bucket;
    // Only the bucket 60 behind the head can be partly through its last window: buckets after it
    // started less than a window ago, and those before it are gone from the ring.
    const edge = state.headBucket - BUCKETS_PER_WINDOW;
    const slot = slotOf(edge);
    const count = state.counts[slot] ?? 0;
    if (count > 0 && now >= this.#startOf(edge) + (state.counts[RING_SIZE + slot] ?? 0) + this.windowMs) {
      state.total -= count;
      state.counts[slot] = 0;
    }
  }

  #count(state: KeyState, now: number): void {
    if (state.total === 0) state.oldest = state.headBucket;
    const slot = slotOf(state.headBucket);
    const count = state.counts[slot] ?? 0;
    const offset = Math.max(0, now - this.#startOf(state.headBucket));
    // A fresh bucket forgets the latest time of the bucket that held the slot before.
    state.counts[RING_SIZE + slot] = count === 0 ? offset : Math.max(state.counts[RING_SIZE + slot] ?? 0, offset);
    state.counts[slot] = count + 1;
    state.total += 1;
  }

  #decision(state: KeyState, allowed: boolean, nowMs: number): LimitDecision {
    const remaining = Math.max(0, this.limit - state.total);
    const resetSeconds = this.#secondsUntilSlotFrees(state, nowMs);
    return { allowed, limit: this.limit, remaining, resetSeconds: allowed ? resetSeconds : Math.max(1, resetSeconds) };
  }

  /**
   * Seconds until the oldest counted buckets leave the span and free enough for one more
   * request (more than one bucket when `record` has pushed the total past the limit).
   */
  #secondsUntilSlotFrees(state: KeyState, nowMs: number): number {
    if (state.total === 0) return 0;
    const needed = Math.max(1, state.total - this.limit + 1);
    let freed = 0;
    let first = true;
    for (let b = Math.max(state.oldest, state.headBucket - BUCKETS_PER_WINDOW); b <= state.headBucket; b++) {
      const count = state.counts[slotOf(b)] ?? 0;
      if (count === 0) continue;
      // Buckets only fill at the head, so the first counted one found stays the oldest until it expires.
      if (first) {
        state.oldest = b;
        first = false;
      }
      freed += count;
      if (freed >= needed) {
        // Bucket b stops counting a whole window after its latest request: at most a window from now.
        const freesAt = this.#startOf(b) + (state.counts[RING_SIZE + slotOf(b)] ?? 0) + this.windowMs;
        return Math.max(0, Math.ceil((freesAt - nowMs) / 1000));
      }
    }
    return 0;
  }
}
