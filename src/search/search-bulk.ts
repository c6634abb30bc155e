// The bulk build of the search index at start-up: each event's term ids collected once, then packed in one pass.
import { SlotBitmap } from './search-postings.js';
import type { PackedPostings } from './search-posting-table.js';
import { grown, TermList } from './search-hash.js';

/**
 * Bytes per chunk of the collected stream (32 MiB): the stream grows a chunk at a time, never copied. A chunk this
 * large is mapped by the allocator on its own (its pages resident only once written) and given back whole when
 * freed, so the build leaves no holes in the heap behind (RSS once a worker built 1,000,000 events: 951 MiB with
 * 4 MiB chunks, 916 with these; one start each). Each term is
 * written as `term + 1` in a varint (most terms of an event are frequent ones, with small ids: a byte or two each,
 * not four), never across two chunks: the zero bytes left at a chunk's end are skipped.
 */
const CHUNK = 1 << 25;
const MAX_VARINT = 5;
/** A term in at least this many slots (and 1/64 of them) is packed as a bitmap, as postingAdd would make it. */
const MIN_BITMAP = 256;

/** The slot relabel gives an event left out. */
export const DROPPED = 0xffffffff;

/** The runs and bitmaps being filled, from added event `event`, whose terms start at `at`: `next[term]` is where the term's next slot goes in `slots`. */
interface Filling extends PackedPostings {
  /** Where the bitmap of each frequent term starts in `words`, + 1 (0: the term has a run). */
  bitmapAt: Uint32Array;
  /** The bits of every bitmap, one after the other (each bitmap's `words` is a view of its part). */
  words: Uint32Array;
  next: Uint32Array;
  event: number;
  at: number;
}

/**
 * Collects `(slot, term ids)` of the events of a bulk load, slots ascending, counting each term's events as it
 * goes, then packs them (`pack`) into sorted runs in one array, a bitmap for each frequent term: no array per term
 * grows one push at a time.
 */
export class BulkPostings {
  readonly #chunks: Uint8Array[] = [];
  /** Bytes per chunk: CHUNK, or a smaller power of 2 (at least 8) for tests, whose streams then cross chunks often. */
  readonly #chunkBytes: number;
  /** The chunk being written, and where. */
  #chunk = new Uint8Array(0);
  #offset: number;
  /** Each added event: its slot, and where its terms end in the stream. */
  #slots = new Uint32Array(1024);
  #ends = new Uint32Array(1024);
  #events = 0;
  /** Per term: the last slot + 1 that added it (to drop repeats within an event), and the events holding it. */
  #lastSlot = new Uint32Array(1024);
  #counts = new Uint32Array(1024);
  #filling: Filling | undefined;
  readonly #scratch = new TermList();

  constructor(chunkBytes = CHUNK) {
    this.#chunkBytes = this.#offset = chunkBytes;
  }

  /** The chunks of the stream held: a chunk is filled to within a varint of its end; none once packed. */
  get chunks(): number {
    return this.#chunks.length;
  }

  /** Adds the terms `terms[0, count)` of the event in `slot` (repeats dropped); slots must come ascending. */
  add(slot: number, terms: ArrayLike<number>, count = terms.length): void {
    this.#write(slot, terms, count, true);
  }

  /**
   * Adds the terms `terms[0, count)` of the event in `slot`, each once and already counted by the caller (the
   * start-up build's BuildTerms), whose counts are handed over by `countsFrom` before relabel and pack. Slots must
   * come ascending.
   */
  addDistinct(slot: number, terms: ArrayLike<number>, count = terms.length): void {
    this.#write(slot, terms, count, false);
  }

  /** Takes each term's count of events (what `add` counts) from the caller, in place of the counts kept. */
  countsFrom(counts: Uint32Array<ArrayBuffer>): void {
    this.#counts = counts;
  }

  /** Writes one event's terms into the stream, dropping repeats and counting each term when `counting`. */
  #write(slot: number, terms: ArrayLike<number>, count: number, counting: boolean): void {
    if (this.#events === this.#slots.length) {
      this.#slots = grown(this.#slots, this.#events + 1);
      this.#ends = grown(this.#ends, this.#events + 1);
    }
    const size = this.#chunkBytes;
    let chunk = this.#chunk;
    let offset = this.#offset;
    for (let i = 0; i < count; i++) {
      const term = terms[i]!;
      if (counting) {
        if (term >= this.#lastSlot.length) {
          this.#lastSlot = grown(this.#lastSlot, term + 1);
          this.#counts = grown(this.#counts, term + 1);
        }
        if (this.#lastSlot[term] === slot + 1) continue;
        this.#lastSlot[term] = slot + 1;
        this.#counts[term]!++;
      }
      if (offset > size - MAX_VARINT) {
        chunk = new Uint8Array(size);
        this.#chunks.push(chunk);
        offset = 0;
      }
      let value = term + 1;
      for (; value >= 0x80; value >>>= 7) chunk[offset++] = (value & 0x7f) | 0x80;
      chunk[offset++] = value;
    }
    this.#chunk = chunk;
    this.#offset = offset;
    this.#slots[this.#events] = slot;
    this.#ends[this.#events++] = (this.#chunks.length - 1) * size + offset;
  }

