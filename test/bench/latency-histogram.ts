// A log-linear latency histogram (about 1.6 % resolution, microseconds to hours) for the Node load generator.

/** Sub-buckets per power of two: the resolution is 1 / SUB_BUCKETS. */
const SUB_BUCKETS = 64;
const SUB_BITS = 6;
/** Powers of two above the linear range: values up to 2^(SUB_BITS + 31) µs, about 38 hours. */
const BUCKETS = SUB_BUCKETS + 31 * SUB_BUCKETS;

/** Counts latencies in microseconds; percentiles come back in milliseconds. */
export class LatencyHistogram {
  readonly #counts = new Float64Array(BUCKETS);
  #total = 0;

  /** Number of values recorded. */
  get count(): number {
    return this.#total;
  }

  /** Records one latency of `micros` microseconds. */
  record(micros: number): void {
    this.#counts[indexOf(micros)]! += 1;
    this.#total++;
  }

  /** The latency at or below which `fraction` (0..1) of the values fall, in milliseconds; 0 when empty. */
  percentileMs(fraction: number): number {
    if (this.#total === 0) return 0;
    const wanted = Math.max(1, Math.ceil(fraction * this.#total));
    let seen = 0;
    for (let index = 0; index < BUCKETS; index++) {
      seen += this.#counts[index]!;
      if (seen >= wanted) return middleOf(index) / 1000;
    }
    return middleOf(BUCKETS - 1) / 1000;
  }
}

/** Values below 64 µs get one bucket each; above, each power of two is cut into 64 equal buckets. */
function indexOf(micros: number): number {
  const value = Math.min(Math.max(0, Math.floor(micros)), 2 ** 36);
  if (value < SUB_BUCKETS) return value;
  const exponent = Math.floor(Math.log2(value)) - SUB_BITS;
  const sub = Math.floor(value / 2 ** exponent) - SUB_BUCKETS;
  return Math.min(BUCKETS - 1, SUB_BUCKETS + exponent * SUB_BUCKETS + sub);
}

function middleOf(index: number): number {
  if (index < SUB_BUCKETS) return index + 0.5;
  const exponent = Math.floor((index - SUB_BUCKETS) / SUB_BUCKETS) + 1;
  const sub = (index - SUB_BUCKETS) % SUB_BUCKETS;
  const low = (SUB_BUCKETS + sub) * 2 ** (exponent - 1);
  return low + 2 ** (exponent - 1) / 2;
}
