// Helpers of the search index's hash tables and typed arrays: FNV-1a, growing an array, rehashing a table, a list of ids.

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
