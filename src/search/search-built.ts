// A search index built away from the main thread (at start-up, from the log's bytes), in arrays that move between
// threads without a copy: its dictionary, its packed postings, and the events it holds, in the order of its slots.
import { MessageChannel } from 'node:worker_threads';
import { SlotBitmap } from './search-postings.js';
import type { PackedPostings } from './search-posting-table.js';
import type { TermParts } from './search-terms.js';

/** What a build from the log hands the main thread (see SearchIndex.adoptBuilt). */
export interface BuiltSearch {
  terms: TermParts;
  /** The packed runs: term t's slots are `slots[offsets[t], offsets[t + 1])`. */
  offsets: Uint32Array;
  slots: Uint32Array;
  /** The frequent terms, each with a bitmap of `bitmapWords.length / bitmapTerms.length` words in `bitmapWords`. */
  bitmapTerms: Uint32Array;
  bitmapCounts: Uint32Array;
  bitmapWords: Uint32Array;
  /** The event in each slot: its id (Latin-1 bytes, slot s's end at idEnds[s]) and the seq of the put line read. */
  ids: Uint8Array;
  idEnds: Uint32Array;
  putSeqs: Float64Array;
  /** Bytes of the log read: up to the end of its last whole line. */
  logLength: number;
}

/** The built search of `terms` and `packed` for the events named by `ids`, `idEnds` and `putSeqs` (one per slot). */
export function builtSearch(terms: { parts(): TermParts }, packed: PackedPostings, events: Pick<BuiltSearch, 'ids' | 'idEnds' | 'putSeqs' | 'logLength'>): BuiltSearch {
  const words = (events.putSeqs.length + 31) >>> 5;
  const bitmapTerms = new Uint32Array(packed.bitmaps.size);
  const bitmapCounts = new Uint32Array(packed.bitmaps.size);
  const bitmapWords = new Uint32Array(packed.bitmaps.size * words);
  let at = 0;
  for (const [term, bitmap] of packed.bitmaps) {
    bitmapTerms[at] = term;
    bitmapCounts[at] = bitmap.count;
    bitmapWords.set(bitmap.words.subarray(0, words), at * words);
    at++;
  }
  return { terms: terms.parts(), offsets: packed.offsets, slots: packed.slots, bitmapTerms, bitmapCounts, bitmapWords, ...events };
}

/** A typed array of a build. */
type Kept = Uint8Array | Uint16Array | Uint32Array | Float64Array;

/**
 * `built` with its arrays copied into two buffers, one for what the index keeps and one for the ids and seqs
 * (dropped once matched): what a worker sends (see transferablesOf). Each array keeps its length, but only its
 * part in use is copied (a dictionary's room to grow stays zero pages, never written, so never resident). Why:
 * arrays a worker made piece by piece lie in its thread's malloc arena among the garbage of the build; once
 * transferred, each pins the arena's pages around it in RSS after the worker is gone (+37 % instead of +20 % at
 * 1,000,000 events). Two buffers each of its own mapping leave nothing of the worker's arena alive.
 */
export function compacted(built: BuiltSearch): BuiltSearch {
  const { terms } = built;
  const kept = new Packer([
    [terms.units, terms.used],
    [terms.starts, terms.count],
    [terms.hashes, terms.count],
    [terms.cells, terms.cells.length],
    [built.offsets, built.offsets.length],
    [built.slots, built.slots.length],
    [built.bitmapTerms, built.bitmapTerms.length],
    [built.bitmapCounts, built.bitmapCounts.length],
    [built.bitmapWords, built.bitmapWords.length],
  ]);
  const events = new Packer([
    [built.putSeqs, built.putSeqs.length],
    [built.idEnds, built.idEnds.length],
    [built.ids, built.ids.length],
  ]);
  return {
    terms: { units: kept.next(), used: terms.used, starts: kept.next(), hashes: kept.next(), count: terms.count, cells: kept.next() },
    offsets: kept.next(),
    slots: kept.next(),
    bitmapTerms: kept.next(),
    bitmapCounts: kept.next(),
    bitmapWords: kept.next(),
    putSeqs: events.next(),
    idEnds: events.next(),
    ids: events.next(),
    logLength: built.logLength,
  };
}

