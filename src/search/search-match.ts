// The events matching every word of a query (`q`), from the postings of the terms each word starts.
import type { StoredEvent } from '../events/event.js';
import { searchWords } from './search-words.js';
import { searchTextOf } from './event-search-text.js';
import type { PostingTable } from './search-posting-table.js';
import { type Posting, postingHas, postingOrInto, postingPushInto, postingSize, SlotBitmap } from './search-postings.js';
import type { SearchTerms } from './search-terms.js';
import { runAtOnce, type Steps } from '../lib/loop-turns.js';

/** The events matching every word of a query: a few slots sorted, or a bitmap when there are many. */
export type SlotSet = { slots: number[] } | { bitmap: SlotBitmap };

/** What the matcher reads of the index. */
export interface MatchSource {
  readonly terms: SearchTerms;
  readonly postings: PostingTable;
  readonly capacity: number;
  eventAt(slot: number): StoredEvent | undefined;
  /** Grows with every change of a posting (the cached unions are then stale). */
  readonly postingsVersion: number;
}

/** A first query word in fewer events than this gives a list of slots, which the other words then filter. */
const FEW_SLOTS = 64;
/** Unions of query words kept (each a bitmap of capacity / 8 bytes: 125 KiB at 1,000,000 events). */
const UNIONS_KEPT = 8;
/** Terms, postings or slots handled between two steps of matchSteps (a prefix such as `1` starts 100,000 terms). */
const PER_STEP = 2048;

/**
 * What a WordMatcher has done since it was made: the tests hold it to the cheapest way (as TextArena.work does),
 * since a dearer way gives the same slots.
 */
export interface MatchWork {
  /** Slots listed from the postings of a first word in few events. */
  listed: number;
  /** Passes filtering those slots by another word: against its postings, by each slot's own text, against its union. */
  byPosting: number;
  byText: number;
  byUnion: number;
  /** Unions of a word's postings made (not found among those kept). */
  unions: number;
  /** Slots of the postings or-ed into those unions; bitmaps copied whole; bitmaps counted again bit by bit. */
  ored: number;
  copies: number;
  recounts: number;
}

interface Candidate {
  word: string;
  postings: Posting[];
  size: number;
}

/** Answers `match` over a search index, keeping the unions of the query words asked lately. */
export class WordMatcher {
  readonly #source: MatchSource;
  /** Unions of query words' postings (see #wordUnion), good while the postings' version is still #unionsVersion. */
  readonly #unions = new Map<string, SlotBitmap>();
  #unionsVersion = -1;
  /** The work done so far (see MatchWork). */
  readonly work: MatchWork = { listed: 0, byPosting: 0, byText: 0, byUnion: 0, unions: 0, ored: 0, copies: 0, recounts: 0 };

  constructor(source: MatchSource) {
    this.#source = source;
  }

  /** The slots of the events in which each of `words` (folded, from queryWords) starts some word. */
  match(words: readonly string[]): SlotSet {
    return runAtOnce(this.matchSteps(words));
  }

