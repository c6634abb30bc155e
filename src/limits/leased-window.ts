// A key's rate limit counted over several instances: each leases slots of the key's window in batches from a shared source.
import { StoreUnavailable } from '../store/store-errors.js';
import type { LimitDecision } from './sliding-window.js';

/** Where slots come from (the PostgreSQL store's campus_rate table). */
export interface LeaseSource {
  /**
   * Grants slots of `key` in the sub-windows of `wants` (in order), never past `limit` in the key's window over all
   * instances counting every slot handed out from sub-window `now - 60` on; `granted` has one count per want.
   */
  lease(key: string, now: number, wants: readonly { bucket: number; want: number }[], limit: number): Promise<{ granted: number[]; total: number; oldest: number | undefined }>;
  /** Gives back slots leased in `bucket` and never used. */
  giveBack(key: string, bucket: number, count: number): Promise<void>;
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
  /** Slots leased for later sub-windows and not used yet, by sub-window. */
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
  /** Requests admitted in the current and the previous AHEAD_MS slice: how many an outage of that length would need. */
  slice: number;
  inSlice: number;
  inSlicePrevious: number;
  /** When the source last failed (ms): asks right after are answered 503 at once. */
  failedAt: number;
}

const BUCKETS_PER_WINDOW = 60;
/**
 * The outage of the database slots are held for: a key's recent rate is measured over this long, and the next
 * sub-window's slots are leased once it starts within this long (see #wants).
 */
export const AHEAD_MS = 12_000;
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
 * sub-window's, kept at least at what the key used in the last AHEAD_MS (with a margin), and for a key with a steady
 * rate the next sub-window's, leased shortly before it starts. So an outage of up to AHEAD_MS refuses no request of
 * a key under its limit as long as it crosses at most one sub-window boundary (any outage that short, for a window
 * of 600 s or more). A key whose held slots run out gets 503 with Retry-After, never a slot the source did not grant.
 */
