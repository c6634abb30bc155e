// The term dictionary of the start-up build from the log (the worker's): each term's hot state in one cell, so a
// word outside the hot set costs one cache miss, not five across SearchTerms' table, starts and units and
// BulkPostings' last slot and count. At the end it hands over the same TermParts SearchTerms would have built.
import { grown, hashUnits, rehashed, scratch } from './search-hash.js';
import { TermArena } from './search-term-arena.js';
import type { TermParts } from './search-terms.js';

/** Uint32 words per cell: 32 bytes, two cells a cache line. */
const CELL = 8;
/**
 * Word 0: the hash's high 23 bits, INLINED, and the length (up to 255): a match is checked on units only when the
 * hash bits and length agree.
 */
const LENGTH_BITS = 0xff;
const INLINED = 0x100;
/** Word 1: id + 1 (0: empty). Word 2: the event last holding the term, + 1. Word 3: the events holding it. */
const ID = 1;
const LAST = 2;
const COUNT = 3;
/**
 * Words 4–7: when INLINED, the units of a term of up to 16 units each under 256 (Latin-1: every ASCII and accented
 * Latin word; zero-padded), as bytes; else where its units start in the arena, and its length.
 */
const INLINE = 4;
const INLINE_UNITS = 16;
/** SearchTerms' first table (8,192 cells), doubled while more than half full: the cells handed over are that size. */
const FIRST_CELLS = 1 << 13;

/**
 * Interns words while the build reads the log, event by event (startEvent), counting each term's events and
 * telling a word's first occurrence in an event from a repeat: `intern` returns the term's id the first time in
 * the event, -1 after. Terms are numbered in the order first met, as SearchTerms numbers them; `parts` gives
 * SearchTerms' arrays, `counts` the events of each term.
 */
export class BuildTerms {
  #cells: Uint32Array;
  #cellBytes: Uint8Array;
  #mask: number;
  /** Grows when the count passes this: the table's cells × the most full it may be. */
  #limit: number;
  readonly #load: number;
  /** The terms' units, starts and hashes, as SearchTerms keeps them. */
  readonly #arena = new TermArena();
  #event = 0;
  /** The ids given out in this event, in order: what forget takes back from the end. */
  #given = new Uint32Array(256);
  #givenCount = 0;
  /** Times the table grew, and cells probed past the first (for tests: work, never time). */
  readonly work = { growths: 0, probes: 0 };

  /** `load`: the most full the table may get (0.8: at most 4 cells in 5 hold a term; a half-full table measured no cheaper over both bench data sets). */
  constructor(load = 0.8, cells = 1 << 12) {
    this.#load = load;
    this.#cells = new Uint32Array(cells * CELL);
    this.#cellBytes = new Uint8Array(this.#cells.buffer);
    this.#mask = cells - 1;
    this.#limit = Math.floor(cells * load);
  }

  get size(): number {
    return this.#arena.count;
  }

  /** Begins the next event: each term's first word in it is counted and given out, its repeats are not. */
  startEvent(): void {
    this.#event++;
    this.#givenCount = 0;
  }

