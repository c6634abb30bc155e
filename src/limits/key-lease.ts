// The slots one instance holds of one key's rate limit: in its current sub-window, in the range under way, and ahead.
import { KeyRate } from './key-rate.js';

/** Hands slots not used back to where they were leased from: `count` of `bucket`, or of the range of `span` from it. */
export type GiveBack = (bucket: number, count: number, span: number) => void;

/**
 * This instance's share of a key's window: slots leased in the current sub-window, in the range of sub-windows under
 * way and in later ranges, and what the source said of the whole. A slot is used only in its own sub-window or range;
 * what is left of one that passed is given back.
 */
export class KeyLease {
  /** The current sub-window. */
  bucket: number;
  /** Leased in `bucket` and not used yet. */
  left = 0;
  /** Slots of the range of sub-windows under way (holding `bucket`), not used yet. */
  range: { start: number; left: number } | undefined;
  /** Slots leased for later ranges and not used yet, by the range's first sub-window. */
  ahead: Map<number, number> | undefined;
  /** Slots handed out in the window over all instances, as of the last lease. */
  total = 0;
  /** The key's requests per ms over all instances, as of the last lease (0 before the source told). */
  allPerMs = 0;
  /** The sub-window whose slots free first (a range's last), as of the last lease. */
  oldest: number | undefined;
  /** A lease being asked for: requests of the key finding no slot left wait for it. */
  asking: Promise<void> | undefined;
  /** When `left` falls to this, the next batch is asked for ahead (-1: never, near the limit). */
  lowWater = -1;
  /** When to look again whether enough is leased ahead (ms). */
  lookAt = 0;
  /** The first sub-window of the last range leased ahead (or asked for). */
  aheadTo: number;
  /** How fast the key's requests come here. */
  readonly rate: KeyRate;
  /** When this instance last refused the key (429): at its limit, nothing is leased ahead for it for a while (ms). */
  refusedAt = -Infinity;
  /** When this instance last asked the others for the key's slots they hold unused (ms). */
  askedBackAt = -Infinity;
  /** When the source last failed (ms): asks right after are answered 503 at once, unless it failed at once. */
  failedAt = -Infinity;
  /** The source's last failure came at once (a connection refused or reset), not after a wait: asking again costs nothing. */
  failedAtOnce = false;
  /** The latest time a request of the key was seen at (ms): one that waited is decided then, not when it came. */
  seenAt: number;
  readonly #span: number;
  readonly #giveBack: GiveBack;
  /** Where the last slot used came from, so that a refund goes back there (and is given back to the row it was leased in). */
  #lastUsed: 'bucket' | 'range' | undefined;

  constructor(bucket: number, nowMs: number, span: number, giveBack: GiveBack) {
    this.bucket = bucket;
    this.aheadTo = Math.floor(bucket / span) * span - span;
    this.rate = new KeyRate(nowMs);
    this.seenAt = nowMs;
    this.#span = span;
    this.#giveBack = giveBack;
  }

  /** Uses one slot held now (the sub-window's own first, then the range's) and counts it in the rate; false when none is left. */
  use(nowMs: number): boolean {
    if (this.left > 0) {
      this.left--;
      this.#lastUsed = 'bucket';
    } else if (this.range !== undefined && this.range.left > 0) {
      this.range.left--;
      this.#lastUsed = 'range';
    } else return false;
    this.rate.count(nowMs);
    return true;
  }

  /** Puts back the slot the last request used (refused after it was counted), where it came from: it is given back there. */
  refund(): void {
    if (this.#lastUsed === 'range' && this.range !== undefined) this.range.left++;
    else if (this.#lastUsed === 'bucket') this.left++;
    this.#lastUsed = undefined;
  }

  /** Slots usable now. */
  usable(): number {
    return this.left + (this.range?.left ?? 0);
  }

  /** Slots held in later ranges, usable only once their range comes. */
  heldAhead(): number {
    let count = 0;
    if (this.ahead !== undefined) for (const held of this.ahead.values()) count += held;
    return count;
  }

  /** Moves to sub-window `bucket`: what is left of passed ones is given back, what was leased ahead for it is now usable. */
  advance(bucket: number): void {
    if (this.left > 0) this.#giveBack(this.bucket, this.left, 1);
    this.#lastUsed = undefined;
    this.bucket = bucket;
    this.left = 0;
    if (this.range !== undefined && this.range.start + this.#span <= bucket) {
      this.#giveBack(this.range.start, this.range.left, this.#span);
      this.range = undefined;
    }
    if (this.ahead === undefined) return;
    for (const [start, count] of this.ahead) {
      if (start > bucket) continue;
      this.ahead.delete(start);
      this.credit(start, count, this.#span);
    }
    if (this.ahead.size === 0) this.ahead = undefined;
  }

  /**
   * Puts `count` slots granted in `bucket` (a range of `span` from it) where they belong: the current sub-window, the
   * range holding it, one ahead, or back (it passed).
   */
  credit(bucket: number, count: number, span: number): void {
    if (count <= 0) return;
    if (bucket + span <= this.bucket) this.#giveBack(bucket, count, span);
    else if (bucket > this.bucket) (this.ahead ??= new Map()).set(bucket, (this.ahead.get(bucket) ?? 0) + count);
    else if (span === 1) this.left += count;
    else if (this.range?.start === bucket) this.range.left += count;
    else {
      if (this.range !== undefined) this.#giveBack(this.range.start, this.range.left, this.#span);
      this.range = { start: bucket, left: count };
    }
  }

  /** Gives back every slot held (another instance asked for them: its request found the window full); none is used after. */
  releaseAll(): void {
    for (const [bucket, count, span] of this.takeAll()) this.#giveBack(bucket, count, span);
  }

  /**
   * Every slot held, no longer held: the caller gives them back. An ask of the key still waiting on this lease (the
   * key dropped, the limiter closed) then finds nothing to give back a second time.
   */
  takeAll(): [number, number, number][] {
    const held = this.held();
    this.left = 0;
    this.range = undefined;
    this.ahead = undefined;
    return held;
  }

  /** Every slot held: sub-window (or a range's first), count, and the range's length. */
  held(): [number, number, number][] {
    const held: [number, number, number][] = this.left > 0 ? [[this.bucket, this.left, 1]] : [];
    if (this.range !== undefined && this.range.left > 0) held.push([this.range.start, this.range.left, this.#span]);
    if (this.ahead !== undefined) for (const [start, count] of this.ahead) held.push([start, count, this.#span]);
    return held;
  }
}
