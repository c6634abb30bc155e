// A key's rate limit counted over several instances: each leases slots of the key's window in batches from a shared source.
import { StoreUnavailable } from '../store/store-errors.js';
import type { LimitDecision } from './sliding-window.js';

/** Where slots come from (the PostgreSQL store's campus_rate table). */
export interface LeaseSource {
  /**
   * Grants slots of `key` in the sub-windows (or ranges) of `wants`, in order, never past `limit` in any window over
   * all instances; `granted` has one count per want, `total` is what the key's window holds now.
   */
  lease(key: string, now: number, wants: readonly Want[], limit: number): Promise<{ granted: number[]; total: number; oldest: number | undefined }>;
  /** Gives back slots leased in `bucket` (a range of `span` from it) and never used. */
  giveBack(key: string, bucket: number, count: number, span?: number): Promise<void>;
}

/** Slots asked for in sub-window `bucket`, or in the range of `span` sub-windows from it (usable in any of them). */
export interface Want {
  bucket: number;
  want: number;
  span?: number | undefined;
}

/** Options of a LeasedWindowLimiter. */
export interface LeasedWindowOptions {
  limit: number;
  windowMs: number;
  source: LeaseSource;
  /** Most slots asked for at once. Default 256. */
  maxBatch?: number;
  /** Most keys held at once; past it the oldest is given back and forgotten. Default 100,000. */
  maxKeys?: number;
  /** What the source counts, for the 503 while it cannot be reached. Default "this key's requests". */
  counts?: string;
}

/** This instance's share of a key's window: slots leased in the current sub-window and ahead, and what the source said of the whole. */
interface KeyLease {
  bucket: number;
  /** Leased in `bucket` and not used yet. */
  left: number;
  /** Slots leased ahead in the range of sub-windows (RANGE long) that holds `bucket`, not used yet. */
  range: { start: number; left: number } | undefined;
  /** Slots leased ahead for later ranges and not used yet, by the range's first sub-window. */
  ahead: Map<number, number> | undefined;
  /** Slots handed out in the window over all instances, as of the last lease. */
  total: number;
  oldest: number | undefined;
  /** A lease being asked for: requests of the key finding no slot left wait for it. */
  asking: Promise<void> | undefined;
  /** When `left` falls to this, the next batch is asked for ahead (-1: never, near the limit). */
  lowWater: number;
  /** When to look again whether enough is leased ahead (ms). */
  lookAt: number;
  /** The first sub-window of the last range leased ahead (or asked for). */
  aheadTo: number;
  /** Requests admitted in the current and the previous SLICE_MS slice: the key's rate here. */
  slice: number;
  inSlice: number;
  inSlicePrevious: number;
  /** Since when the key has been used here without a pause of a whole slice (ms). */
  since: number;
  /** When the source last failed (ms): asks right after are answered 503 at once. */
  failedAt: number;
}

const BUCKETS_PER_WINDOW = 60;
/** The outage of the database slots are held for: what a key needs is its rate over this long (see #need). */
export const AHEAD_MS = 12_000;
/** A key's rate is counted in slices this long: the last full one, or the current one when more is in it. */
const SLICE_MS = 3_000;
/** A key used here over this long (without a pause of a whole slice) gets slots leased ahead. */
const STEADY_MS = 300;
/** How far ahead ranges are leased, and the least that stays leased ahead: an outage of 10 s never outlasts them. */
const HORIZON_MS = 15_000;
const COVERED_MS = 11_000;
/** How long after a failed lease an ask is refused at once rather than sent again. */
const FAILED_MS = 1_000;

/**
 * Never more than `limit` requests of a key in any window over all instances: every admitted request uses a slot
 * leased from the source, and the source counts a slot until a whole window after the end of the sub-window (1/60
 * of a window) it was leased in, so a freed slot comes back at most 1/60 of a window late (API.md §6). A slot is
 * used only in the sub-window it was leased in; what is left is given back. Most requests need no round trip:
 * the batch shrinks as the window fills (down to one slot at a time near the limit), so leases left unused on one
 * instance hold back little from the others.
 *
 * While the source cannot be reached (the database away), requests go on using the slots held: the current
 * sub-window's, kept at least at what the key used in the last AHEAD_MS (with a margin), and, for a key with a steady
 * rate, those leased ahead by that rate for the next HORIZON_MS (never less than COVERED_MS of it), in ranges of
 * sub-windows of about a second, usable anywhere in their range (see #wants). So an outage of 10 s refuses no request
 * of a steady key under its limit. A key whose held slots run out gets 503 with Retry-After, never a slot the source
 * did not grant.
 */
