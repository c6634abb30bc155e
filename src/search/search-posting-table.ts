// The posting of every term of the search index: packed runs from the bulk build at start-up, and what writes changed.
import { type Posting, SlotBitmap } from './search-postings.js';

/** What the bulk build leaves: each term's sorted run of slots in one array, or a bitmap for a frequent term. */
export interface PackedPostings {
  /** Term t's run is `slots[offsets[t], offsets[t + 1])` (empty for a term with a bitmap). */
  offsets: Uint32Array;
  slots: Uint32Array;
  bitmaps: Map<number, SlotBitmap>;
}

const EMPTY: PackedPostings = { offsets: new Uint32Array(1), slots: new Uint32Array(0), bitmaps: new Map() };

/**
 * Postings by term id. A term not written since the start reads from the packed runs (4 bytes a slot, no object
 * per term: a view is made when a query asks); the first write to such a term moves its posting here as an
 * ordinary one (see postingAdd), so a write never shifts the packed array.
 */
export class PostingTable {
  #packed = EMPTY;
  /** Terms written since the packed runs were made: their posting, or null for none (the packed run no longer counts). */
  readonly #written = new Map<number, Posting | null>();

  /** Takes the packed postings of a bulk build, before any posting is set (writes during the build wait for it). */
  install(packed: PackedPostings): void {
    if (this.#written.size > 0) throw new Error('packed postings are installed before any write');
    this.#packed = packed;
  }

  /** The posting of `term`, or undefined when no event holds it. */
  get(term: number): Posting | undefined {
    const written = this.#written.get(term);
    if (written !== undefined) return written ?? undefined;
    return this.#packedPosting(term);
  }

  /** Sets the posting of `term` (undefined: no event holds it any more). */
  set(term: number, posting: Posting | undefined): void {
    this.#written.set(term, posting ?? null);
  }

  #packedPosting(term: number): Posting | undefined {
    const { offsets, slots, bitmaps } = this.#packed;
    // A term past the packed ones (a word first met since) reads both bounds as undefined: no run, no bitmap.
    const [start, end] = [offsets[term]!, offsets[term + 1]!];
    if (end - start === 1) return slots[start]!;
    if (end > start) return slots.subarray(start, end);
    return bitmaps.get(term);
  }
}
