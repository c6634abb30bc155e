// The word-prefix index behind `q` (API.md §5): each live event has a slot; each folded word, the slots holding it.
import { CATEGORIES, type Category, type StoredEvent } from '../../events/event.js';
import { searchWords } from '../../lib/search-words.js';
import { sameSearchText, searchTextOf } from './event-search-text.js';
import { type Posting, postingAdd, postingHas, postingOrInto, postingPushInto, postingRemove, postingSize, SlotBitmap } from './search-postings.js';
import { SearchVocabulary } from './search-vocabulary.js';

/** The UTC month of an instant, as `year * 12 + month - 1`. */
export function monthOf(ms: number): number {
  const date = new Date(ms);
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}

/** The first instant of a month given as monthOf gives it. */
export function monthStart(month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(Math.floor(month / 12), month % 12, 1);
  return date.getTime();
}

/** The events matching every word of a query: a few slots sorted, or a bitmap when there are many. */
export type SlotSet = { slots: number[] } | { bitmap: SlotBitmap };

/** A first query word in fewer events than this gives a list of slots, which the other words then filter. */
const FEW_SLOTS = 64;
/** Equal texts (a series' description, an organizer's name) are split into words once, while they are this many. */
const TEXT_CACHE_SIZE = 1024;
/** Longer texts are not kept in that cache (it would hold up to 5,000 characters per description). */
const TEXT_CACHE_MAX_LENGTH = 1000;

/**
 * Slots and postings of every live event, fed by the event index on each put and delete (the single writer), so
 * a write is found by `q` as soon as it is visible. Slots of deleted events are reused, which keeps bitmaps as
 * long as the most events ever live at once.
 */
export class SearchIndex {
  readonly #vocabulary = new SearchVocabulary();
  readonly #slotOf = new Map<string, number>();
  readonly #events: (StoredEvent | undefined)[] = [];
  readonly #freeSlots: number[] = [];
  readonly #byCategory = new Map<Category, SlotBitmap>(CATEGORIES.map((category) => [category, new SlotBitmap()]));
  readonly #textWords = new Map<string, string[]>();
  /** The slots of the events starting in each UTC month (`year * 12 + month - 1`), to count a date window's matches by bitmaps. */
  readonly #months = new Map<number, Posting>();

  /** Events of the bulk load still to index (undefined once all are), and where the next step starts. */
  #pending: StoredEvent[] | undefined;
  #pendingAt = 0;

  /**
   * Takes the events of a bulk load to index them step by step (buildSome), so a start with many events can
   * listen first. Until `ready`, lists answer `q` without the index; puts and deletes are indexed at once.
   */
  constructor(events: Iterable<StoredEvent> = []) {
    const pending = [...events];
    this.#pending = pending.length === 0 ? undefined : pending;
  }

  /** True once every event of the bulk load is indexed: from then on `match` answers. */
  get ready(): boolean {
    return this.#pending === undefined;
  }

