// A key's rate limit counted over several instances: each leases slots of the key's window in batches from a shared source.
import { StoreUnavailable } from '../store/store-errors.js';
import { KeyLease } from './key-lease.js';
import { AHEAD_RESERVE, type Want } from './lease-ahead.js';
import { LeaseSizing } from './lease-sizing.js';
import { BUCKETS_PER_WINDOW, type LimitDecision } from './sliding-window.js';
import type { Granted, LeaseSource } from './lease-source.js';
import { shownFailure } from '../lib/error-code.js';

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
  /** The time now (ms), read when a request that waited is decided; without it, the latest time a request gave. */
  clock?: () => number;
  /**
   * What every key of this limiter starts with (`key_`, `auth `): the sweep forgets their slots once out of every
   * window, about once a window, keys not seen since included. Without it, only a key's own lease clears its old slots.
   */
  keyPrefix?: string;
}

/** How long after a failed lease an ask is refused at once rather than sent again. */
const FAILED_MS = 1_000;
/**
 * A lease that failed within this long failed at once (refused, reset), as does one the source calls a refusal
 * (LeaseSource.refusedAtOnce): the next ask is sent again rather than refused, since it waits for nothing, and a link
 * that was just given back (a frozen one dropped) answers it.
 */
const AT_ONCE_MS = 250;
/** A lease that failed this long after it was asked failed while this instance was stalled (the source's deadline is 2 s). */
const STALLED_MS = 3_000;
/** How long a request that asked the others for their unused slots waits for them before asking again; how often a key may ask. */
const ASK_BACK_WAIT_MS = 60;
const ASK_BACK_EVERY_MS = 1_000;

/**
 * Never more than `limit` requests of a key in any window over all instances: every admitted request uses a slot
 * leased from the source, and the source counts a slot until a whole window after the end of the sub-window (1/60
 * of a window) it was leased in, so a freed slot comes back at most 1/60 of a window late (API.md §6). A slot is
 * used only in the sub-window it was leased in; what is left is given back. Most requests need no round trip:
 * the batch shrinks as the window fills (down to one slot at a time near the limit), so leases left unused on one
 * instance hold back little from the others (see lease-sizing.ts).
 *
 * While the source cannot be reached (the database away), requests go on using the slots held: the current
 * sub-window's, kept at least at what the key used in the last AHEAD_MS of lease-sizing.ts (with a margin), and, for a key used here
 * steadily, those of the ranges of about a second leased ahead by its rate here (KeyRate) for the next 15 s, the range
 * under way kept topped up as the key uses it (see lease-ahead.ts). So an outage of 10 s refuses no request of a key
 * whose requests keep their pace there and whose instances' holdings fit under its limit. A key whose held slots run
 * out gets 503 with Retry-After, never a slot the source did not grant.
 */