  /**
   * Gives each event added a new slot, `slots[its slot]`, or DROPPED to leave it out of the postings (a put that a
   * later line replaced). The new slots must ascend too. Before packing.
   */
  relabel(slots: Uint32Array): void {
    const counts = this.#counts;
    for (let event = 0; event < this.#events; event++) {
      const slot = slots[this.#slots[event]!]!;
      this.#slots[event] = slot;
      if (slot !== DROPPED) continue;
      const terms = this.#scratch;
      this.#decode(event === 0 ? 0 : this.#ends[event - 1]!, this.#ends[event]!, terms);
      for (let i = 0; i < terms.length; i++) counts[terms.ids[i]!]!--;
    }
  }

  /** Packs every event added, in one go: see packSome. */
  pack(terms: number, capacity: number): PackedPostings {
    return this.packSome(terms, capacity, Infinity)!;
  }

  /**
   * Packs up to `events` more of the events added (filling the runs and bitmaps a step at a time), for `terms`
   * term ids and `capacity` slots as given on the first call. Returns the packed postings once done, undefined
   * before. Nothing may be added once packing has begun.
   */
  packSome(terms: number, capacity: number, events: number): PackedPostings | undefined {
    const filling = (this.#filling ??= this.#layOut(terms, capacity));
    const { bitmapAt, words, slots, next } = filling;
    const end = Math.min(this.#events, filling.event + events);
    const read = this.#scratch;
    let at = filling.at;
    for (let event = filling.event; event < end; event++) {
      const slot = this.#slots[event]!;
      const until = this.#ends[event]!;
      if (slot === DROPPED) {
        at = until;
        continue;
      }
      at = this.#decode(at, until, read);
      const ids = read.ids;
      for (let i = 0; i < read.length; i++) {
        const term = ids[i]!;
        const bitmap = bitmapAt[term]!;
        // Each slot comes once per term: a bit set, no count to keep (each bitmap's count is its term's).
        if (bitmap !== 0) words[bitmap - 1 + (slot >>> 5)]! |= 1 << (slot & 31);
        else slots[next[term]!++] = slot;
      }
    }
    filling.event = end;
    filling.at = at;
    if (end < this.#events) return undefined;
    this.#chunks.length = 0;
    return { offsets: filling.offsets, slots: filling.slots, bitmaps: filling.bitmaps };
  }

  /** From each term's count: where its run starts, or its bitmap (for a frequent term) in one array of bits. */
  #layOut(terms: number, capacity: number): Filling {
    const counts = this.#counts;
    const threshold = Math.max(MIN_BITMAP, capacity >>> 6);
    const length = (capacity + 31) >>> 5;
    const frequent: number[] = [];
    // A term past the counted ones reads as undefined here and below: in no event.
    for (let term = 0; term < terms; term++) if (counts[term]! >= threshold) frequent.push(term);
    const words = new Uint32Array(frequent.length * length);
    const bitmaps = new Map<number, SlotBitmap>();
    const bitmapAt = new Uint32Array(terms);
    frequent.forEach((term, at) => {
      const bitmap = new SlotBitmap();
      bitmap.words = words.subarray(at * length, (at + 1) * length);
      bitmap.count = counts[term]!;
      bitmaps.set(term, bitmap);
      bitmapAt[term] = at * length + 1;
    });
    const offsets = new Uint32Array(terms + 1);
    const next = new Uint32Array(terms);
    let total = 0;
    for (let term = 0; term < terms; term++) {
      offsets[term] = next[term] = total;
      if (bitmapAt[term] === 0) total += counts[term] ?? 0;
    }
    offsets[terms] = total;
    return { offsets, slots: new Uint32Array(total), bitmaps, bitmapAt, words, next, event: 0, at: 0 };
  }

  /** Reads into `terms` the terms written in the stream from `at` to `until` (one event's); returns `until`. */
  #decode(at: number, until: number, terms: TermList): number {
    terms.length = 0;
    const size = this.#chunkBytes;
    while (at < until) {
      const chunk = this.#chunks[(at - (at & (size - 1))) / size]!;
      let offset = at & (size - 1);
      let byte = chunk[offset++]!;
      if (byte === 0) {
        // The zero bytes left at a chunk's end.
        at += size - (at & (size - 1));
        continue;
      }
      let value = byte & 0x7f;
      for (let shift = 7; byte >= 0x80; shift += 7) {
        byte = chunk[offset++]!;
        value |= (byte & 0x7f) << shift;
      }
      at += offset - (at & (size - 1));
      terms.push(value - 1);
    }
    return at;
  }
}
