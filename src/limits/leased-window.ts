// A key's rate limit counted over several instances: each leases slots of the key's window in batches from a shared source.
import { StoreUnavailable } from '../store/store-errors.js';
import type { LimitDecision } from './sliding-window.js';

/** Where slots come from (the PostgreSQL store's campus_rate table). */
export interface LeaseSource {
  /** Grants up to `want` slots of `key` in sub-window `bucket`, never past `limit` in the key's window over all instances. */
  lease(key: string, bucket: number, want: number, limit: number): Promise<{ granted: number; total: number; oldest: number | undefined }>;
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
}

/** This instance's share of a key's window: slots leased in one sub-window, and what the source said of the whole. */
interface KeyLease {
  bucket: number;
  /** Leased in `bucket` and not used yet. */
  left: number;
  /** Slots handed out in the window over all instances, as of the last lease. */
  total: number;
  oldest: number | undefined;
  /** A lease being asked for: requests of the key finding no slot left wait for it. */
  asking: Promise<void> | undefined;
  /** When `left` falls to this, the next batch is asked for ahead (-1: never, near the limit). */
  lowWater: number;
}

const BUCKETS_PER_WINDOW = 60;

/**
 * Never more than `limit` requests of a key in any window over all instances: every admitted request uses a slot
 * leased from the source, and the source counts a slot until a whole window after the end of the sub-window (1/60
 * of a window) it was leased in, so a freed slot comes back at most 1/60 of a window late (API.md §6). A slot is
 * used only in the sub-window it was leased in; what is left is given back. Most requests need no round trip:
 * the batch shrinks as the window fills (down to one slot at a time near the limit), so leases left unused on one
 * instance hold back little from the others.
 */