  /**
   * match() in steps of PER_STEP terms, postings or slots (see runInSlices): the steps read the postings as they are
   * at each step, so they are run at once or their answer is thrown away when a posting changed between two steps.
   */
  *matchSteps(words: readonly string[]): Steps<SlotSet> {
    const { terms, postings: table, capacity } = this.#source;
    const candidates: Candidate[] = [];
    for (const word of words) {
      const postings: Posting[] = [];
      let size = 0;
      const starting = terms.startingWith(word);
      for (let at = 0; at < starting.length; at++) {
        const posting = table.get(starting[at]!);
        if (posting !== undefined) {
          postings.push(posting);
          size += postingSize(posting);
        }
        if (at % PER_STEP === PER_STEP - 1) yield;
      }
      candidates.push({ word, postings, size });
      yield;
    }
    candidates.sort((a, b) => a.size - b.size);
    const [first, ...rest] = candidates;
    if (first === undefined || first.size === 0) return { slots: [] };
    if (first.size <= FEW_SLOTS || first.size * 64 < capacity) {
      let slots: number[] = [];
      for (const posting of first.postings) postingPushInto(posting, slots);
      this.work.listed += slots.length;
      slots = [...new Set(slots)].sort((a, b) => a - b);
      for (const other of rest) {
        slots = this.#keepMatching(slots, other);
        yield;
      }
      return { slots };
    }
    const union = yield* this.#wordUnion(first);
    if (rest.length === 0) return { bitmap: union };
    const bitmap = union.copy();
    this.work.copies++;
    for (const other of rest) bitmap.intersect(yield* this.#wordUnion(other));
    return { bitmap };
  }

  /**
   * The slots of `slots` where `other.word` starts a word, by the cheapest check: each slot against each posting
   * of the prefix (a bit test or a binary search), each slot's own text split again, or one union of the postings.
   * The weights are rough costs in bit sets: a posting check ~8, splitting a text ~1,000, a union 1 per slot.
   */
  #keepMatching(slots: number[], other: Candidate): number[] {
    const byPosting = slots.length * other.postings.length * 8;
    const byText = slots.length * 1000;
    const byUnion = other.size + (this.#source.capacity >>> 5);
    if (byPosting <= byText && byPosting <= byUnion) {
      this.work.byPosting++;
      return slots.filter((slot) => other.postings.some((posting) => postingHas(posting, slot)));
    }
    if (byText <= byUnion) {
      this.work.byText++;
      return slots.filter((slot) => searchTextOf(this.#source.eventAt(slot)!).some((text) => searchWords(text).some((word) => word.startsWith(other.word))));
    }
    this.work.byUnion++;
    const bitmap = runAtOnce(this.#wordUnion(other));
    return slots.filter((slot) => bitmap.has(slot));
  }

  /**
   * The union of a query word's postings, from the unions asked lately while no posting has changed since: a
   * common prefix stands for many words (one of 4 letters starts 60 in the bench's text), and a search box asks
   * for the same few again and again. Shared: callers read it, never change it.
   */
  *#wordUnion(candidate: { word: string; postings: Posting[] }): Steps<SlotBitmap> {
    const version = this.#source.postingsVersion;
    if (this.#unionsVersion !== version) {
      this.#unions.clear();
      this.#unionsVersion = version;
    }
    let union = this.#unions.get(candidate.word);
    if (union === undefined) {
      this.work.unions++;
      union = yield* this.#union(candidate.postings);
      if (this.#unions.size >= UNIONS_KEPT) this.#unions.delete(this.#unions.keys().next().value as string);
      this.#unions.set(candidate.word, union);
    }
    return union;
  }

  /** One bitmap of the slots of `postings`: the posting itself when it is the only one and a bitmap. */
  *#union(postings: readonly Posting[]): Steps<SlotBitmap> {
    const only = postings[0];
    if (postings.length === 1 && only instanceof SlotBitmap) return only;
    // Start from a copy of the largest bitmap (a common prefix is mostly one common word), then add the rest:
    // bare slots and arrays keep the count, another bitmap's words need a recount at the end.
    let largest: SlotBitmap | undefined;
    for (const posting of postings) if (posting instanceof SlotBitmap && (largest === undefined || posting.count > largest.count)) largest = posting;
    let bitmap: SlotBitmap;
    if (largest === undefined) bitmap = new SlotBitmap(this.#source.capacity);
    else {
      bitmap = largest.copy();
      this.work.copies++;
    }
    let recount = false;
    for (let at = 0; at < postings.length; at++) {
      const posting = postings[at]!;
      if (at % PER_STEP === PER_STEP - 1) yield;
      if (posting === largest) continue;
      postingOrInto(posting, bitmap);
      this.work.ored += postingSize(posting);
      recount ||= posting instanceof SlotBitmap;
    }
    if (recount) {
      bitmap.recount();
      this.work.recounts++;
    }
    return bitmap;
  }
}