  /** While not ready: how far the build is, as `indexed of total` events of the bulk load. */
  get progress(): { indexed: number; total: number } {
    return { indexed: this.#pendingAt, total: this.#pending?.length ?? this.#pendingAt };
  }

  /**
   * Indexes up to `count` more events of the bulk load; `isCurrent` tells whether one is still the live state
   * (one written or deleted since was indexed, or dropped, by that write). Returns `ready`.
   */
  buildSome(count: number, isCurrent: (stored: StoredEvent) => boolean): boolean {
    const pending = this.#pending;
    if (pending === undefined) return true;
    const end = Math.min(pending.length, this.#pendingAt + count);
    for (; this.#pendingAt < end; this.#pendingAt++) {
      const stored = pending[this.#pendingAt]!;
      if (!this.#slotOf.has(stored.id) && isCurrent(stored)) this.put(stored, undefined);
    }
    if (end === pending.length) this.#pending = undefined;
    return this.ready;
  }

  /** Slots in use or free: the length of every bitmap. */
  get capacity(): number {
    return this.#events.length;
  }

  /** The event in `slot`, if live. */
  eventAt(slot: number): StoredEvent | undefined {
    return this.#events[slot];
  }

  /** The slot of a live event. */
  slotOf(id: string): number | undefined {
    return this.#slotOf.get(id);
  }

  /** The slots of each category's live events. */
  categoryBitmap(category: Category): SlotBitmap {
    return this.#byCategory.get(category)!;
  }

  /** Indexes `stored`, which replaces `previous` (the same id's former state, indexed or not yet), if any. */
  put(stored: StoredEvent, previous: StoredEvent | undefined): void {
    let slot = this.#slotOf.get(stored.id);
    if (slot === undefined || previous === undefined) {
      if (slot !== undefined) this.delete(this.#events[slot]!);
      slot = this.#freeSlots.pop() ?? this.#events.length;
      this.#slotOf.set(stored.id, slot);
      this.#events[slot] = stored;
      this.categoryBitmap(stored.category).add(slot);
      this.#moveMonth(slot, undefined, stored.startMs);
      for (const word of this.#wordsOf(stored)) this.#add(word, slot);
      return;
    }
    this.#events[slot] = stored;
    if (previous.category !== stored.category) {
      this.categoryBitmap(previous.category).remove(slot);
      this.categoryBitmap(stored.category).add(slot);
    }
    this.#moveMonth(slot, previous.startMs, stored.startMs);
    if (sameSearchText(previous, stored)) return;
    const before = new Set(this.#wordsOf(previous));
    const after = new Set(this.#wordsOf(stored));
    for (const word of before) if (!after.has(word)) this.#remove(word, slot);
    for (const word of after) if (!before.has(word)) this.#add(word, slot);
  }

  /** Drops a live event from the index. */
  delete(stored: StoredEvent): void {
    const slot = this.#slotOf.get(stored.id);
    if (slot === undefined) return;
    for (const word of new Set(this.#wordsOf(this.#events[slot]!))) this.#remove(word, slot);
    this.categoryBitmap(this.#events[slot]!.category).remove(slot);
    this.#moveMonth(slot, this.#events[slot]!.startMs, undefined);
    this.#slotOf.delete(stored.id);
    this.#events[slot] = undefined;
    this.#freeSlots.push(slot);
  }

  /** The slots of the events starting in UTC month `month` (`year * 12 + month - 1`; see monthOf). */
  monthPosting(month: number): Posting | undefined {
    return this.#months.get(month);
  }

  /** The months that hold events, ascending. */
  months(): number[] {
    return [...this.#months.keys()].sort((a, b) => a - b);
  }

  #moveMonth(slot: number, fromMs: number | undefined, toMs: number | undefined): void {
    const from = fromMs === undefined ? undefined : monthOf(fromMs);
    const to = toMs === undefined ? undefined : monthOf(toMs);
    if (from === to) return;
    if (from !== undefined) {
      const left = postingRemove(this.#months.get(from)!, slot, this.capacity);
      if (left === undefined) this.#months.delete(from);
      else this.#months.set(from, left);
    }
    if (to !== undefined) this.#months.set(to, postingAdd(this.#months.get(to), slot, this.capacity));
  }

  /** The slots of the events in which each of `words` (folded, from queryWords) starts some word. */
  match(words: readonly string[]): SlotSet {
    const candidates = words.map((word) => {
      const postings = this.#vocabulary.postingsStartingWith(word);
      let size = 0;
      for (const posting of postings) size += postingSize(posting);
      return { word, postings, size };
    });
    candidates.sort((a, b) => a.size - b.size);
    const [first, ...rest] = candidates;
    if (first === undefined || first.size === 0) return { slots: [] };
    if (first.size <= FEW_SLOTS || first.size * 64 < this.capacity) {
      let slots: number[] = [];
      for (const posting of first.postings) postingPushInto(posting, slots);
      slots = [...new Set(slots)].sort((a, b) => a - b);
      for (const other of rest) slots = this.#keepMatching(slots, other);
      return { slots };
    }
    const bitmap = this.#union(first.postings, true);
    for (const other of rest) bitmap.intersect(this.#union(other.postings));
    return { bitmap };
  }

  /**
   * The slots of `slots` where `other.word` starts a word, by the cheapest check: each slot against each posting
   * of the prefix (a bit test or a binary search), each slot's own text split again, or one union of the postings.
   * The weights are rough costs in bit sets: a posting check ~8, splitting a text ~1,000, a union 1 per slot.
   */
  #keepMatching(slots: number[], other: { word: string; postings: Posting[]; size: number }): number[] {
    const byPosting = slots.length * other.postings.length * 8;
    const byText = slots.length * 1000;
    const byUnion = other.size + (this.capacity >>> 5);
    if (byPosting <= byText && byPosting <= byUnion) return slots.filter((slot) => other.postings.some((posting) => postingHas(posting, slot)));
    if (byText <= byUnion) return slots.filter((slot) => this.#wordsOf(this.#events[slot]!).some((word) => word.startsWith(other.word)));
    const bitmap = this.#union(other.postings);
    return slots.filter((slot) => bitmap.has(slot));
  }

  /** One bitmap of the slots of `postings`: the posting itself when it is the only one and a bitmap, unless `own`. */
  #union(postings: readonly Posting[], own = false): SlotBitmap {
    const only = postings[0];
    if (postings.length === 1 && only instanceof SlotBitmap) return own ? only.copy() : only;
    // Start from a copy of the largest bitmap (a common prefix is mostly one common word), then add the rest:
    // bare slots and arrays keep the count, another bitmap's words need a recount at the end.
    let largest: SlotBitmap | undefined;
    for (const posting of postings) if (posting instanceof SlotBitmap && (largest === undefined || posting.count > largest.count)) largest = posting;
    const bitmap = largest === undefined ? new SlotBitmap(this.capacity) : largest.copy();
    let recount = false;
    for (const posting of postings) {
      if (posting === largest) continue;
      postingOrInto(posting, bitmap);
      recount ||= posting instanceof SlotBitmap;
    }
    if (recount) bitmap.recount();
    return bitmap;
  }

  #add(word: string, slot: number): void {
    const posting = this.#vocabulary.get(word);
    const added = postingAdd(posting, slot, this.capacity);
    // An array or bitmap grows in place: only a new word, or a change of form, touches the vocabulary again.
    if (added !== posting) this.#vocabulary.set(word, added);
  }

  #remove(word: string, slot: number): void {
    const posting = this.#vocabulary.get(word);
    if (posting !== undefined) this.#vocabulary.set(word, postingRemove(posting, slot, this.capacity));
  }

  /** The words of an event's searched text, repeats included. */
  #wordsOf(stored: StoredEvent): string[] {
    const words: string[] = [];
    for (const text of searchTextOf(stored)) {
      let split = this.#textWords.get(text);
      if (split === undefined) {
        split = searchWords(text);
        if (text.length <= TEXT_CACHE_MAX_LENGTH) {
          if (this.#textWords.size >= TEXT_CACHE_SIZE) this.#textWords.clear();
          this.#textWords.set(text, split);
        }
      }
      for (const word of split) words.push(word);
    }
    return words;
  }
}