export class LeasedWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #source: LeaseSource;
  readonly #maxBatch: number;
  readonly #maxKeys: number;
  readonly #leases = new Map<string, KeyLease>();

  constructor(options: LeasedWindowOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.#source = options.source;
    this.#maxBatch = options.maxBatch ?? 256;
    this.#maxKeys = options.maxKeys ?? 100_000;
  }

  /**
   * Counts one request of `key` when a slot is free over all instances: at once from a lease held, else after asking
   * the source. A lease half used asks for the next batch in the background, so requests never wait for the
   * database while slots are plentiful (only the first of each sub-window does).
   */
  take(key: string, nowMs: number): LimitDecision | Promise<LimitDecision> {
    const bucket = this.#bucketOf(nowMs);
    const lease = this.#leases.get(key);
    // While a lease is asked for, slots already held in the same sub-window are still this instance's to use.
    if (lease !== undefined && lease.bucket === bucket && lease.left > 0) {
      lease.left--;
      if (lease.asking === undefined && lease.left <= lease.lowWater) this.#refill(key, lease);
      return this.#decision(lease, true, nowMs);
    }
    return this.#ask(key, bucket, nowMs);
  }

  /** Leases the next batch of `lease`'s sub-window ahead of need; a failure is left for the next #ask to report. */
  #refill(key: string, lease: KeyLease): void {
    const bucket = lease.bucket;
    const want = this.#want(lease);
    let done!: () => void;
    lease.asking = new Promise((resolve) => (done = resolve));
    void this.#source.lease(key, bucket, want, this.limit).then((granted) => {
      // Only #ask moves a lease to another sub-window, and it waits for this; a lease forgotten meanwhile gives back.
      if (this.#leases.get(key) !== lease) return this.#source.giveBack(key, bucket, granted.granted);
      lease.left += granted.granted;
      lease.total = granted.total;
      lease.oldest = granted.oldest;
      lease.lowWater = this.#lowWater(lease, granted.granted);
      return undefined;
    }).catch(() => undefined).finally(() => {
      lease.asking = undefined;
      done();
    });
  }

  /** Slots to ask for: fewer as the window fills (down to one), so leases unused here hold back little from others. */
  #want(lease: KeyLease): number {
    return Math.max(1, Math.min(this.#maxBatch, Math.floor(Math.max(0, this.limit - lease.total) / 8)));
  }

  /** Slots left at which the next batch is asked for ahead: half a batch; none near the limit (one slot at a time there). */
  #lowWater(lease: KeyLease, granted: number): number {
    return this.#want(lease) >= 2 ? Math.floor(granted / 2) : -1;
  }

  async #ask(key: string, bucket: number, nowMs: number): Promise<LimitDecision> {
    let lease = this.#leases.get(key);
    while (lease?.asking !== undefined) {
      await lease.asking;
      lease = this.#leases.get(key);
    }
    if (lease !== undefined && lease.bucket === bucket && lease.left > 0) {
      lease.left--;
      return this.#decision(lease, true, nowMs);
    }
    const state: KeyLease = lease ?? { bucket, left: 0, total: 0, oldest: undefined, asking: undefined, lowWater: -1 };
    if (lease === undefined) this.#remember(key, state);
    let done!: () => void;
    state.asking = new Promise((resolve) => (done = resolve));
    try {
      // Given back without waiting: until it lands the slots count for nobody, which errs on the safe side.
      if (state.left > 0 && state.bucket !== bucket) void this.#source.giveBack(key, state.bucket, state.left).catch(() => undefined);
      state.left = 0;
      state.bucket = bucket;
      const granted = await this.#source.lease(key, bucket, this.#want(state), this.limit).catch((error: unknown) => {
        throw new StoreUnavailable(`The database that counts this key's requests over all instances cannot be reached (${error instanceof Error ? error.message : 'no answer'}); retry in a moment.`);
      });
      state.total = granted.total;
      state.oldest = granted.oldest;
      state.left = granted.granted;
      state.lowWater = this.#lowWater(state, granted.granted);
    } finally {
      state.asking = undefined;
      done();
    }
    if (state.left === 0) return this.#decision(state, false, nowMs);
    state.left--;
    return this.#decision(state, true, nowMs);
  }

  /** Reports what a request of `key` would meet now, without counting it. */
  peek(key: string, nowMs: number): LimitDecision {
    const lease = this.#leases.get(key);
    if (lease === undefined) return { allowed: true, limit: this.limit, remaining: this.limit, resetSeconds: 0 };
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
    const passed: [string, number, number][] = [];
    for (const [key, lease] of this.#leases) {
      if (lease.asking !== undefined || lease.bucket >= bucket || lease.left === 0) continue;
      passed.push([key, lease.bucket, lease.left]);
      lease.left = 0;
    }
    await Promise.all(passed.map(([key, from, count]) => this.#source.giveBack(key, from, count).catch(() => undefined)));
  }

  /** Gives back every slot leased and not used (on shutdown, so other instances may use them). */
  async close(): Promise<void> {
    const leases = [...this.#leases];
    this.#leases.clear();
    await Promise.all(leases.map(([key, lease]) => this.#source.giveBack(key, lease.bucket, lease.left).catch(() => undefined)));
  }

  #remember(key: string, lease: KeyLease): void {
    if (this.#leases.size >= this.#maxKeys) {
      const [oldestKey, oldest] = this.#leases.entries().next().value!;
      this.#leases.delete(oldestKey);
      void this.#source.giveBack(oldestKey, oldest.bucket, oldest.left).catch(() => undefined);
    }
    this.#leases.set(key, lease);
  }

  #bucketOf(nowMs: number): number {
    return Math.floor((nowMs * BUCKETS_PER_WINDOW) / this.windowMs);
  }

  #decision(lease: KeyLease, allowed: boolean, nowMs: number): LimitDecision {
    const remaining = Math.max(0, Math.min(this.limit, this.limit - lease.total + lease.left));
    // The oldest sub-window's slots free a whole window after it ends.
    const freesAt = lease.oldest === undefined ? nowMs : ((lease.oldest + 1) * this.windowMs) / BUCKETS_PER_WINDOW + this.windowMs;
    const resetSeconds = Math.max(0, Math.ceil((freesAt - nowMs) / 1000));
    return { allowed, limit: this.limit, remaining, resetSeconds: allowed ? resetSeconds : Math.max(1, resetSeconds) };
  }
}