export class LeasedWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #source: LeaseSource;
  readonly #maxBatch: number;
  readonly #maxKeys: number;
  readonly #counts: string;
  readonly #bucketMs: number;
  readonly #leases = new Map<string, KeyLease>();

  constructor(options: LeasedWindowOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.#source = options.source;
    this.#maxBatch = options.maxBatch ?? 256;
    this.#maxKeys = options.maxKeys ?? 100_000;
    this.#counts = options.counts ?? "this key's requests";
    this.#bucketMs = options.windowMs / BUCKETS_PER_WINDOW;
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
      if (lease.left > 0) {
        lease.left--;
        this.#count(lease, nowMs);
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
    return this.#decision(lease, lease.left > 0 || lease.total < this.limit, nowMs);
  }

  /** Gives back the slot of a request refused after it was counted (a full stream cap): it is this instance's to use again. */
  refund(key: string, nowMs: number): void {
    const lease = this.#leases.get(key);
    if (lease !== undefined && lease.bucket === this.#bucketOf(nowMs)) lease.left++;
  }

  /** Gives back the slots left of sub-windows that have passed (a timer calls this; a lease is used only in its own sub-window). */
  async sweep(nowMs: number): Promise<void> {
    const bucket = this.#bucketOf(nowMs);
    for (const [key, lease] of this.#leases) if (lease.asking === undefined && lease.bucket < bucket) this.#advance(key, lease, bucket);
  }

  /** Gives back every slot leased and not used (on shutdown, so other instances may use them). */
  async close(): Promise<void> {
    const leases = [...this.#leases];
    this.#leases.clear();
    await Promise.all(leases.flatMap(([key, lease]) => this.#held(lease).map(([bucket, count]) => this.#giveBack(key, bucket, count))));
  }

  /** Moves `lease` to sub-window `bucket`: what is left of passed ones is given back, what was leased ahead for it is now usable. */
  #advance(key: string, lease: KeyLease, bucket: number): void {
    if (lease.left > 0) void this.#giveBack(key, lease.bucket, lease.left);
    lease.bucket = bucket;
    lease.left = 0;
    if (lease.ahead === undefined) return;
    for (const [at, count] of lease.ahead) {
      if (at > bucket) continue;
      lease.ahead.delete(at);
      if (at === bucket) lease.left = count;
      else void this.#giveBack(key, at, count);
    }
    if (lease.ahead.size === 0) lease.ahead = undefined;
  }

  /** Puts `count` slots granted in `bucket` where they belong: the current sub-window, one ahead, or back (it passed). */
  #credit(key: string, lease: KeyLease, bucket: number, count: number): void {
    if (count <= 0) return;
    if (bucket === lease.bucket) lease.left += count;
    else if (bucket > lease.bucket) (lease.ahead ??= new Map()).set(bucket, (lease.ahead.get(bucket) ?? 0) + count);
    else void this.#giveBack(key, bucket, count);
  }

  /** Counts an admitted request in the key's rate (requests per AHEAD_MS slice, this one and the one before). */
  #count(lease: KeyLease, nowMs: number): void {
    const slice = Math.floor(nowMs / AHEAD_MS);
    if (slice !== lease.slice) {
      lease.inSlicePrevious = slice === lease.slice + 1 ? lease.inSlice : 0;
      lease.inSlice = 0;
      lease.slice = slice;
    }
    lease.inSlice++;
  }

  /** Requests the key would make in AHEAD_MS at its recent rate, with a margin. */
  #need(lease: KeyLease): number {
    return Math.ceil(Math.max(lease.inSlice, lease.inSlicePrevious) * 1.5) + 1;
  }

  /**
   * What to ask for: a batch of the current sub-window when `current` (fewer as the window fills, down to one), and,
   * for a key with a steady rate (it was used in the AHEAD_MS before this one too) and less than half its limit used,
   * the next sub-window's share of what the key needs in AHEAD_MS, once that sub-window starts within AHEAD_MS: enough
   * to go through an outage of the database across the boundary. Only the next one, never further: a slot leased
   * ahead is taken from the window now, so a burst may find it held, and it must come back within 1/60 of a window
   * (API.md §6), as it does once its sub-window starts. At most a quarter of what is left is held ahead.
   */
  #wants(lease: KeyLease, nowMs: number, current: boolean): { bucket: number; want: number }[] {
    const wants: { bucket: number; want: number }[] = [];
    const free = Math.max(0, this.limit - lease.total);
    const batch = this.#batch(lease);
    // Near the limit (a batch of one) one slot at a time; else a batch, or twice what the key needs in AHEAD_MS.
    if (current) wants.push({ bucket: lease.bucket, want: batch < 2 ? 1 : Math.max(batch, Math.min(2 * this.#need(lease), Math.floor(free / 4))) });
    const next = lease.bucket + 1;
    lease.lookAt = Math.min(nowMs + AHEAD_MS / 4, next * this.#bucketMs);
    if (lease.total * 2 > this.limit || lease.inSlicePrevious === 0 || next * this.#bucketMs >= nowMs + AHEAD_MS) return wants;
    const share = Math.min(Math.floor(free / 4), Math.ceil((this.#need(lease) * Math.min(this.#bucketMs, AHEAD_MS)) / AHEAD_MS));
    const held = lease.ahead?.get(next) ?? 0;
    // Topped up only when well below its share, so a steady key asks about once per sub-window, not at every look.
    if (held * 2 < share) wants.push({ bucket: next, want: share - held });
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
      if (this.#leases.get(key) !== lease) return void wants.forEach(({ bucket }, i) => this.#giveBack(key, bucket, granted.granted[i]!));
      this.#granted(key, lease, wants, granted);
      return undefined;
    }, () => void (lease.failedAt = nowMs)).finally(() => {
      lease.asking = undefined;
      done();
    });
  }

  #granted(key: string, lease: KeyLease, wants: readonly { bucket: number; want: number }[], granted: { granted: number[]; total: number; oldest: number | undefined }): void {
    wants.forEach(({ bucket }, i) => this.#credit(key, lease, bucket, granted.granted[i]!));
    lease.total = granted.total;
    lease.oldest = granted.oldest;
    lease.failedAt = -Infinity;
    if (wants[0]?.bucket !== lease.bucket) return;
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
      if (lease.left > 0) {
        lease.left--;
        this.#count(lease, nowMs);
        return this.#decision(lease, true, nowMs);
      }
    }
    const state: KeyLease = lease ?? { bucket, left: 0, ahead: undefined, total: 0, oldest: undefined, asking: undefined, lowWater: -1, lookAt: 0, slice: 0, inSlice: 0, inSlicePrevious: 0, failedAt: -Infinity };
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
    if (state.left === 0) return this.#decision(state, false, nowMs);
    state.left--;
    this.#count(state, nowMs);
    return this.#decision(state, true, nowMs);
  }

  /** The 503 of a key with no slot held while the source cannot be reached: retry when the next sub-window's slots, if any, are usable. */
  #unreachable(lease: KeyLease, nowMs: number, why: string): StoreUnavailable {
    const next = (lease.bucket + 1) * this.#bucketMs;
    const retry = (lease.ahead?.get(lease.bucket + 1) ?? 0) > 0 ? Math.ceil((next - nowMs) / 1000) : 2;
    return new StoreUnavailable(`The database that counts ${this.#counts} over all instances cannot be reached (${why}), and this instance holds no slot of the limit for it now; retry in a moment.`, { retryAfterSeconds: Math.max(1, retry) });
  }

  /** The slots `lease` holds, by sub-window. */
  #held(lease: KeyLease): [number, number][] {
    const held: [number, number][] = lease.left > 0 ? [[lease.bucket, lease.left]] : [];
    if (lease.ahead !== undefined) held.push(...lease.ahead);
    return held;
  }

  #giveBack(key: string, bucket: number, count: number): Promise<void> {
    return count > 0 ? this.#source.giveBack(key, bucket, count).catch(() => undefined) : Promise.resolve();
  }

  #remember(key: string, lease: KeyLease): void {
    if (this.#leases.size >= this.#maxKeys) {
      const [oldestKey, oldest] = this.#leases.entries().next().value!;
      this.#leases.delete(oldestKey);
      for (const [bucket, count] of this.#held(oldest)) void this.#giveBack(oldestKey, bucket, count);
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
    const remaining = Math.max(0, Math.min(this.limit, lease.left));
    // The oldest sub-window's slots free a whole window after it ends.
    const freesAt = lease.oldest === undefined ? nowMs : (lease.oldest + 1) * this.#bucketMs + this.windowMs;
    const resetSeconds = Math.max(0, Math.ceil((freesAt - nowMs) / 1000));
    return { allowed, limit: this.limit, remaining, resetSeconds: allowed ? resetSeconds : Math.max(1, resetSeconds) };
  }
}
