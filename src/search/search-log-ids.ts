// The event ids met in the log, numbered, as bytes in one array: the live put of each id without a string or a Map entry.
import { finishHash, FNV_OFFSET, FNV_PRIME, grown, rehashed } from './search-hash.js';

/** Ids (ASCII bytes) numbered 0, 1, 2… as first met, found again by an FNV-1a hash in an open-addressing table. */
export class ByteIds {
  #bytes = new Uint8Array(1 << 20);
  #used = 0;
  /** Where id i's bytes end (id i starts where id i - 1 ends). */
  #ends = new Uint32Array(1 << 14);
  #hashes = new Uint32Array(1 << 14);
  #count = 0;
  /** A hash and id + 1 per cell (0 for empty); at most half full. */
  #cells = new Uint32Array(1 << 16);
  /** Work done by `intern`, for tests: occupied cells probed, and ids compared byte by byte (the hashes were equal). */
  readonly work = { probes: 0, comparisons: 0 };

  get size(): number {
    return this.#count;
  }

  /** Bytes held by its arrays (ids, ends, hashes, cells), for tests of when each grows. */
  get allocated(): number {
    return this.#bytes.byteLength + this.#ends.byteLength + this.#hashes.byteLength + this.#cells.byteLength;
  }

  /** The number of the id spelt by `bytes[start, end)`, adding it the first time. */
  intern(bytes: Uint8Array, start: number, end: number): number {
    let hash = FNV_OFFSET;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME);
    hash = finishHash(hash);
    const cells = this.#cells;
    const mask = (cells.length >>> 1) - 1;
    let cell = hash & mask;
    for (let id = cells[2 * cell + 1]!; id !== 0; cell = (cell + 1) & mask, id = cells[2 * cell + 1]!) {
      this.work.probes++;
      if (cells[2 * cell] === hash && this.#equals(id - 1, bytes, start, end)) return id - 1;
    }
    if (this.#used + end - start > this.#bytes.length) this.#bytes = grown(this.#bytes, this.#used + end - start);
    if (this.#count === this.#ends.length) {
      this.#ends = grown(this.#ends, this.#count + 1);
      this.#hashes = grown(this.#hashes, this.#count + 1);
    }
    const id = this.#count++;
    // Copied byte by byte: a subarray to set from would be an object per id (a million at start-up).
    const own = this.#bytes;
    for (let i = start; i < end; i++) own[this.#used++] = bytes[i]!;
    this.#ends[id] = this.#used;
    this.#hashes[id] = hash;
    cells[2 * cell] = hash;
    cells[2 * cell + 1] = id + 1;
    if (this.#count * 4 > cells.length) this.#growCells();
    return id;
  }

  /** Copies the bytes of id `id` into `out` at `at`; returns where they end. */
  copyInto(id: number, out: Uint8Array, at: number): number {
    const own = this.#bytes;
    for (let i = id === 0 ? 0 : this.#ends[id - 1]!; i < this.#ends[id]!; i++) out[at++] = own[i]!;
    return at;
  }

  /** The length of id `id` in bytes. */
  length(id: number): number {
    return this.#ends[id]! - (id === 0 ? 0 : this.#ends[id - 1]!);
  }

  #equals(id: number, bytes: Uint8Array, start: number, end: number): boolean {
    this.work.comparisons++;
    const from = id === 0 ? 0 : this.#ends[id - 1]!;
    if (this.#ends[id]! - from !== end - start) return false;
    for (let i = 0; i < end - start; i++) if (this.#bytes[from + i] !== bytes[start + i]) return false;
    return true;
  }

  #growCells(): void {
    this.#cells = rehashed(this.#hashes, this.#count, this.#cells.length);
  }
}
