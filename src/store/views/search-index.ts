// The word-prefix index behind `q` (API.md §5): each live event has a slot; each folded word, the slots holding it.
import { CATEGORIES, type Category, type StoredEvent } from '../../events/event.js';
import { searchWords } from '../../lib/search-words.js';
import { sameSearchText, searchTextOf } from './event-search-text.js';
import { type Posting, postingAdd, postingHas, postingOrInto, postingPushInto, postingRemove, postingSize, SlotBitmap } from './search-postings.js';
import { PackedEvent } from './packed-event.js';
import { BulkPostings } from './search-bulk.js';
import { TermsByKey } from './search-key-cache.js';
import { PostingTable } from './search-posting-table.js';
import { scanTerms } from './search-scan.js';
import { SearchTerms } from './search-terms.js';

/** The UTC month of an instant, as `year * 12 + month - 1` (by arithmetic on days: no Date per call). */
export function monthOf(ms: number): number {
  // Howard Hinnant's civil_from_days, with years starting in March.
  const days = Math.floor(ms / 86_400_000) + 719_468;
  const era = Math.floor(days / 146_097);
  const dayOfEra = days - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const month = marchMonth < 10 ? marchMonth + 2 : marchMonth - 10;
  const year = yearOfEra + era * 400 + (month <= 1 ? 1 : 0);
  return year * 12 + month;
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
/** Added events packed per step, per event collected per step (packing one is far cheaper than collecting it). */
const PACK_STEPS_PER_COLLECT = 8;
/** Unions of query words kept (each a bitmap of capacity / 8 bytes: 125 KiB at 1,000,000 events). */
const UNIONS_KEPT = 8;
/** Longer texts are not kept in that cache (it would hold up to 5,000 characters per description). */
const TEXT_CACHE_MAX_LENGTH = 1000;

/**
 * Slots and postings of every live event, fed by the event index on each put and delete (the single writer), so
 * a write is found by `q` as soon as it is visible. Slots of deleted events are reused, which keeps bitmaps as
 * long as the most events ever live at once.
 */
export class SearchIndex {
  readonly #terms = new SearchTerms();
  readonly #postings = new PostingTable();
  readonly #slotOf = new Map<string, number>();
  readonly #events: (StoredEvent | undefined)[] = [];
  readonly #freeSlots: number[] = [];
  readonly #byCategory = new Map<Category, SlotBitmap>(CATEGORIES.map((category) => [category, new SlotBitmap()]));
  /** The term ids of texts met lately (descriptions, locations, organizer names), by text. */
  readonly #textTerms = new Map<string, number[]>();
  /** The same for replayed events' texts, by their key (see PackedEvent.searchTextKey): no string to hash. */
  readonly #keyTerms = new TermsByKey();
  /** The slots of the events starting in each UTC month (`year * 12 + month - 1`), to count a date window's matches by bitmaps. */
  readonly #months = new Map<number, Posting>();

  /** Events of the bulk load still to index (undefined once all are), and where the next step starts. */
  #pending: StoredEvent[] | undefined;
  #pendingAt = 0;
  /**
   * While building: the terms of the bulk load collected so far; the slots collected; the slots written during
   * the build (their terms are set right once the build is packed); and the state each written slot had when
   * collected, whose terms are then taken out again.
   */
  #bulk: BulkPostings | undefined;
  #collected: SlotBitmap | undefined;
  #rewritten: Set<number> | undefined;
  readonly #staleCollected = new Map<number, StoredEvent>();
  /** Unions of query words' postings (see #wordUnion), good while #postingsVersion is still #unionsVersion. */
  readonly #unions = new Map<string, SlotBitmap>();
  #unionsVersion = -1;
  #postingsVersion = 0;

  /**
   * Takes the events of a bulk load to index them step by step (buildSome), so a start with many events can
   * listen first. Until `ready`, lists answer `q` without the index; puts and deletes are indexed at once.
   */
  constructor(events: Iterable<StoredEvent> = []) {
    const pending = [...events];
    if (pending.length === 0) return;
    this.#pending = pending;
    this.#bulk = new BulkPostings();
    this.#collected = new SlotBitmap(pending.length);
    this.#rewritten = new Set();
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
   * Collects the terms of up to `count` more events of the bulk load; `isCurrent` tells whether one is still the
   * live state (one written or deleted since was taken, or dropped, by that write). After the last, packs them
   * all into postings at once and indexes the events written meanwhile. Returns `ready`.
   */
  buildSome(count: number, isCurrent: (stored: StoredEvent) => boolean): boolean {
    const pending = this.#pending;
    const bulk = this.#bulk;
    if (pending === undefined || bulk === undefined) return true;
    const end = Math.min(pending.length, this.#pendingAt + count);
    const terms: number[] = [];
    for (; this.#pendingAt < end; this.#pendingAt++) {
      const stored = pending[this.#pendingAt]!;
      if (this.#slotOf.has(stored.id) || !isCurrent(stored)) continue;
      // Fresh slots only, so the collected slots ascend and each packed run comes out sorted.
      const slot = this.#events.length;
      this.#place(stored, slot);
      terms.length = 0;
      this.#termsOf(stored, terms);
      bulk.add(slot, terms);
      this.#collected!.add(slot);
    }
    if (end < pending.length) return false;
    // Packing, a step at a time too: counting, then filling (each far cheaper an event than collecting). A load
    // of one step is packed in the same step, so a small campus is indexed before the server listens.
    const packed = bulk.packSome(this.#terms.size, this.capacity, pending.length <= count ? Infinity : count * PACK_STEPS_PER_COLLECT);
    if (packed === undefined) return false;
    this.#postings.install(packed);
    const rewritten = this.#rewritten!;
    this.#pending = this.#bulk = this.#collected = this.#rewritten = undefined;
    for (const slot of rewritten) {
      const stale = this.#staleCollected.get(slot);
      if (stale !== undefined) for (const term of this.#distinctTerms(stale)) this.#remove(term, slot);
      const stored = this.#events[slot];
      if (stored !== undefined) for (const term of this.#distinctTerms(stored)) this.#add(term, slot);
    }
    this.#staleCollected.clear();
    return true;
  }

  /** While building: notes that `slot` is written, and the state it was collected with (taken out once packed). */
  #rewrite(slot: number): void {
    if (this.#collected!.has(slot) && !this.#staleCollected.has(slot)) this.#staleCollected.set(slot, this.#events[slot]!);
    this.#rewritten!.add(slot);
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
      this.#place(stored, slot);
      if (this.#rewritten !== undefined) this.#rewritten.add(slot);
      else for (const term of this.#distinctTerms(stored)) this.#add(term, slot);
      return;
    }
    // Building: the terms wait for the build's end.
    if (this.#rewritten !== undefined) this.#rewrite(slot);
    this.#events[slot] = stored;
    if (previous.category !== stored.category) {
      this.categoryBitmap(previous.category).remove(slot);
      this.categoryBitmap(stored.category).add(slot);
    }
    this.#moveMonth(slot, previous.startMs, stored.startMs);
    if (this.#rewritten !== undefined || sameSearchText(previous, stored)) return;
    const before = this.#distinctTerms(previous);
    const after = this.#distinctTerms(stored);
    for (const term of before) if (!after.has(term)) this.#remove(term, slot);
    for (const term of after) if (!before.has(term)) this.#add(term, slot);
  }

  /** Gives `stored` the slot `slot`, with its category and month (its terms are the caller's). */
  #place(stored: StoredEvent, slot: number): void {
    this.#slotOf.set(stored.id, slot);
    this.#events[slot] = stored;
    this.categoryBitmap(stored.category).add(slot);
    this.#moveMonth(slot, undefined, stored.startMs);
  }

  /** Drops a live event from the index. */
  delete(stored: StoredEvent): void {
    const slot = this.#slotOf.get(stored.id);
    if (slot === undefined) return;
    if (this.#rewritten !== undefined) this.#rewrite(slot);
    else for (const term of this.#distinctTerms(this.#events[slot]!)) this.#remove(term, slot);
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
      const postings: Posting[] = [];
      for (const term of this.#terms.startingWith(word)) {
        const posting = this.#postings.get(term);
        if (posting !== undefined) postings.push(posting);
      }
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
    const union = this.#wordUnion(first);
    if (rest.length === 0) return { bitmap: union };
    const bitmap = union.copy();
    for (const other of rest) bitmap.intersect(this.#wordUnion(other));
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
    if (byText <= byUnion) return slots.filter((slot) => searchTextOf(this.#events[slot]!).some((text) => searchWords(text).some((word) => word.startsWith(other.word))));
    const bitmap = this.#wordUnion(other);
    return slots.filter((slot) => bitmap.has(slot));
  }

  /**
   * The union of a query word's postings, from the unions asked lately while no posting has changed since: a
   * common prefix stands for many words (one of 4 letters starts 60 in the bench's text), and a search box asks
   * for the same few again and again. Shared: callers read it, never change it.
   */
  #wordUnion(candidate: { word: string; postings: Posting[] }): SlotBitmap {
    if (this.#unionsVersion !== this.#postingsVersion) {
      this.#unions.clear();
      this.#unionsVersion = this.#postingsVersion;
    }
    let union = this.#unions.get(candidate.word);
    if (union === undefined) {
      union = this.#union(candidate.postings);
      if (this.#unions.size >= UNIONS_KEPT) this.#unions.delete(this.#unions.keys().next().value as string);
      this.#unions.set(candidate.word, union);
    }
    return union;
  }

  /** One bitmap of the slots of `postings`: the posting itself when it is the only one and a bitmap. */
  #union(postings: readonly Posting[]): SlotBitmap {
    const only = postings[0];
    if (postings.length === 1 && only instanceof SlotBitmap) return only;
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

  #add(term: number, slot: number): void {
    this.#postingsVersion++;
    const posting = this.#postings.get(term);
    const added = postingAdd(posting, slot, this.capacity);
    // An array or bitmap grows in place: only a new posting, or a change of form, is set again.
    if (added !== posting) this.#postings.set(term, added);
  }

  #remove(term: number, slot: number): void {
    this.#postingsVersion++;
    const posting = this.#postings.get(term);
    if (posting !== undefined) this.#postings.set(term, postingRemove(posting, slot, this.capacity));
  }

  #distinctTerms(stored: StoredEvent): Set<number> {
    const terms: number[] = [];
    this.#termsOf(stored, terms);
    return new Set(terms);
  }

  /** Pushes onto `out` the term ids of an event's searched text, repeats included. */
  #termsOf(stored: StoredEvent, out: number[]): void {
    if (stored instanceof PackedEvent) {
      // A replayed event: its fields straight from the arena (no view built), repeated ones known by their key.
      scanTerms(stored.searchText(0), this.#terms, out);
      for (let field = 1; field < 4; field++) {
        const key = stored.searchTextKey(field);
        if (this.#keyTerms.pushInto(key, out)) continue;
        const from = out.length;
        scanTerms(stored.searchText(field), this.#terms, out);
        this.#keyTerms.set(key, out, from);
      }
      return;
    }
    const texts = searchTextOf(stored);
    scanTerms(texts[0]!, this.#terms, out);
    // The other fields repeat (a series' description, a building, an organizer): each is scanned once while recent.
    for (let field = 1; field < texts.length; field++) {
      const text = texts[field]!;
      let terms = this.#textTerms.get(text);
      if (terms === undefined) {
        terms = [];
        scanTerms(text, this.#terms, terms);
        if (text.length <= TEXT_CACHE_MAX_LENGTH) {
          if (this.#textTerms.size >= TEXT_CACHE_SIZE) this.#textTerms.clear();
          this.#textTerms.set(text, terms);
        }
      }
      for (const term of terms) out.push(term);
    }
  }
}
