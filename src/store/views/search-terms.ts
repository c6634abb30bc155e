// The term dictionary of the search index: every folded word once, as UTF-16 units in one arena, numbered.

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

/**
 * The dictionary behind `q`. A term is a number (0, 1, 2…, in the order first met); its units live in one
 * Uint16Array and it is found again by an FNV-1a hash in an open-addressing table of ids, so a term costs about
 * 2 bytes a unit and 16 bytes besides, against a Map entry and a string each. Looking a word up needs no string:
 * the scanner passes a buffer of units. Terms are never removed (a word no event holds has an empty posting).
 */
export class SearchTerms {
  #units = new Uint16Array(1 << 16);
  #used = 0;
  /** Where term i's units start; term i ends where term i + 1 starts (or at #used for the last). */
  #starts = new Uint32Array(1 << 12);
  #hashes = new Uint32Array(1 << 12);
  #count = 0;
  /** Open addressing: term id + 1 per cell, 0 for empty; at most half full. */
  #cells = new Uint32Array(1 << 13);
  readonly #buckets = new Map<number, Bucket>();
  /** The buckets of each first unit: where a one-unit prefix looks. */
  readonly #bucketsByFirst = new Map<number, Bucket[]>();

  /** The dictionary's arrays, to hand to another thread (their buffers can be transferred): see fromParts. */
  parts(): TermParts {
    return { units: this.#units, used: this.#used, starts: this.#starts, hashes: this.#hashes, count: this.#count, cells: this.#cells };
  }

  /** The dictionary `parts` describes (made by another thread), taking its arrays as they are. */
  static fromParts(parts: TermParts): SearchTerms {
    const terms = new SearchTerms();
    terms.#units = parts.units;
    terms.#used = parts.used;
    terms.#starts = parts.starts;
    terms.#hashes = parts.hashes;
    terms.#count = parts.count;
    terms.#cells = parts.cells;
    for (let id = 0; id < parts.count; id++) terms.#file(id, false);
    return terms;
  }

  /** Distinct terms. */
  get size(): number {
    return this.#count;
  }

  /** The id of the term spelt by `units[0, length)`, whose hashUnits is `hash`, adding it the first time. */
  intern(units: Uint16Array, length: number, hash = hashUnits(units, length)): number {
    const mask = this.#cells.length - 1;
    let cell = hash & mask;
    for (let id = this.#cells[cell]!; id !== 0; cell = (cell + 1) & mask, id = this.#cells[cell]!) {
      if (this.#hashes[id - 1] === hash && this.#equals(id - 1, units, length)) return id - 1;
    }
    const id = this.#append(units, length, hash);
    this.#cells[cell] = id + 1;
    if (this.#count * 2 > this.#cells.length) this.#growCells();
    return id;
  }

  /** The id of `word`, adding it the first time. */
  internWord(word: string): number {
    const units = scratch(word.length);
    for (let i = 0; i < word.length; i++) units[i] = word.charCodeAt(i);
    return this.intern(units, word.length);
  }

  /** The term `id` as a string. */
  word(id: number): string {
    return String.fromCharCode(...this.#units.subarray(this.#starts[id]!, this.#end(id)));
  }

  /** The ids of every term starting with `prefix` (in the terms' order within each bucket of two first units). */
  startingWith(prefix: string): number[] {
    if (prefix.length === 0) return [];
    const first = prefix.charCodeAt(0);
    const buckets = prefix.length === 1 ? (this.#bucketsByFirst.get(first) ?? []) : [this.#buckets.get(bucketKey(first, prefix.charCodeAt(1)))];
    const out: number[] = [];
    for (const bucket of buckets) {
      if (bucket === undefined) continue;
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
    return id + 1 < this.#count ? this.#starts[id + 1]! : this.#used;
  }

  #equals(id: number, units: Uint16Array, length: number): boolean {
    const start = this.#starts[id]!;
    if (this.#end(id) - start !== length) return false;
    const own = this.#units;
    for (let i = 0; i < length; i++) if (own[start + i] !== units[i]) return false;
    return true;
  }

  #append(units: Uint16Array, length: number, hash: number): number {
    if (this.#used + length > this.#units.length) this.#units = grown(this.#units, this.#used + length);
    if (this.#count === this.#starts.length) {
      this.#starts = grown(this.#starts, this.#count + 1);
      this.#hashes = grown(this.#hashes, this.#count + 1);
    }
    const id = this.#count++;
    this.#starts[id] = this.#used;
    this.#hashes[id] = hash;
    this.#units.set(units.subarray(0, length), this.#used);
    this.#used += length;
    this.#file(id);
    return id;
  }

  /** Puts term `id` in the bucket of its first two units (in order when the bucket is sorted, unless `inOrder` is false). */
  #file(id: number, inOrder = true): void {
    const units = this.#units;
    const start = this.#starts[id]!;
    const key = bucketKey(units[start]!, this.#end(id) - start > 1 ? units[start + 1]! : 0);
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { ids: [], sorted: true };
      this.#buckets.set(key, bucket);
      const siblings = this.#bucketsByFirst.get(units[start]!);
      if (siblings === undefined) this.#bucketsByFirst.set(units[start]!, [bucket]);
      else siblings.push(bucket);
    }
    if (!inOrder) bucket.sorted = false;
    if (!bucket.sorted || bucket.ids.length === 0) bucket.ids.push(id);
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
    const units = this.#units;
    const [aStart, aEnd, bStart, bEnd] = [this.#starts[a]!, this.#end(a), this.#starts[b]!, this.#end(b)];
    const length = Math.min(aEnd - aStart, bEnd - bStart);
    for (let i = 0; i < length; i++) {
      const difference = units[aStart + i]! - units[bStart + i]!;
      if (difference !== 0) return difference;
    }
    return aEnd - aStart - (bEnd - bStart);
  }

  /** The order of term `id` against the string `word`. */
  #compareTo(id: number, word: string): number {
    const units = this.#units;
    const start = this.#starts[id]!;
    const length = this.#end(id) - start;
    const shorter = Math.min(length, word.length);
    for (let i = 0; i < shorter; i++) {
      const difference = units[start + i]! - word.charCodeAt(i);
      if (difference !== 0) return difference;
    }
    return length - word.length;
  }

  #startsWith(id: number, prefix: string): boolean {
    const start = this.#starts[id]!;
    if (this.#end(id) - start < prefix.length) return false;
    for (let i = 0; i < prefix.length; i++) if (this.#units[start + i] !== prefix.charCodeAt(i)) return false;
    return true;
  }

  #growCells(): void {
    const cells = new Uint32Array(this.#cells.length * 2);
    const mask = cells.length - 1;
    for (let id = 0; id < this.#count; id++) {
      let cell = this.#hashes[id]! & mask;
      while (cells[cell] !== 0) cell = (cell + 1) & mask;
      cells[cell] = id + 1;
    }
    this.#cells = cells;
  }
}

/** FNV-1a of the units `units[0, length)`. */
export function hashUnits(units: Uint16Array, length: number): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < length; i++) hash = Math.imul(hash ^ units[i]!, FNV_PRIME);
  return hash >>> 0;
}

/** FNV-1a's start and multiplier (32 bits), for callers that hash a term while they read it. */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** A copy of `array` with room for at least `length` elements, doubled at least. */
export function grown<T extends Uint16Array | Uint32Array | Int32Array | Float64Array>(array: T, length: number): T {
  const copy = new (array.constructor as new (length: number) => T)(Math.max(length, array.length * 2));
  copy.set(array);
  return copy;
}

let scratchUnits = new Uint16Array(256);

/** A shared buffer of at least `length` units (overwritten by the next caller). */
function scratch(length: number): Uint16Array {
  if (scratchUnits.length < length) scratchUnits = new Uint16Array(Math.max(length, scratchUnits.length * 2));
  return scratchUnits;
}
