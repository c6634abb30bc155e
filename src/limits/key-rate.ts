// How fast one key's requests come to this instance: what the rate limit leases ahead for it (see leased-window.ts).

/** A key's rate is counted in slices this long: the current one and the one before. */
export const SLICE_MS = 3_000;
/** A key is steady once used here this long without a pause of a slice (one burst at one instant is not). */
export const STEADY_MS = 300;
/** The shortest time a rate is measured over: a key's first requests do not make a rate of thousands a second. */
const SHORTEST_MS = 1_000;
/** Of a key's requests in its first STEADY_MS, this many count in its rate: a burst at its start is no rate, two requests are. */
const OPENING_COUNTED = 2;
/** The current slice alone counts (a key that got busier) once it is this old: shorter, a few requests at once would. */
const BUSIER_AFTER_MS = 2_000;

/**
 * The requests a key made on this instance in the current and the previous slice, in a few numbers (memory per key is
 * bounded). Its rate is their mean over the time they cover: from the previous slice's start, or from when the key
 * began to be used here when later (a young key's rate is its requests over its age, not over six seconds, so a key
 * that started a second ago is leased ahead by its real rate, not a sixth of it). Of the requests of a key's first
 * STEADY_MS only two count: a burst at its start (a client sending twenty at once) is no rate, and leasing fifteen
 * seconds ahead by it would hold back the key's whole window from its other instances; but a key that became steady
 * with its third request has a rate, and the ranges asked for then must not be one slot each.
 */
export class KeyRate {
  #slice: number;
  #inSlice = 0;
  #inSlicePrevious = 0;
  /** Since when the key has been used here without a pause of a whole slice (ms); NaN after one, until its next request. */
  #since = Number.NaN;
  /** Requests in the first STEADY_MS from `since`. */
  #opening = 0;

  constructor(nowMs: number) {
    this.#slice = Math.floor(nowMs / SLICE_MS);
  }

  /** Counts one request admitted at `nowMs`. */
  count(nowMs: number): void {
    this.#roll(nowMs);
    if (Number.isNaN(this.#since)) {
      this.#since = nowMs;
      this.#opening = 0;
    }
    if (nowMs - this.#since < STEADY_MS) this.#opening++;
    this.#inSlice++;
  }

  /**
   * Requests per ms lately: their mean over the current and the previous slice, or over the key's time here when
   * shorter; or over the current slice alone once it is a second old, when that is more (a key that got busier).
   */
  perMs(nowMs: number): number {
    this.#roll(nowMs);
    if (Number.isNaN(this.#since)) return 0;
    const mean = (count: number, from: number): number => {
      if (this.#since + STEADY_MS > from) count -= Math.max(0, this.#opening - OPENING_COUNTED);
      return Math.max(0, count) / Math.max(SHORTEST_MS, nowMs - from);
    };
    const sliceStart = Math.max(this.#since, this.#slice * SLICE_MS);
    const both = mean(this.#inSlice + this.#inSlicePrevious, Math.max(this.#since, (this.#slice - 1) * SLICE_MS));
    return nowMs - sliceStart >= BUSIER_AFTER_MS ? Math.max(both, mean(this.#inSlice, sliceStart)) : both;
  }

  /** True once the key has been used here over STEADY_MS without a pause: worth holding slots ahead for. */
  steady(nowMs: number): boolean {
    this.#roll(nowMs);
    return nowMs - this.#since >= STEADY_MS;
  }

  #roll(nowMs: number): void {
    const slice = Math.floor(nowMs / SLICE_MS);
    if (slice <= this.#slice) return;
    this.#inSlicePrevious = slice === this.#slice + 1 ? this.#inSlice : 0;
    // A slice without a request: the key starts again at its next one (a key used every few seconds stays steady).
    if (this.#inSlicePrevious === 0) this.#since = Number.NaN;
    this.#inSlice = 0;
    this.#slice = slice;
  }
}
