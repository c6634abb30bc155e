// Helpers of the search index's hash tables and typed arrays: a seeded FNV-1a, growing an array, rehashing a table, a list of ids.
import { randomBytes } from 'node:crypto';

/** The hash of the units `units[0, length)`: FNV-1a from this process's start, finished (see finishHash). */
export function hashUnits(units: Uint16Array, length: number): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < length; i++) hash = Math.imul(hash ^ units[i]!, FNV_PRIME);
  return finishHash(hash);
}

/**
 * FNV-1a's start, random for each process, and its multiplier (32 bits), for callers that hash a term while they read
 * it and finish it with finishHash. A fixed, public hash let a client choose words that all land in one place of the
 * dictionary's table (its low bits alone pick the place), each new one walking past all the others: a few 5 KB
 * requests froze the server for seconds, and the words stayed in the data.
 */
export let FNV_OFFSET = randomBytes(4).readUInt32LE(0);
export const FNV_PRIME = 0x01000193;

/**
 * A hash's final form: its bits mixed (murmur3's finish), so the low bits that pick a table's place depend on every
 * unit's every bit. FNV-1a's low k bits depend only on the low k bits of each unit: without this, words differing in
 * the high bits of their characters (CJK ones, say) would share a place whatever the start.
 */
export function finishHash(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

/** Uses `start` as FNV-1a's start: a worker building tables that this thread takes over must hash as it does. */
export function useHashStart(start: number): void {
  FNV_OFFSET = start >>> 0;
}

/** A copy of `array` with room for at least `length` elements, doubled at least. */
export function grown<T extends Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array>(array: T, length: number): T {
  const copy = new (array.constructor as new (length: number) => T)(Math.max(length, array.length * 2));
  copy.set(array);
  return copy;
}

let scratchUnits = new Uint16Array(256);

/** A shared buffer of at least `length` units (overwritten by the next caller). */
export function scratch(length: number): Uint16Array {
  if (scratchUnits.length < length) scratchUnits = new Uint16Array(Math.max(length, scratchUnits.length * 2));
  return scratchUnits;
}

/** Where a scan puts the term ids it reads: a TermList on the hot paths, any array elsewhere. */
export interface TermSink {
  length: number;
  push(id: number): unknown;
}

/**
 * A list of term ids whose buffer outlives being emptied (`length = 0`). An array's does not: V8 frees an array's
 * store when its length drops, and the next pushes allocate it again, a few times over as it grows. Once per event
 * of a start-up build, that was about 1.5 GB of garbage at 1,000,000 events (400 young collections in the worker).
 */
export class TermList implements TermSink {
  ids = new Uint32Array(64);
  length = 0;

  push(id: number): void {
    if (this.length === this.ids.length) this.ids = grown(this.ids, this.length + 1);
    this.ids[this.length++] = id;
  }
}

/**
 * The cells of an open-addressing table of `size` cells (a power of 2) holding ids [0, count) by their `hashes`,
 * two numbers a cell: the hash, and id + 1 (0 for empty).
 */
export function rehashed(hashes: Uint32Array, count: number, size: number): Uint32Array<ArrayBuffer> {
  const cells = new Uint32Array(2 * size);
  const mask = size - 1;
  for (let id = 0; id < count; id++) {
    let cell = hashes[id]! & mask;
    while (cells[2 * cell + 1] !== 0) cell = (cell + 1) & mask;
    cells[2 * cell] = hashes[id]!;
    cells[2 * cell + 1] = id + 1;
  }
  return cells;
}
