// The term dictionary of the search index: every folded word once, as UTF-16 units in one arena, numbered.
import { hashUnits, rehashed, scratch } from './search-hash.js';
import { TermArena } from './search-term-arena.js';

/** The first units of a term (two, or one and 0 for a one-unit term): the key of the bucket it sorts in. */
const bucketKey = (first: number, second: number): number => first * 0x10000 + second;

/** The term ids sharing their first two units, sorted (by their units) when a prefix lookup needs them. */
interface Bucket {
  ids: number[];
  sorted: boolean;
}

/** The arrays of a dictionary (SearchTerms.parts), without its buckets (rebuilt from them). */
export interface TermParts {
  units: Uint16Array<ArrayBuffer>;
  used: number;
  starts: Uint32Array<ArrayBuffer>;
  hashes: Uint32Array<ArrayBuffer>;
  count: number;
  cells: Uint32Array<ArrayBuffer>;
}

/** What a dictionary has done so far (SearchTerms.work): tests count it to pin the cheaper way, never time it. */
export interface TermsWork {
  /** Buckets a prefix lookup looked in. */
  bucketsRead: number;
  /** Units compared while sorting a bucket, filing a term in a sorted one and looking a prefix up (interning compares hashes first). */
  unitsCompared: number;
  /** Times the arena, the id arrays or the cell table grew. */
  growths: number;
}

/**
 * The dictionary behind `q`. A term is a number (0, 1, 2…, in the order first met); its units live in one
 * Uint16Array and it is found again by an FNV-1a hash in an open-addressing table of ids, so a term costs about
 * 2 bytes a unit and 16 bytes besides, against a Map entry and a string each. Looking a word up needs no string:
 * the scanner passes a buffer of units. Terms are never removed (a word no event holds has an empty posting): once
 * such words are most of them, the index moves to a compacted() copy.
 */
export class SearchTerms {
  /** The terms' units, starts and hashes. */
  readonly #arena = new TermArena();
  /** Open addressing: a term's hash and id + 1 per cell (0 for empty); at most half full. */
  #cells = new Uint32Array(1 << 14);
  readonly #buckets = new Map<number, Bucket>();
  /** The buckets of each first unit: where a one-unit prefix looks. */
  readonly #bucketsByFirst = new Map<number, Bucket[]>();
  /** The work done so far (see TermsWork). */
  readonly work: TermsWork = { bucketsRead: 0, unitsCompared: 0, growths: 0 };

