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
  #written = new Map<number, Posting | null>();

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

  /** Whether some event holds `term` (get without making a view of a packed run). */
  has(term: number): boolean {
    const written = this.#written.get(term);
    if (written !== undefined) return written !== null;
    const { offsets, bitmaps } = this.#packed;
    const start = offsets[term];
    const end = offsets[term + 1];
    return (start !== undefined && end !== undefined && end > start) || bitmaps.has(term);
  }

  /**
   * Numbers the postings by new term ids: `ids[old]` is a term's new id (ascending with the old ones, 0 to `count`
   * - 1), or -1 for a term left out, which no event holds (see SearchTerms.compacted).
   */
  renumber(ids: Int32Array, count: number): void {
    const old = this.#packed;
    const offsets = new Uint32Array(count + 1);
    const slots = new Uint32Array(old.slots.length);
    const bitmaps = new Map<number, SlotBitmap>();
    const written = new Map<number, Posting | null>();
    let used = 0;
    for (let term = 0; term < ids.length; term++) {
      const id = ids[term]!;
      if (id === -1) continue;
      offsets[id] = used;
      const posting = this.#written.get(term);
      if (posting !== undefined) {
        if (posting !== null) written.set(id, posting);
      } else {
        const [start, end] = [old.offsets[term], old.offsets[term + 1]];
        if (start !== undefined && end !== undefined && end > start) {
          slots.set(old.slots.subarray(start, end), used);
          used += end - start;
        } else {
          const bitmap = old.bitmaps.get(term);
          if (bitmap !== undefined) bitmaps.set(id, bitmap);
        }
      }
      offsets[id + 1] = used;
    }
    this.#packed = { offsets, slots: slots.slice(0, used), bitmaps };
    this.#written = written;
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