export class LeasedWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #source: LeaseSource;
  readonly #sizing: LeaseSizing;
  readonly #maxKeys: number;
  readonly #counts: string;
  readonly #clock: (() => number) | undefined;
  readonly #bucketMs: number;
  /** Sub-windows in a range leased ahead: one, or as many as make about a second when they are shorter. */
  readonly #span: number;
  readonly #leases = new Map<string, KeyLease>();
  readonly #keyPrefix: string | undefined;
  /** The range lengths this limiter leases in (one sub-window, and #span): the rows of a key the source reads. */
  readonly #spans: readonly number[];
  /** The sub-window of the last #forgetOld (-Infinity before the first). */
  #forgotAt = -Infinity;
  /** The slots that grants of later sub-windows leave free in any window (see AHEAD_RESERVE). */
  readonly #reserve: number;
  /** Slots to give back that the source never got (it was away): given back at the next sweep, or they would count a whole window for nobody. */
  #back: [string, number, number, number][] = [];

  /** Keys held now (at most `maxKeys`). */
  get keysHeld(): number {
    return this.#leases.size;
  }

  constructor(options: LeasedWindowOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.#source = options.source;
    this.#maxKeys = options.maxKeys ?? 100_000;
    this.#counts = options.counts ?? "this key's requests";
    this.#clock = options.clock;
    this.#bucketMs = options.windowMs / BUCKETS_PER_WINDOW;
    this.#span = Math.max(1, Math.round(1000 / this.#bucketMs));
    this.#keyPrefix = options.keyPrefix;
    this.#spans = [1, this.#span];
    this.#reserve = Math.ceil(AHEAD_RESERVE * this.limit);
    this.#sizing = new LeaseSizing({ limit: this.limit, windowMs: this.windowMs, bucketMs: this.#bucketMs, span: this.#span, maxBatch: options.maxBatch ?? 256 });
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
      lease.seenAt = Math.max(lease.seenAt, nowMs);
      if (bucket > lease.bucket) lease.advance(bucket);
      // While a lease is asked for, slots already held in the same sub-window are still this instance's to use.
      if (lease.use(nowMs)) {
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
    if (this.#bucketOf(nowMs) > lease.bucket) lease.advance(this.#bucketOf(nowMs));
    return this.#decision(lease, lease.usable() > 0 || lease.total < this.limit, nowMs);
  }

  /** Gives back the slot of a request refused after it was counted (a full stream cap): it is this instance's to use again. */
  refund(key: string, nowMs: number): void {
    const lease = this.#leases.get(key);
    if (lease !== undefined && lease.bucket === this.#bucketOf(nowMs)) lease.refund();
  }

  /** Gives back the slots left of sub-windows that have passed (a timer calls this; a lease is used only in its own sub-window). */
  async sweep(nowMs: number): Promise<void> {
    const bucket = this.#bucketOf(nowMs);
    // Those the source did not take before, while still in a window (older ones count for nobody any more).
    const back = this.#back.filter(([, from, , span]) => from + span + BUCKETS_PER_WINDOW > bucket);
    this.#back = [];
    await Promise.all(back.map(([key, from, count, span]) => this.#giveBack(key, from, count, span)));
    for (const [key, lease] of this.#leases) if (lease.asking === undefined && lease.bucket < bucket) lease.advance(bucket);
    await this.#forgetOld(bucket);
  }

  /**
   * About once a window, forgets this limiter's slots in sub-windows two windows back and older (a range is at most a
   * window long, so none of them counts in any window any more), every instance doing so: the table then holds what
   * the last two windows leased, not every key and address ever seen. A failure waits for the next window.
   */
  async #forgetOld(bucket: number): Promise<void> {
    if (this.#keyPrefix === undefined || this.#source.forget === undefined || bucket < this.#forgotAt + BUCKETS_PER_WINDOW) return;
    this.#forgotAt = bucket;
    await this.#source.forget(this.#keyPrefix, bucket - 2 * BUCKETS_PER_WINDOW).catch(() => undefined);
  }

  /** Gives back every slot leased and not used (on shutdown, so other instances may use them). */
  async close(): Promise<void> {
    const leases = [...this.#leases];
    this.#leases.clear();
    await Promise.all(leases.flatMap(([key, lease]) => lease.takeAll().map(([bucket, count, span]) => this.#giveBack(key, bucket, count, span))));
  }

  /** What to ask for (see LeaseSizing.wants); slots held ahead that the key no longer leaves room for go back first. */
  #wants(key: string, lease: KeyLease, nowMs: number, current: boolean): Want[] {
    const { wants, giveBackAhead } = this.#sizing.wants(lease, nowMs, current);
    if (giveBackAhead) void this.#giveBackAhead(key, lease);
    return wants;
  }

  /** Leases the next batch of `lease`'s sub-window, and ahead, before they are needed; a failure is left for the next #ask to report. */
  #refill(key: string, lease: KeyLease, nowMs: number): void {
    // A steady key in ranges of several sub-windows is served from its range, kept topped up (see aheadWants): a batch
    // per sub-window would come after the request that asked for it and be given back when the sub-window ends.
    const wants = this.#wants(key, lease, nowMs, lease.left <= lease.lowWater && !(this.#span > 1 && lease.rate.steady(nowMs)));
    if (wants.length === 0) return;
    let done!: () => void;
    lease.asking = new Promise((resolve) => (done = resolve));
    const askedAt = this.#clock?.();
    void this.#source.lease(key, lease.bucket, wants, this.limit, this.#spans, this.#reserve).then((granted) => {
      // A lease forgotten meanwhile gives back; one moved on to a later sub-window keeps what is still ahead.
      if (this.#leases.get(key) !== lease) return void wants.forEach(({ bucket, span = 1 }, i) => this.#giveBack(key, bucket, granted.granted[i]!, span));
      this.#granted(lease, wants, granted, nowMs);
      return undefined;
    }, (error: unknown) => {
      // Not after a stall of this instance's own: the next ask tries the database again rather than answering 503.
      if (askedAt === undefined || this.#clock!() - askedAt <= STALLED_MS) this.#failed(lease, nowMs, askedAt, error);
    }).finally(() => {
      lease.asking = undefined;
      done();
    }).catch(() => undefined);
  }

  /** Takes in what the source granted for `wants`: the slots, the window's count, the key's pace everywhere, the low water. */
  #granted(lease: KeyLease, wants: readonly Want[], granted: Granted, nowMs: number): void {
    wants.forEach(({ bucket, span = 1 }, i) => lease.credit(bucket, granted.granted[i]!, span));
    lease.total = granted.total;
    lease.oldest = granted.oldest;
    // The key's pace over all instances: what it used in the sub-windows counted (those that ended before the last), over
    // the time they cover (a second at least, so that a burst at its start reads as no pace of its own).
    lease.allPerMs = granted.used === undefined || !granted.usedOver ? 0 : granted.used / Math.max(1000, granted.usedOver * this.#bucketMs);
    lease.failedAt = -Infinity;
    if (wants[0]?.bucket !== lease.bucket || (wants[0].span ?? 1) !== 1) return;
    lease.lowWater = this.#sizing.lowWater(lease, granted.granted[0]!, nowMs);
  }

  /**
   * Asks the source for slots of the key's current sub-window (and ahead) and counts the request in them. A request that
   * waited (for another ask of the key, or for a slow database) is decided in the sub-window the key is in by then: the
   * slots of one that passed meanwhile were given back (see KeyLease.credit), and a refusal needs a full window, not a late
   * answer. A failure after this instance itself was stalled (a paused machine: the database may have ended our session
   * meanwhile) is asked once more before the 503.
   */
  async #ask(key: string, bucket: number, nowMs: number): Promise<LimitDecision> {
    let askedBack = false;
    for (let attempt = 0; ; attempt++) {
      let lease = this.#leases.get(key);
      while (lease?.asking !== undefined) {
        await lease.asking;
        lease = this.#leases.get(key);
      }
      nowMs = Math.max(nowMs, this.#clock?.() ?? -Infinity, lease?.seenAt ?? -Infinity);
      bucket = this.#bucketOf(nowMs);
      if (lease !== undefined) {
        if (bucket > lease.bucket) lease.advance(bucket);
        if (lease.use(nowMs)) return this.#decision(lease, true, nowMs);
      }
      const state = lease ?? new KeyLease(bucket, nowMs, this.#span, (from, count, span) => void this.#giveBack(key, from, count, span));
      if (lease === undefined) this.#remember(key, state);
      if (nowMs - state.failedAt < FAILED_MS && !state.failedAtOnce) throw this.#unreachable(state, nowMs, 'it did not answer a moment ago');
      let done!: () => void;
      state.asking = new Promise((resolve) => (done = resolve));
      const askedAt = this.#clock?.();
      let failure: unknown;
      try {
        const wants = this.#wants(key, state, nowMs, true);
        this.#granted(state, wants, await this.#source.lease(key, state.bucket, wants, this.limit, this.#spans, this.#reserve), nowMs);
      } catch (error) {
        failure = error;
      } finally {
        state.asking = undefined;
        done();
      }
      if (failure !== undefined) {
        if (attempt === 0 && askedAt !== undefined && this.#clock!() - askedAt > STALLED_MS) continue;
        this.#failed(state, nowMs, askedAt, failure);
        throw this.#unreachable(state, nowMs, shownFailure(failure));
      }
      if (state.use(nowMs)) return this.#decision(state, true, nowMs);
      // The grant came after the key moved on to a later sub-window (and was given back): ask for that one.
      if (state.bucket !== bucket && attempt < 2) continue;
      // The window is full, but some of it is this instance's own slots held ahead for an outage: the request now comes
      // first. They are given back, and the sub-window asked for again.
      if (state.heldAhead() > 0 && attempt < 2) {
        // Noted as refused, so the ask again leases nothing ahead (see LeaseSizing), nor does the key's next one.
        state.refusedAt = nowMs;
        await this.#giveBackAhead(key, state);
        continue;
      }
      state.refusedAt = nowMs;
      // Other instances' slots held and unused (a batch, slots ahead) may fill the window: asked back, then asked again,
      // before a 429; once a second a key at most (one past its limit is refused at once meanwhile).
      if (!askedBack && this.#source.askBack !== undefined && nowMs - state.askedBackAt >= ASK_BACK_EVERY_MS) {
        askedBack = true;
        state.askedBackAt = nowMs;
        if (await this.#source.askBack(key).then(() => new Promise((resolve) => setTimeout(resolve, ASK_BACK_WAIT_MS, true)), () => false)) continue;
      }
      return this.#decision(state, false, nowMs);
    }
  }

  /** Another instance found the key's window full: every slot of the key held here and unused goes back (see askBack). */
  yieldKey(key: string, nowMs: number): void {
    const lease = this.#leases.get(key);
    if (lease === undefined) return;
    lease.refusedAt = Math.max(lease.refusedAt, nowMs);
    lease.releaseAll();
  }

  /** Gives back every slot `lease` holds in later ranges; they are asked for again only while the key leaves room (see LeaseSizing). */
  async #giveBackAhead(key: string, lease: KeyLease): Promise<void> {
    const ahead = lease.ahead;
    lease.ahead = undefined;
    if (ahead !== undefined) await Promise.all([...ahead].map(([start, count]) => this.#giveBack(key, start, count, this.#span)));
  }

  /** Notes a failed lease: when it failed (not when it was asked), and whether it failed at once. */
  #failed(lease: KeyLease, nowMs: number, askedAt: number | undefined, error: unknown): void {
    const failedAt = this.#clock?.() ?? nowMs;
    lease.failedAt = Math.max(nowMs, failedAt);
    lease.failedAtOnce = (askedAt !== undefined && failedAt - askedAt < AT_ONCE_MS) || this.#source.refusedAtOnce?.(error) === true;
  }

  /** The 503 of a key with no slot held while the source cannot be reached: retry when the next sub-window's slots, if any, are usable. */
  #unreachable(lease: KeyLease, nowMs: number, why: string): StoreUnavailable {
    const next = lease.ahead === undefined ? undefined : Math.min(...[...lease.ahead].filter(([, count]) => count > 0).map(([start]) => start));
    const retry = next === undefined || next === Infinity ? 2 : Math.ceil((next * this.#bucketMs - nowMs) / 1000);
    return new StoreUnavailable(`The database that counts ${this.#counts} over all instances cannot be reached (${why}), and this instance holds no slot of the limit for it now; retry in a moment.`, { retryAfterSeconds: Math.max(1, retry) });
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
      for (const [bucket, count, span] of oldest.takeAll()) void this.#giveBack(oldestKey, bucket, count, span);
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
    const remaining = Math.max(0, Math.min(this.limit, lease.usable()));
    // The oldest sub-window's slots free a whole window after it ends.
    const freesAt = lease.oldest === undefined ? nowMs : (lease.oldest + 1) * this.#bucketMs + this.windowMs;
    const resetSeconds = Math.max(0, Math.ceil((freesAt - nowMs) / 1000));
    return { allowed, limit: this.limit, remaining, resetSeconds: allowed ? resetSeconds : Math.max(1, resetSeconds) };
  }
}