  /** The dictionary's arrays, to hand to another thread (their buffers can be transferred): see fromParts. */
  parts(): TermParts {
    const { units, used, starts, hashes, count } = this.#arena;
    return { units, used, starts, hashes, count, cells: this.#cells };
  }

  /** The dictionary `parts` describes (made by another thread), taking its arrays as they are. */
  static fromParts(parts: TermParts): SearchTerms {
    const terms = new SearchTerms();
    Object.assign(terms.#arena, { units: parts.units, used: parts.used, starts: parts.starts, hashes: parts.hashes, count: parts.count });
    terms.#cells = parts.cells;
    for (let id = 0; id < parts.count; id++) terms.#file(id, false);
    return terms;
  }

  /** Distinct terms. */
  get size(): number {
    return this.#arena.count;
  }

  /** The id of the term spelt by `units[0, length)`, whose hashUnits is `hash`, adding it the first time. */
  intern(units: Uint16Array, length: number, hash = hashUnits(units, length)): number {
    // Each cell holds a term's hash beside its id + 1: a probe reads one place, and a term's units only when the hash matches.
    const cells = this.#cells;
    const mask = (cells.length >>> 1) - 1;
    let cell = hash & mask;
    for (let id = cells[2 * cell + 1]!; id !== 0; cell = (cell + 1) & mask, id = cells[2 * cell + 1]!) {
      if (cells[2 * cell] === hash && this.#equals(id - 1, units, length)) return id - 1;
    }
    const id = this.#append(units, length, hash);
    cells[2 * cell] = hash;
    cells[2 * cell + 1] = id + 1;
    if (this.#arena.count * 4 > cells.length) this.#growCells();
    return id;
  }

  /**
   * A dictionary of the terms `keep` accepts, in their order, and each term's id in it (-1: left out): how the index
   * forgets words no event holds any more (SearchIndex), since a term is never removed from a dictionary itself.
   */
  compacted(keep: (id: number) => boolean): { terms: SearchTerms; ids: Int32Array } {
    const terms = new SearchTerms();
    const { units, starts, hashes, count } = this.#arena;
    const ids = new Int32Array(count).fill(-1);
    for (let id = 0; id < count; id++) {
      if (!keep(id)) continue;
      const start = starts[id]!;
      const length = this.#end(id) - start;
      ids[id] = terms.intern(units.subarray(start, start + length), length, hashes[id]!);
    }
    return { terms, ids };
  }

  /** The id of `word`, adding it the first time. */
  internWord(word: string): number {
    const units = scratch(word.length);
    for (let i = 0; i < word.length; i++) units[i] = word.charCodeAt(i);
    return this.intern(units, word.length);
  }

  /** The term `id` as a string. */
  word(id: number): string {
    return String.fromCharCode(...this.#arena.units.subarray(this.#arena.starts[id]!, this.#end(id)));
  }

  /** The ids of every term starting with `prefix` (in the terms' order within each bucket of two first units). */
  startingWith(prefix: string): number[] {
    if (prefix.length === 0) return [];
    const first = prefix.charCodeAt(0);
    const buckets = prefix.length === 1 ? (this.#bucketsByFirst.get(first) ?? []) : [this.#buckets.get(bucketKey(first, prefix.charCodeAt(1)))];
    const out: number[] = [];
    for (const bucket of buckets) {
      if (bucket === undefined) continue;
      this.work.bucketsRead++;
      const ids = this.#sorted(bucket);
      let low = 0;
      let high = ids.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (this.#compareTo(ids[middle]!, prefix) < 0) low = middle + 1;
        else high = middle;
      }
      for (let at = low; at < ids.length && this.#startsWith(ids[at]!, prefix); at++) out.push(ids[at]!);
    }
    return out;
  }

  #end(id: number): number {
    return this.#arena.end(id);
  }

  #equals(id: number, units: Uint16Array, length: number): boolean {
    const start = this.#arena.starts[id]!;
    if (this.#end(id) - start !== length) return false;
    const own = this.#arena.units;
    for (let i = 0; i < length; i++) if (own[start + i] !== units[i]) return false;
    return true;
  }

  #append(units: Uint16Array, length: number, hash: number): number {
    const arena = this.#arena;
    const growths = arena.growths;
    const id = arena.append(units, length, hash);
    this.work.growths += arena.growths - growths;
    this.#file(id);
    return id;
  }

  /** Puts term `id` in the bucket of its first two units (in order when the bucket is sorted, unless `inOrder` is false). */
  #file(id: number, inOrder = true): void {
    const units = this.#arena.units;
    const start = this.#arena.starts[id]!;
    const key = bucketKey(units[start]!, this.#end(id) - start > 1 ? units[start + 1]! : 0);
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      // Sorted when a lookup first needs it: until then, filing a term is one push.
      bucket = { ids: [], sorted: false };
      this.#buckets.set(key, bucket);
      const siblings = this.#bucketsByFirst.get(units[start]!);
      if (siblings === undefined) this.#bucketsByFirst.set(units[start]!, [bucket]);
      else siblings.push(bucket);
    }
    if (!inOrder) bucket.sorted = false;
    if (!bucket.sorted) bucket.ids.push(id);
    else {
      // A sorted bucket (a lookup has needed it) stays sorted: one binary search and a move, not a sort per lookup.
      let low = 0;
      let high = bucket.ids.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (this.#compare(bucket.ids[middle]!, id) < 0) low = middle + 1;
        else high = middle;
      }
      bucket.ids.splice(low, 0, id);
    }
  }

  #sorted(bucket: Bucket): number[] {
    if (!bucket.sorted) {
      bucket.ids.sort((a, b) => this.#compare(a, b));
      bucket.sorted = true;
    }
    return bucket.ids;
  }

  /** The order of two terms by their units (as `<` orders strings). */
  #compare(a: number, b: number): number {
    const units = this.#arena.units;
    const [aStart, aEnd, bStart, bEnd] = [this.#arena.starts[a]!, this.#end(a), this.#arena.starts[b]!, this.#end(b)];
    const length = Math.min(aEnd - aStart, bEnd - bStart);
    for (let i = 0; i < length; i++) {
      this.work.unitsCompared++;
      const difference = units[aStart + i]! - units[bStart + i]!;
      if (difference !== 0) return difference;
    }
    return aEnd - aStart - (bEnd - bStart);
  }

  /** The order of term `id` against the string `word`. */
  #compareTo(id: number, word: string): number {
    const units = this.#arena.units;
    const start = this.#arena.starts[id]!;
    const length = this.#end(id) - start;
    const shorter = Math.min(length, word.length);
    for (let i = 0; i < shorter; i++) {
      this.work.unitsCompared++;
      const difference = units[start + i]! - word.charCodeAt(i);
      if (difference !== 0) return difference;
    }
    return length - word.length;
  }

  #startsWith(id: number, prefix: string): boolean {
    const start = this.#arena.starts[id]!;
    if (this.#end(id) - start < prefix.length) return false;
    for (let i = 0; i < prefix.length; i++) {
      this.work.unitsCompared++;
      if (this.#arena.units[start + i] !== prefix.charCodeAt(i)) return false;
    }
    return true;
  }

  #growCells(): void {
    this.#cells = rehashed(this.#arena.hashes, this.#arena.count, this.#cells.length);
    this.work.growths++;
  }
}
