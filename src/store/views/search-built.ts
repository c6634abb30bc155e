// A search index built away from the main thread (at start-up, from the log's bytes), in arrays that move between
// threads without a copy: its dictionary, its packed postings, and the events it holds, in the order of its slots.
import { SlotBitmap } from './search-postings.js';
import type { PackedPostings } from './search-posting-table.js';
import type { SearchTerms, TermParts } from './search-terms.js';

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
export function builtSearch(terms: SearchTerms, packed: PackedPostings, events: Pick<BuiltSearch, 'ids' | 'idEnds' | 'putSeqs' | 'logLength'>): BuiltSearch {
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

/** The buffers of `built`, to transfer (not copy) with postMessage. */
export function transferablesOf(built: BuiltSearch): ArrayBuffer[] {
  const { terms } = built;
  const arrays = [terms.units, terms.starts, terms.hashes, terms.cells, built.offsets, built.slots, built.bitmapTerms, built.bitmapCounts, built.bitmapWords, built.ids, built.idEnds, built.putSeqs];
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
 * matched: whoever still holds `built` (a settled promise) then holds only what the index holds anyway.
 */
export function releaseEvents(built: BuiltSearch): void {
  built.ids = new Uint8Array(0);
  built.idEnds = new Uint32Array(0);
  built.putSeqs = new Float64Array(0);
}