export class LeasedWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #source: LeaseSource;
  readonly #maxBatch: number;
  readonly #maxKeys: number;
  readonly #counts: string;
  readonly #bucketMs: number;
  /** Sub-windows in a range leased ahead: one, or as many as make about a second when they are shorter. */
  readonly #span: number;
  readonly #leases = new Map<string, KeyLease>();
  /** Slots to give back that the source did not take (it was away): given back at the next sweep, or they would count a whole window for nobody. */
  #back: [string, number, number, number][] = [];

  constructor(options: LeasedWindowOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.#source = options.source;
    this.#maxBatch = options.maxBatch ?? 256;
    this.#maxKeys = options.maxKeys ?? 100_000;
    this.#counts = options.counts ?? "this key's requests";
    this.#bucketMs = options.windowMs / BUCKETS_PER_WINDOW;
    this.#span = Math.max(1, Math.round(1000 / this.#bucketMs));
  }

  /**
   * Counts one request of `key` when a slot is free over all instances: at once from a lease held, else after asking
   * the source. A lease half used asks for the next batch in the background, so requests never wait for the
   * database while slots are plentiful (only the first of each sub-window does, unless leased ahead).
   */
  take(key: string, nowMs: number): LimitDecision | Promise<LimitDecision> {
    const bucket = this.#bucketOf(nowMs);
    const lease = this.#leases.get(key);
    if (lease !== undefined) {
      if (lease.bucket !== bucket) this.#advance(key, lease, bucket);
      // While a lease is asked for, slots already held in the same sub-window are still this instance's to use.
      if (this.#use(lease, nowMs)) {
        if (lease.asking === undefined && (lease.left <= lease.lowWater || nowMs >= lease.lookAt)) this.#refill(key, lease, nowMs);
        return this.#decision(lease, true, nowMs);
      }
    }
    return this.#ask(key, bucket, nowMs);
  }

  /** Reports what a request of `key` would meet now, without counting it (nothing is known left of an unknown key). */
  peek(key: string, nowMs: number): LimitDecision {
    const lease = this.#leases.get(key);
    if (lease === undefined) return { allowed: true, limit: this.limit, remaining: 0, resetSeconds: 0 };
    if (lease.bucket !== this.#bucketOf(nowMs)) this.#advance(key, lease, this.#bucketOf(nowMs));
    return this.#decision(lease, this.#usable(lease) > 0 || lease.total < this.limit, nowMs);
  }

  /** Gives back the slot of a request refused after it was counted (a full stream cap): it is this instance's to use again. */
  refund(key: string, nowMs: number): void {
    const lease = this.#leases.get(key);
    if (lease !== undefined && lease.bucket === this.#bucketOf(nowMs)) lease.left++;
  }

  /** Gives back the slots left of sub-windows that have passed (a timer calls this; a lease is used only in its own sub-window). */
  async sweep(nowMs: number): Promise<void> {
    const bucket = this.#bucketOf(nowMs);
    // Those the source did not take before, while still in a window (older ones count for nobody any more).
    const back = this.#back.filter(([, from, , span]) => from + span + BUCKETS_PER_WINDOW > bucket);
    this.#back = [];
    await Promise.all(back.map(([key, from, count, span]) => this.#giveBack(key, from, count, span)));
    for (const [key, lease] of this.#leases) if (lease.asking === undefined && lease.bucket < bucket) this.#advance(key, lease, bucket);
  }

  /** Gives back every slot leased and not used (on shutdown, so other instances may use them). */
  async close(): Promise<void> {
    const leases = [...this.#leases];
    this.#leases.clear();
    await Promise.all(leases.flatMap(([key, lease]) => this.#held(lease).map(([bucket, count, span]) => this.#giveBack(key, bucket, count, span))));
  }

  /** Uses one slot held now (the sub-window's own first, then a range's leased ahead); false when none is left. */
  #use(lease: KeyLease, nowMs: number): boolean {
    if (lease.left > 0) lease.left--;
    else if (lease.range !== undefined && lease.range.left > 0) lease.range.left--;
    else return false;
    this.#count(lease, nowMs);
    return true;
  }

  /** Slots usable now. */
  #usable(lease: KeyLease): number {
    return lease.left + (lease.range?.left ?? 0);
  }

  /** Moves `lease` to sub-window `bucket`: what is left of passed ones is given back, what was leased ahead for it is now usable. */
  #advance(key: string, lease: KeyLease, bucket: number): void {
    if (lease.left > 0) void this.#giveBack(key, lease.bucket, lease.left, 1);
    lease.bucket = bucket;
    lease.left = 0;
    if (lease.range !== undefined && lease.range.start + this.#span <= bucket) {
      void this.#giveBack(key, lease.range.start, lease.range.left, this.#span);
      lease.range = undefined;
    }
    if (lease.ahead === undefined) return;
    for (const [start, count] of lease.ahead) {
      if (start > bucket) continue;
      lease.ahead.delete(start);
      this.#credit(key, lease, start, count, this.#span);
    }
    if (lease.ahead.size === 0) lease.ahead = undefined;
  }

  /**
   * Puts `count` slots granted in `bucket` (a range of `span` from it) where they belong: the current sub-window, the
   * range holding it, one ahead, or back (it passed).
   */
  #credit(key: string, lease: KeyLease, bucket: number, count: number, span: number): void {
    if (count <= 0) return;
    if (bucket + span <= lease.bucket) void this.#giveBack(key, bucket, count, span);
    else if (bucket > lease.bucket) (lease.ahead ??= new Map()).set(bucket, (lease.ahead.get(bucket) ?? 0) + count);
    else if (span === 1) lease.left += count;
    else if (lease.range?.start === bucket) lease.range.left += count;
    else {
      if (lease.range !== undefined) void this.#giveBack(key, lease.range.start, lease.range.left, this.#span);
      lease.range = { start: bucket, left: count };
    }
  }

  /** Counts an admitted request in the key's rate (requests per SLICE_MS slice, this one and the one before). */
  #count(lease: KeyLease, nowMs: number): void {
    const slice = Math.floor(nowMs / SLICE_MS);
    if (slice !== lease.slice) {
      lease.inSlicePrevious = slice === lease.slice + 1 ? lease.inSlice : 0;
      if (slice > lease.slice + 1) lease.since = nowMs;
      lease.inSlice = 0;
      lease.slice = slice;
    }
    lease.inSlice++;
  }

  /** Requests the key would make in AHEAD_MS at its recent rate (its busier slice of the last two), with half again as margin. */
  #need(lease: KeyLease): number {
    return Math.ceil(Math.max(lease.inSlice, lease.inSlicePrevious) * (AHEAD_MS / SLICE_MS) * 1.5) + 1;
  }

  /**
   * What to ask for: a batch of the current sub-window when `current` (fewer as the window fills, down to one), and,
   * for a key used here over STEADY_MS at least (not a single burst), the ranges of `#span` sub-windows
   * (one sub-window, or about a second of short ones) starting within HORIZON_MS, each its share of what the key needs
   * in AHEAD_MS here, plus one for short ranges (requests come unevenly): enough to go through an outage of the
   * database. Asked for as each range enters the horizon; short ones once less than COVERED_MS is leased ahead, many at
   * once. A slot leased ahead holds back only the windows it meets (see grantsWithin in rate-leases.ts); a burst of the
   * same key may meet it, and have it as its range comes.
   */
  #wants(lease: KeyLease, nowMs: number, current: boolean): Want[] {
    const wants: Want[] = [];
    const free = Math.max(0, this.limit - lease.total);
    const batch = this.#batch(lease);
    const need = this.#need(lease);
    // Near the limit (a batch of one) one slot at a time; else a batch, or twice what the key needs in the sub-window.
    const inBucket = Math.ceil((need * Math.min(this.#bucketMs, AHEAD_MS)) / AHEAD_MS);
    // Short sub-windows (a small window) are leased by the key's rate, not by batches mostly given back a moment later.
    const want = this.#bucketMs < 1000 ? Math.min(batch, Math.max(2, 2 * inBucket)) : Math.max(batch, Math.min(2 * inBucket, Math.floor(free / 4)));
    if (current) wants.push({ bucket: lease.bucket, want: batch < 2 ? 1 : want });
    lease.lookAt = Math.min(nowMs + AHEAD_MS / 4, (lease.bucket + 1) * this.#bucketMs);
    const span = this.#span;
    const rangeMs = span * this.#bucketMs;
    const last = this.#bucketOf(nowMs + HORIZON_MS);
    // Asked for once a range enters the horizon; short ranges once less than COVERED_MS is leased ahead, many at once.
    const due = last >= lease.aheadTo + span && (rangeMs > (HORIZON_MS - COVERED_MS) / 2 || (lease.aheadTo + span) * this.#bucketMs < nowMs + COVERED_MS);
    // A key used over a moment at least (not one burst at one instant, which ranges held ahead would only hold back).
    if (nowMs - lease.since < STEADY_MS || !due) return wants;
    // Each range's share of `need` by its length, rounded on absolute time so that shares add up (never over `need`),
    // and one more for a range that gets any: requests come unevenly.
    const rate = need / AHEAD_MS;
    for (let start = (Math.floor(lease.bucket / span) + 1) * span; start <= last; start += span) {
      const share = Math.min(need, Math.floor((start + span) * this.#bucketMs * rate) - Math.floor(start * this.#bucketMs * rate) + (span > 1 ? 1 : 0));
      const held = lease.ahead?.get(start) ?? 0;
      if ((start > lease.aheadTo || held * 2 < share) && share > held) wants.push({ bucket: start, want: share - held, span });
      lease.aheadTo = Math.max(lease.aheadTo, start);
    }
    return wants;
  }

  /** Leases the next batch of `lease`'s sub-window, and ahead, before they are needed; a failure is left for the next #ask to report. */
  #refill(key: string, lease: KeyLease, nowMs: number): void {
    const wants = this.#wants(lease, nowMs, lease.left <= lease.lowWater);
    if (wants.length === 0) return;
    let done!: () => void;
    lease.asking = new Promise((resolve) => (done = resolve));
    void this.#source.lease(key, lease.bucket, wants, this.limit).then((granted) => {
      // A lease forgotten meanwhile gives back; one moved on to a later sub-window keeps what is still ahead.
      if (this.#leases.get(key) !== lease) return void wants.forEach(({ bucket, span = 1 }, i) => this.#giveBack(key, bucket, granted.granted[i]!, span));
      this.#granted(key, lease, wants, granted);
      return undefined;
    }, () => void (lease.failedAt = nowMs)).finally(() => {
      lease.asking = undefined;
      done();
    });
  }

  #granted(key: string, lease: KeyLease, wants: readonly Want[], granted: { granted: number[]; total: number; oldest: number | undefined }): void {
    wants.forEach(({ bucket, span = 1 }, i) => this.#credit(key, lease, bucket, granted.granted[i]!, span));
    lease.total = granted.total;
    lease.oldest = granted.oldest;
    lease.failedAt = -Infinity;
    if (wants[0]?.bucket !== lease.bucket || (wants[0].span ?? 1) !== 1) return;
    // The next batch is asked for once half of this one is used, or sooner when fewer would be left than an outage of AHEAD_MS needs.
    const current = granted.granted[0]!;
    lease.lowWater = this.#batch(lease) >= 2 ? Math.min(lease.left - 1, Math.max(Math.floor(current / 2), this.#need(lease))) : -1;
  }

  /** Slots of one batch: fewer as the window fills (down to one), so leases unused here hold back little from others. */
  #batch(lease: KeyLease): number {
    return Math.max(1, Math.min(this.#maxBatch, Math.floor(Math.max(0, this.limit - lease.total) / 8)));
  }

  async #ask(key: string, bucket: number, nowMs: number): Promise<LimitDecision> {
    let lease = this.#leases.get(key);
    while (lease?.asking !== undefined) {
      await lease.asking;
      lease = this.#leases.get(key);
    }
    if (lease !== undefined) {
      if (lease.bucket !== bucket) this.#advance(key, lease, bucket);
      if (this.#use(lease, nowMs)) return this.#decision(lease, true, nowMs);
    }
    const state: KeyLease = lease ?? { bucket, left: 0, range: undefined, ahead: undefined, total: 0, oldest: undefined, asking: undefined, lowWater: -1, lookAt: 0, aheadTo: bucket, slice: 0, inSlice: 0, inSlicePrevious: 0, since: nowMs, failedAt: -Infinity };
    if (lease === undefined) this.#remember(key, state);
    if (nowMs - state.failedAt < FAILED_MS) throw this.#unreachable(state, nowMs, 'it did not answer a moment ago');
    let done!: () => void;
    state.asking = new Promise((resolve) => (done = resolve));
    try {
      const wants = this.#wants(state, nowMs, true);
      const granted = await this.#source.lease(key, bucket, wants, this.limit).catch((error: unknown) => {
        state.failedAt = nowMs;
        throw this.#unreachable(state, nowMs, error instanceof Error ? error.message : 'no answer');
      });
      this.#granted(key, state, wants, granted);
    } finally {
      state.asking = undefined;
      done();
    }
    return this.#decision(state, this.#use(state, nowMs), nowMs);
  }

  /** The 503 of a key with no slot held while the source cannot be reached: retry when the next sub-window's slots, if any, are usable. */
  #unreachable(lease: KeyLease, nowMs: number, why: string): StoreUnavailable {
    const next = lease.ahead === undefined ? undefined : Math.min(...[...lease.ahead].filter(([, count]) => count > 0).map(([start]) => start));
    const retry = next === undefined || next === Infinity ? 2 : Math.ceil((next * this.#bucketMs - nowMs) / 1000);
    return new StoreUnavailable(`The database that counts ${this.#counts} over all instances cannot be reached (${why}), and this instance holds no slot of the limit for it now; retry in a moment.`, { retryAfterSeconds: Math.max(1, retry) });
  }

  /** The slots `lease` holds: sub-window (or a range's first), count, and the range's length. */
  #held(lease: KeyLease): [number, number, number][] {
    const held: [number, number, number][] = lease.left > 0 ? [[lease.bucket, lease.left, 1]] : [];
    if (lease.range !== undefined && lease.range.left > 0) held.push([lease.range.start, lease.range.left, this.#span]);
    if (lease.ahead !== undefined) for (const [start, count] of lease.ahead) held.push([start, count, this.#span]);
    return held;
  }

  #giveBack(key: string, bucket: number, count: number, span: number): Promise<void> {
    if (count <= 0) return Promise.resolve();
    return this.#source.giveBack(key, bucket, count, span).catch(() => {
      if (this.#back.length < this.#maxKeys) this.#back.push([key, bucket, count, span]);
    });
  }

  #remember(key: string, lease: KeyLease): void {
    if (this.#leases.size >= this.#maxKeys) {
      const [oldestKey, oldest] = this.#leases.entries().next().value!;
      this.#leases.delete(oldestKey);
      for (const [bucket, count, span] of this.#held(oldest)) void this.#giveBack(oldestKey, bucket, count, span);
    }
    this.#leases.set(key, lease);
  }

  #bucketOf(nowMs: number): number {
    return Math.floor(nowMs / this.#bucketMs);
  }

  /**
   * RateLimit-Remaining is the slots this instance holds for the key now: a bound that never says more is left than
   * is over all instances, since every request anywhere used a slot the source granted, and the grants never pass the
   * limit (limit − used ≥ slots granted and unused ≥ ours). The key's total as last known is no such bound: others may
   * have leased, and used, more since.
   */
  #decision(lease: KeyLease, allowed: boolean, nowMs: number): LimitDecision {
    const remaining = Math.max(0, Math.min(this.limit, this.#usable(lease)));
    // The oldest sub-window's slots free a whole window after it ends.
    const freesAt = lease.oldest === undefined ? nowMs : (lease.oldest + 1) * this.#bucketMs + this.windowMs;
    const resetSeconds = Math.max(0, Math.ceil((freesAt - nowMs) / 1000));
    return { allowed, limit: this.limit, remaining, resetSeconds: allowed ? resetSeconds : Math.max(1, resetSeconds) };
  }
}
