// The bulk build of the search index at start-up: each event's term ids collected once, then packed in one pass.
import { SlotBitmap } from '../search-postings.js';
import type { PackedPostings } from './search-posting-table.js';
import { grown } from './search-terms.js';

/** Term ids per chunk of the collected stream (4 MiB): the stream grows a chunk at a time, never copied. */
const CHUNK_BITS = 20;
const CHUNK = 1 << CHUNK_BITS;
/** A term in at least this many slots (and 1/64 of them) is packed as a bitmap, as postingAdd would make it. */
const MIN_BITMAP = 256;

/**
 * Collects `(slot, term ids)` of the events of a bulk load, slots ascending, then packs them (`pack`) into
 * sorted runs in one array, a bitmap for each frequent term: no array per term grows one push at a time.
 */
export class BulkPostings {
  readonly #chunks: Uint32Array[] = [];
  #length = 0;
  /** Each added event: its slot, and where its terms end in the stream. */
  #slots = new Uint32Array(1024);
  #ends = new Uint32Array(1024);
  #events = 0;
  /** Per term: the last slot + 1 that added it (to drop repeats within an event). */
  #lastSlot = new Uint32Array(1024);

  /** Adds the terms of the event in `slot` (repeats dropped); slots must come ascending. */
  add(slot: number, terms: readonly number[]): void {
    if (this.#events === this.#slots.length) {
      this.#slots = grown(this.#slots, this.#events + 1);
      this.#ends = grown(this.#ends, this.#events + 1);
    }
    for (const term of terms) {
      if (term >= this.#lastSlot.length) this.#lastSlot = grown(this.#lastSlot, term + 1);
      if (this.#lastSlot[term] === slot + 1) continue;
      this.#lastSlot[term] = slot + 1;
      const at = this.#length++;
      if (at >>> CHUNK_BITS === this.#chunks.length) this.#chunks.push(new Uint32Array(CHUNK));
      this.#chunks[at >>> CHUNK_BITS]![at & (CHUNK - 1)] = term;
    }
    this.#slots[this.#events] = slot;
    this.#ends[this.#events++] = this.#length;
  }

  /**
   * The packed postings of the events added whose slot `keep` still accepts (an event written or deleted during the
   * build is indexed by that write instead), for `terms` term ids and `capacity` slots.
   */
  pack(terms: number, capacity: number, keep: (slot: number) => boolean): PackedPostings {
    const counts = new Uint32Array(terms + 1);
    this.#forEach(keep, (term) => counts[term]!++);
    const threshold = Math.max(MIN_BITMAP, capacity >>> 6);
    const bitmaps = new Map<number, SlotBitmap>();
    /** The bitmap of each frequent term, by its index + 1 in `list` (0: the term has a run). */
    const bitmapAt = new Uint32Array(terms);
    const list: SlotBitmap[] = [];
    const offsets = new Uint32Array(terms + 1);
    let total = 0;
    for (let term = 0; term < terms; term++) {
      offsets[term] = total;
      const count = counts[term]!;
      if (count >= threshold) {
        const bitmap = new SlotBitmap(capacity);
        bitmaps.set(term, bitmap);
        bitmapAt[term] = list.push(bitmap);
      } else total += count;
      // From here on counts[term] is where the term's next slot goes.
      counts[term] = offsets[term]!;
    }
    offsets[terms] = total;
    const slots = new Uint32Array(total);
    this.#forEach(keep, (term, slot) => {
      const bitmap = bitmapAt[term]!;
      if (bitmap !== 0) list[bitmap - 1]!.add(slot);
      else slots[counts[term]!++] = slot;
    });
    this.#chunks.length = 0;
    return { offsets, slots, bitmaps };
  }

  #forEach(keep: (slot: number) => boolean, visit: (term: number, slot: number) => void): void {
    let at = 0;
    for (let event = 0; event < this.#events; event++) {
      const slot = this.#slots[event]!;
      const end = this.#ends[event]!;
      if (!keep(slot)) {
        at = end;
        continue;
      }
      for (; at < end; at++) visit(this.#chunks[at >>> CHUNK_BITS]![at & (CHUNK - 1)]!, slot);
    }
  }
}
