// Byte strings kept outside the JS heap: appended to large Buffers, each found again by a 32-bit reference, and
// those that repeat (a location, an organizer, a recurring description) stored once.

/** Bytes per chunk: a string never spans two. */
const CHUNK = 1024 * 1024;
/** With 32-bit references, 4,096 chunks (4 GiB) at most. */
export const MAX_CHUNKS = 2 ** 32 / CHUNK;
/** The longest string kept: longer ones (none the API accepts) are left to the caller. */
export const MAX_TEXT_BYTES = CHUNK - 8;

/**
 * What an arena's table has done, for the tests that pin it: a worse hash, or a skipped hash check, shows as more.
 * Counting costs an increment per cell looked at, next to a memory read.
 */
export interface ArenaWork {
  /** Occupied cells looked at: by intern() on its way to the string or to an empty cell, and by the table growing. */
  probes: number;
  /** Stored strings compared with one being interned (only where their hashes are equal). */
  comparisons: number;
}

/**
 * An append-only arena of byte strings. A reference is `chunk × CHUNK + offset` of a string's header (its
 * length as a varint) followed by its bytes. Interned strings are found by an FNV-1a hash in an open-addressing
 * table of references, compared byte for byte, so an equal string costs one reference instead of its bytes.
 */
export class TextArena {
  readonly #chunks: Buffer[] = [];
  #used = CHUNK;
  /** Open addressing: reference + 1 per cell (0: empty), and the hash of that string beside it. */
  #cells = new Uint32Array(1 << 12);
  #hashes = new Uint32Array(1 << 12);
  #interned = 0;
  readonly #maxChunks: number;
  /** The table's work so far (see ArenaWork). */
  readonly work: ArenaWork = { probes: 0, comparisons: 0 };

  /** `maxChunks` of 1 MiB at most: the 32-bit limit unless a test wants a smaller one. */
  constructor(maxChunks = MAX_CHUNKS) {
    this.#maxChunks = maxChunks;
  }

  /** Bytes held (headers included, the unused end of the last chunk not): 0 with no chunk, as #used starts full. */
  get bytes(): number {
    return (this.#chunks.length - 1) * CHUNK + this.#used;
  }

  /** Cells in the table of interned strings (8 bytes each): it doubles when more than half are in use. */
  get tableCells(): number {
    return this.#cells.length;
  }

  /** Appends `from[start, end)` and returns its reference, or -1 when it is too long or the arena is full. */
  append(from: Buffer, start: number, end: number): number {
    const length = end - start;
    if (length > MAX_TEXT_BYTES) return -1;
    const size = varintSize(length) + length;
    if (this.#used + size > CHUNK) {
      if (this.#chunks.length >= this.#maxChunks) return -1;
      this.#chunks.push(Buffer.allocUnsafeSlow(CHUNK));
      this.#used = 0;
    }
    const chunk = this.#chunks[this.#chunks.length - 1]!;
    const ref = (this.#chunks.length - 1) * CHUNK + this.#used;
    let pos = writeVarint(chunk, this.#used, length);
    if (length > 256) pos += from.copy(chunk, pos, start, end);
    // A plain loop for short strings, where Buffer#copy costs more to call than to copy.
    else for (let i = start; i < end; i++) chunk[pos++] = from[i]!;
    this.#used = pos;
    return ref;
  }

  /** The reference of a string equal to `from[start, end)`, appending it the first time; -1 as append. */
  intern(from: Buffer, start: number, end: number): number {
    const hash = sampleHash(from, start, end);
    const mask = this.#cells.length - 1;
    let cell = hash & mask;
    for (; this.#cells[cell] !== 0; cell = (cell + 1) & mask) {
      this.work.probes++;
      if (this.#hashes[cell] === hash && this.#equals(this.#cells[cell]! - 1, from, start, end)) return this.#cells[cell]! - 1;
    }
    const ref = this.append(from, start, end);
    if (ref < 0) return ref;
    this.#cells[cell] = ref + 1;
    this.#hashes[cell] = hash;
    if (++this.#interned * 2 > this.#cells.length) this.#growTable();
    return ref;
  }

  /** The string at `ref`, decoded as UTF-8 (or Latin-1, for text known to be ASCII). */
  text(ref: number, encoding: 'utf8' | 'latin1' = 'utf8'): string {
    const { chunk, pos, length } = this.#locate(ref);
    return chunk.toString(encoding, pos, pos + length);
  }

  #equals(ref: number, from: Buffer, start: number, end: number): boolean {
    this.work.comparisons++;
    const { chunk, pos, length } = this.#locate(ref);
    if (length !== end - start) return false;
    // Buffer#compare for a long string, a plain loop for a short one (cheaper than the call).
    if (length > SAMPLED) return from.compare(chunk, pos, pos + length, start, end) === 0;
    for (let i = start, at = pos; i < end; i++, at++) if (chunk[at] !== from[i]) return false;
    return true;
  }

  /** The chunk of the string at `ref`, where its bytes start there, and its length (read from its header). */
  #locate(ref: number): { chunk: Buffer; pos: number; length: number } {
    const chunk = this.#chunks[Math.floor(ref / CHUNK)]!;
    let pos = ref % CHUNK;
    let length = 0;
    for (let scale = 1; ; scale *= 0x80) {
      const byte = chunk[pos++]!;
      length += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
    }
    return { chunk, pos, length };
  }

  #growTable(): void {
    const cells = this.#cells;
    const hashes = this.#hashes;
    this.#cells = new Uint32Array(cells.length * 2);
    this.#hashes = new Uint32Array(cells.length * 2);
    const mask = this.#cells.length - 1;
    for (let i = 0; i < cells.length; i++) {
      if (cells[i] === 0) continue;
      let cell = hashes[i]! & mask;
      for (; this.#cells[cell] !== 0; cell = (cell + 1) & mask) this.work.probes++;
      this.#cells[cell] = cells[i]!;
      this.#hashes[cell] = hashes[i]!;
    }
  }
}

/** Bytes hashed at each end of a long string: its length and ends tell most strings apart, and equal ones are compared whole. */
const SAMPLED = 48;

/** FNV-1a of the length and the bytes of `from[start, end)`: all of them, or the first and last SAMPLED of a long one. */
function sampleHash(from: Buffer, start: number, end: number): number {
  let hash = Math.imul(0x811c9dc5 ^ (end - start), 0x01000193);
  // [start, head) and [tail, end): the whole of a string of 2 × SAMPLED bytes or fewer (tail = head), else its two ends.
  const head = Math.min(end, start + SAMPLED);
  const tail = Math.max(head, end - SAMPLED);
  for (let i = start; i < head; i++) hash = Math.imul(hash ^ from[i]!, 0x01000193);
  for (let i = tail; i < end; i++) hash = Math.imul(hash ^ from[i]!, 0x01000193);
  return hash >>> 0;
}

function varintSize(value: number): number {
  let size = 1;
  for (; value >= 0x80; value = Math.floor(value / 0x80)) size++;
  return size;
}

function writeVarint(buf: Buffer, pos: number, value: number): number {
  for (; value >= 0x80; value = Math.floor(value / 0x80)) buf[pos++] = (value & 0x7f) | 0x80;
  buf[pos++] = value;
  return pos;
}
