// The bulk build of the search index at start-up: each event's term ids collected once, then packed in one pass.
import { SlotBitmap } from './search-postings.js';
import type { PackedPostings } from './search-posting-table.js';
import { grown } from './search-terms.js';

/**
 * Bytes per chunk of the collected stream (4 MiB): the stream grows a chunk at a time, never copied. Each term is
 * written as `term + 1` in a varint (most terms of an event are frequent ones, with small ids: a byte or two each,
 * not four), never across two chunks: the zero bytes left at a chunk's end are skipped.
 */
const CHUNK = 1 << 22;
const MAX_VARINT = 5;
/** A term in at least this many slots (and 1/64 of them) is packed as a bitmap, as postingAdd would make it. */
const MIN_BITMAP = 256;

/** The slot relabel gives an event left out. */
export const DROPPED = 0xffffffff;

/** The runs and bitmaps being filled: `next[term]` is where the term's next slot goes in `slots`. */
interface Filling extends PackedPostings {
  /** The bitmap of each frequent term, by its index + 1 in `list` (0: the term has a run). */
  bitmapAt: Uint32Array;
  list: SlotBitmap[];
  next: Uint32Array;
}

/** Where packing is: counting (no filling yet) or filling, from added event `event`, whose terms start at `at`. */
interface Packing {
  filling: Filling | undefined;
  event: number;
  at: number;
  counts: Uint32Array;
  terms: number;
  capacity: number;
}

/**
 * Collects `(slot, term ids)` of the events of a bulk load, slots ascending, then packs them (`pack`) into
 * sorted runs in one array, a bitmap for each frequent term: no array per term grows one push at a time.
 */
export class BulkPostings {
  readonly #chunks: Uint8Array[] = [];
  #length = 0;
  /** Each added event: its slot, and where its terms end in the stream. */
  #slots = new Uint32Array(1024);
  #ends = new Uint32Array(1024);
  #events = 0;
  #packing: Packing | undefined;
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
      let offset = this.#length % CHUNK;
      if (offset > CHUNK - MAX_VARINT || this.#chunks.length === 0) {
        if (this.#chunks.length > 0) this.#length += CHUNK - offset;
        this.#chunks.push(new Uint8Array(CHUNK));
        offset = 0;
      }
      const chunk = this.#chunks[this.#chunks.length - 1]!;
      let value = term + 1;
      for (; value >= 0x80; value = Math.floor(value / 0x80)) chunk[offset++] = (value & 0x7f) | 0x80;
      chunk[offset++] = value;
      this.#length = (this.#chunks.length - 1) * CHUNK + offset;
    }
    this.#slots[this.#events] = slot;
    this.#ends[this.#events++] = this.#length;
  }

  /**
   * Gives each event added a new slot, `slots[its slot]`, or DROPPED to leave it out of the postings (a put that a
   * later line replaced). The new slots must ascend too. Before packing.
   */
  relabel(slots: Uint32Array): void {
    for (let event = 0; event < this.#events; event++) this.#slots[event] = slots[this.#slots[event]!]!;
  }

  /** Packs every event added, in one go: see packSome. */
  pack(terms: number, capacity: number): PackedPostings {
    return this.packSome(terms, capacity, Infinity)!;
  }

  /**
   * Packs up to `events` more of the events added (counting every term's slots, then filling the runs and
   * bitmaps: each pass a step at a time), for `terms` term ids and `capacity` slots as given on the first call.
   * Returns the packed postings once done, undefined before. Nothing may be added once packing has begun.
   */
  packSome(terms: number, capacity: number, events: number): PackedPostings | undefined {
    this.#packing ??= { filling: undefined, event: 0, at: 0, counts: new Uint32Array(terms + 1), terms, capacity };
    const packing = this.#packing;
    const end = Math.min(this.#events, packing.event + events);
    const filling = packing.filling;
    if (filling === undefined) {
      const { counts } = packing;
      packing.at = this.#forEach(packing.event, end, packing.at, (term) => counts[term]!++);
    } else {
      const { bitmapAt, list, slots, next } = filling;
      packing.at = this.#forEach(packing.event, end, packing.at, (term, slot) => {
        const bitmap = bitmapAt[term]!;
        if (bitmap !== 0) list[bitmap - 1]!.add(slot);
        else slots[next[term]!++] = slot;
      });
    }
    packing.event = end;
    if (end < this.#events) return undefined;
    if (filling === undefined) {
      packing.filling = this.#layOut(packing.counts, packing.terms, packing.capacity);
      packing.event = packing.at = 0;
      return events === Infinity ? this.packSome(terms, capacity, Infinity) : undefined;
    }
    this.#chunks.length = 0;
    return { offsets: filling.offsets, slots: filling.slots, bitmaps: filling.bitmaps };
  }

  /** From each term's count: where its run starts (or its bitmap, for a frequent term); `counts` becomes where the next slot goes. */
  #layOut(counts: Uint32Array, terms: number, capacity: number): Filling {
    const threshold = Math.max(MIN_BITMAP, capacity >>> 6);
    const bitmaps = new Map<number, SlotBitmap>();
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
      counts[term] = offsets[term]!;
    }
    offsets[terms] = total;
    return { offsets, slots: new Uint32Array(total), bitmaps, bitmapAt, list, next: counts };
  }

  /** Visits the terms of added events `[from, to)`, whose terms start at `at` in the stream; returns where they end. */
  #forEach(from: number, to: number, at: number, visit: (term: number, slot: number) => void): number {
    for (let event = from; event < to; event++) {
      const slot = this.#slots[event]!;
      const end = this.#ends[event]!;
      if (slot === DROPPED) {
        at = end;
        continue;
      }
      while (at < end) {
        const chunk = this.#chunks[Math.floor(at / CHUNK)]!;
        let offset = at % CHUNK;
        let byte = chunk[offset++]!;
        if (byte === 0) {
          at += CHUNK - (at % CHUNK);
          continue;
        }
        let value = byte & 0x7f;
        for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
          byte = chunk[offset++]!;
          value += (byte & 0x7f) * scale;
        }
        at += offset - (at % CHUNK);
        visit(value - 1, slot);
      }
    }
    return at;
  }
}