/** Copies arrays (the first `used` elements of each) into one new buffer (see MAPPED_ALONE), each at a multiple of 8 bytes, handed out in order by next(). */
class Packer {
  readonly #arrays: readonly (readonly [Kept, number])[];
  readonly #buffer: ArrayBuffer;
  #at = 0;
  #offset = 0;

  constructor(arrays: readonly (readonly [Kept, number])[]) {
    this.#arrays = arrays;
    let bytes = 0;
    for (const [array] of arrays) bytes += padded(array.byteLength);
    this.#buffer = new ArrayBuffer(Math.max(bytes, MAPPED_ALONE));
  }

  /** The next array's copy. */
  next<T extends Kept>(): T {
    const [array, used] = this.#arrays[this.#at++]!;
    const copy = new (array.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => T)(this.#buffer, this.#offset, array.length);
    copy.set(array.subarray(0, used));
    this.#offset += padded(array.byteLength);
    return copy;
  }
}

const padded = (bytes: number): number => Math.ceil(bytes / 8) * 8;

/**
 * The least length of each buffer: glibc's malloc maps a block this large on its own whatever its threshold (raised
 * up to 32 MiB as blocks are freed), so a small build's buffers never land in the worker's arena either. The length
 * beyond what is copied is pages never written: address space, not RSS.
 */
const MAPPED_ALONE = 32 * 1024 * 1024 + 4096;

/** The buffers of `built`, to transfer (not copy) with postMessage. */
export function transferablesOf(built: BuiltSearch): ArrayBuffer[] {
  const arrays = [...keptArrays(built), built.ids, built.idEnds, built.putSeqs];
  return [...new Set(arrays.map((array) => array.buffer as ArrayBuffer))];
}

/** The packed postings of `built`, its bitmaps sharing its words. */
export function packedOf(built: BuiltSearch): PackedPostings {
  const bitmaps = new Map<number, SlotBitmap>();
  const words = built.bitmapTerms.length === 0 ? 0 : built.bitmapWords.length / built.bitmapTerms.length;
  for (let at = 0; at < built.bitmapTerms.length; at++) {
    const bitmap = new SlotBitmap();
    bitmap.words = built.bitmapWords.subarray(at * words, (at + 1) * words);
    bitmap.count = built.bitmapCounts[at]!;
    bitmaps.set(built.bitmapTerms[at]!, bitmap);
  }
  return { offsets: built.offsets, slots: built.slots, bitmaps };
}

/**
 * Drops the arrays of `built` that only match it to the replayed events (its ids and seqs, 38 bytes an event), once
 * matched: whoever still holds `built` (a settled promise) then holds only what the index holds anyway. Their
 * buffer, when they have one of their own (as `compacted` gives them), is freed now rather than at the next
 * garbage collection, which may come long after the start (36 MiB of RSS at 1,000,000 events): see freeNow.
 */
export function releaseEvents(built: BuiltSearch): void {
  const own = built.ids.buffer;
  const shared = own !== built.idEnds.buffer || own !== built.putSeqs.buffer || keptArrays(built).some((array) => array.buffer === own);
  built.ids = new Uint8Array(0);
  built.idEnds = new Uint32Array(0);
  built.putSeqs = new Float64Array(0);
  if (!shared) freeNow(own as ArrayBuffer);
}

/** The arrays of `built` that the index keeps (all but the ids and seqs). */
function keptArrays(built: BuiltSearch): Kept[] {
  const { terms } = built;
  return [terms.units, terms.starts, terms.hashes, terms.cells, built.offsets, built.slots, built.bitmapTerms, built.bitmapCounts, built.bitmapWords];
}

/**
 * Detaches `buffer` (every view of it reads as empty from then on) and frees its memory within a turn of the event
 * loop, without waiting for the garbage collector: it is transferred into a channel whose two ports are closed, which
 * drops the message holding it. (`ArrayBuffer.prototype.transfer` would do, but Node 20 lacks it.)
 */
export function freeNow(buffer: ArrayBuffer): void {
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(null, [buffer]);
  port1.close();
  port2.close();
}