  /** The id of the term spelt by `units[0, length)` (hashUnits `hash`) the first time in this event, else -1. */
  intern(units: Uint16Array, length: number, hash: number): number {
    const cells = this.#cells;
    // An int32, as `cells[base] & ~INLINED` reads.
    const tag = (hash & ~(LENGTH_BITS | INLINED)) | (length < LENGTH_BITS ? length : LENGTH_BITS);
    let cell = hash & this.#mask;
    for (let base = cell * CELL; cells[base + ID] !== 0; cell = (cell + 1) & this.#mask, base = cell * CELL) {
      if ((cells[base]! & ~INLINED) !== tag || !this.#same(base, units, length)) {
        this.work.probes++;
        continue;
      }
      if (cells[base + LAST] === this.#event) return -1;
      cells[base + LAST] = this.#event;
      cells[base + COUNT]!++;
      return this.#give(cells[base + ID]! - 1);
    }
    return this.#add(cell * CELL, tag, units, length, hash);
  }

  /** `intern` of a string. */
  internWord(word: string): number {
    const units = scratch(word.length);
    for (let i = 0; i < word.length; i++) units[i] = word.charCodeAt(i);
    return this.intern(units, word.length, hashUnits(units, word.length));
  }

  /**
   * Takes back the last `count` ids given out in this event (by a scan that gave up on its text, which is then read
   * again another way): each is uncounted, so the second reading counts it once. The terms stay, with their ids.
   */
  forget(count: number): void {
    for (; count > 0; count--) {
      const base = this.#cellOf(this.#given[--this.#givenCount]!);
      this.#cells[base + LAST] = 0;
      this.#cells[base + COUNT]!--;
    }
  }

  /** SearchTerms' arrays for these terms: what `new SearchTerms()` interning the same words in the same order holds. */
  parts(): TermParts {
    let cells = FIRST_CELLS;
    while (this.#arena.count * 2 > cells) cells *= 2;
    const { units, used, starts, hashes, count } = this.#arena;
    return { units, used, starts, hashes, count, cells: rehashed(hashes, count, cells) };
  }

  /** The events holding each term, by id. */
  counts(): Uint32Array<ArrayBuffer> {
    const counts = new Uint32Array(this.#arena.count);
    const cells = this.#cells;
    for (let base = 0; base < cells.length; base += CELL) if (cells[base + ID] !== 0) counts[cells[base + ID]! - 1] = cells[base + COUNT]!;
    return counts;
  }

  /** A new term in the empty cell at `base` (apart from intern, which stays small enough for V8 to inline in the scan). */
  #add(base: number, tag: number, units: Uint16Array, length: number, hash: number): number {
    const id = this.#arena.append(units, length, hash);
    this.#place(base, tag, id, units, length);
    if (this.#arena.count > this.#limit) this.#grow();
    return this.#give(id);
  }

  #give(id: number): number {
    if (this.#givenCount === this.#given.length) this.#given = grown(this.#given, this.#givenCount + 1);
    this.#given[this.#givenCount++] = id;
    return id;
  }

  #same(base: number, units: Uint16Array, length: number): boolean {
    if ((this.#cells[base]! & INLINED) !== 0) {
      const own = this.#cellBytes;
      const at = (base + INLINE) * 4;
      for (let i = 0; i < length; i++) if (own[at + i] !== units[i]) return false;
      return true;
    }
    const cells = this.#cells;
    if (cells[base + INLINE + 1] !== length) return false;
    const own = this.#arena.units;
    const start = cells[base + INLINE]!;
    for (let i = 0; i < length; i++) if (own[start + i] !== units[i]) return false;
    return true;
  }

  /** Fills the empty cell at `base` with term `id` (counted once, in this event). */
  #place(base: number, tag: number, id: number, units: Uint16Array, length: number): void {
    const cells = this.#cells;
    cells[base + ID] = id + 1;
    cells[base + LAST] = this.#event;
    cells[base + COUNT] = 1;
    let latin1 = length <= INLINE_UNITS;
    for (let i = 0; i < length && latin1; i++) latin1 = units[i]! < 0x100;
    cells[base] = latin1 ? tag | INLINED : tag;
    if (latin1) this.#cellBytes.set(units.subarray(0, length), (base + INLINE) * 4);
    else {
      cells[base + INLINE] = this.#arena.starts[id]!;
      cells[base + INLINE + 1] = length;
    }
  }

  /** The cell holding term `id`. */
  #cellOf(id: number): number {
    let cell = this.#arena.hashes[id]! & this.#mask;
    while (this.#cells[cell * CELL + ID] !== id + 1) cell = (cell + 1) & this.#mask;
    return cell * CELL;
  }

  /** Doubles the table, moving each cell whole to where its term's hash now leads. */
  #grow(): void {
    this.work.growths++;
    const old = this.#cells;
    const size = (this.#mask + 1) * 2;
    this.#cells = new Uint32Array(size * CELL);
    this.#cellBytes = new Uint8Array(this.#cells.buffer);
    this.#mask = size - 1;
    this.#limit = Math.floor(size * this.#load);
    for (let from = 0; from < old.length; from += CELL) {
      const id = old[from + ID]!;
      if (id === 0) continue;
      let cell = this.#arena.hashes[id - 1]! & this.#mask;
      while (this.#cells[cell * CELL + ID] !== 0) cell = (cell + 1) & this.#mask;
      this.#cells.set(old.subarray(from, from + CELL), cell * CELL);
    }
  }
}
