// Which slots of a key's later sub-windows an instance leases ahead, so that it can go on through an outage of the database.

/** Slots asked for in sub-window `bucket`, or in the range of `span` sub-windows from it (usable in any of them). */
export interface Want {
  bucket: number;
  want: number;
  span?: number | undefined;
}

/** How far ahead ranges are leased, and the least that stays leased ahead: an outage of 10 s never outlasts them. */
export const HORIZON_MS = 15_000;
const COVERED_MS = 11_000;
/** Slots held ahead per request the key makes here: the margin for a rate that rises while the database is away. */
export const MARGIN = 1.5;
/**
 * The share of the limit one instance holds ahead at most in any window (or in the horizon, when the window is longer):
 * half, the other half left to what the key uses and to its other instances, so that a rate measured too high (a burst
 * admitted over a second) never holds back the whole window.
 */
export const MOST_AHEAD = 0.5;
/**
 * Slots held ahead, by all instances together, leave this share of the limit free in any window (the source grants no
 * more), for the key's requests now; and a key whose pace over all instances passes AHEAD_PACE of its limit a window
 * gets no slot ahead (unless its window's room lasts it long). What it uses and what is held ahead then fit under its
 * limit together, so slots held ahead on one instance do not refuse a request of a steady key under its limit on another.
 */
export const AHEAD_RESERVE = 0.2;
export const AHEAD_PACE = 0.6;
/** Ranges starting this soon are kept at their whole share. */
const NEAR_MS = 3_000;

/** What aheadWants reads: where the key is, its rate here, and what is held ahead already. */
export interface AheadInput {
  nowMs: number;
  /** The current sub-window. */
  bucket: number;
  bucketMs: number;
  /** Sub-windows per range (ranges of about a second). */
  span: number;
  /** The key's requests per ms here (see KeyRate). */
  perMs: number;
  /** Slots held per request expected (MARGIN, or 1 for a key at its limit). */
  margin: number;
  /** The most slots per ms held ahead, whatever the rate: the rest of the limit is the key's other instances'. */
  most: number;
  /** Slots held ahead, by the range's first sub-window. */
  held: ReadonlyMap<number, number> | undefined;
  /** Slots left in the range under way, if this instance holds it. */
  current: { start: number; left: number } | undefined;
  /** The first sub-window of the last range asked for. */
  aheadTo: number;
}

/**
 * The ranges to ask for: those of the next HORIZON_MS, each its share of the key's rate here times MARGIN (rounded up;
 * never more than `most` a ms; MARGIN also covers requests that come unevenly). A range is asked
 * for once as it enters the horizon (short ranges, several at once, once less than COVERED_MS is held ahead), and
 * topped up as its share grows (a key that started a moment ago, or got busier; every range short of its share
 * whenever one is asked for), so that what is held ahead follows the key's rate rather than its first second.
 * Returns the wants and the new `aheadTo`.
 */
export function aheadWants(input: AheadInput): { wants: Want[]; aheadTo: number } {
  const { nowMs, bucket, bucketMs, span, perMs } = input;
  let aheadTo = input.aheadTo;
  const rangeMs = span * bucketMs;
  const last = Math.floor((nowMs + HORIZON_MS) / bucketMs);
  // New ranges once one enters the horizon; short ranges once less than COVERED_MS is held ahead, many at once.
  const due = last >= aheadTo + span && (rangeMs > (HORIZON_MS - COVERED_MS) / 2 || (aheadTo + span) * bucketMs < nowMs + COVERED_MS);
  const rate = Math.min(perMs * input.margin, input.most);
  // The range under way too, when it is longer than the sub-window (whose own batch is asked for apart): asked for once
  // when the key becomes steady, then kept at the share of what is left of it as the key uses it, so that an outage
  // starting at any moment finds the rest of this range covered as well as the ranges after it.
  const shortOnes: Want[] = [];
  let asking = false;
  for (let start = (Math.floor(bucket / span) + (span > 1 ? 0 : 1)) * span; start <= last; start += span) {
    const fresh = start > aheadTo;
    if (fresh && !due) break;
    const underWay = start <= bucket;
    const from = underWay ? nowMs : start * bucketMs;
    const share = Math.ceil(((start + span) * bucketMs - from) * rate);
    const held = underWay ? (input.current?.start === start ? input.current.left : 0) : (input.held?.get(start) ?? 0);
    const short = share - held;
    if (fresh) aheadTo = start;
    if (short <= 0) continue;
    // Ranges of the next NEAR_MS are kept at their whole share (an outage may begin any moment); later ones ask on
    // their own once a quarter short, so that a rate that wavers does not ask the database for one slot at a time,
    // and ride along, topped up whole, whenever anything is asked for.
    const near = from < nowMs + NEAR_MS;
    if (fresh || near || short >= Math.ceil(share / 4)) asking = true;
    shortOnes.push({ bucket: start, want: short, span });
  }
  return { wants: asking ? shortOnes : [], aheadTo };
}
