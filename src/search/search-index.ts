// The word-prefix index behind `q` (API.md §5): each live event has a slot; each folded word, the slots holding it.
import type { Category, StoredEvent } from '../events/event.js';
import type { EventForms } from './event-forms.js';
import { sameSearchText } from './event-search-text.js';
import { SearchBuild } from './search-build.js';
import type { BuiltSearch } from './search-built.js';
import { EventTerms } from './search-event-terms.js';
import { type SlotSet, WordMatcher } from './search-match.js';
import { PostingTable } from './search-posting-table.js';
import { type Posting, postingAdd, postingRemove, type SlotBitmap } from './search-postings.js';
import { SlotTable } from './search-slots.js';
import type { SearchTerms } from './search-terms.js';
import type { Steps } from '../lib/loop-turns.js';

export { monthOf, monthStart } from './search-months.js';
export type { SlotSet } from './search-match.js';

/** The fewest words no event holds before the dictionary is compacted (about 100 bytes each until then). */
export const DEAD_TERMS_MIN = 20_000;

/**
 * Slots and postings of every live event, fed by the event index on each put and delete (the single writer), so
 * a write is found by `q` as soon as it is visible.
 */
export class SearchIndex {
  readonly #slots: SlotTable;
  readonly #eventTerms: EventTerms;
  readonly #postings = new PostingTable();
  readonly #matcher: WordMatcher;
  /** The bulk load's build, until it is done. */
  #build: SearchBuild | undefined;
  #postingsVersion = 0;
  /** Terms some event holds (a posting), counted once the bulk load is indexed: the rest are words no event holds. */
  #liveTerms = 0;
  /** Times the dictionary was compacted (#forgetIfMostlyDead): work, for tests. */
  #compactions = 0;

  /**
   * Takes the events of a bulk load to index them step by step (buildSome), so a start with many events can
   * listen first. Until `ready`, lists answer `q` without the index; puts and deletes are indexed at once. `forms`
   * tells the store's own event objects from others (see EventForms).
   */
  constructor(events: Iterable<StoredEvent>, forms: EventForms) {
    this.#slots = new SlotTable(forms);
    this.#eventTerms = new EventTerms(forms);
    const postings = this.#postings;
    const index = this;
    this.#matcher = new WordMatcher({
      get terms(): SearchTerms {
        return index.#eventTerms.terms;
      },
      postings,
      get capacity(): number {
        return index.capacity;
      },
      eventAt: (slot) => this.eventAt(slot),
      get postingsVersion(): number {
        return index.#postingsVersion;
      },
    });
    const pending = [...events];
    if (pending.length === 0) return;
    const host = { slots: this.#slots, eventTerms: this.#eventTerms, postings, add: this.#add, remove: this.#remove };
    this.#build = new SearchBuild(host, pending);
  }

  /** True once every event of the bulk load is indexed: from then on `match` answers. */
  get ready(): boolean {
    return this.#build === undefined;
  }

  /** While not ready: how far the build is, as `indexed of total` events of the bulk load. */
  get progress(): { indexed: number; total: number } {
    return this.#build?.progress ?? { indexed: 0, total: 0 };
  }

  /**
   * Takes the words of the bulk load from `built` (a build of the same log in a worker), before the first
   * buildSome: the steps then only place the events. Returns why it cannot (the build then collects them itself).
   * Takes the arrays of `built` (its postings become the index's) and empties it of its ids.
   */
  adoptBuilt(built: BuiltSearch): string | undefined {
    return this.#build === undefined ? 'the index is built already' : this.#build.adopt(built);
  }

  /**
   * Places up to `count` more events of the bulk load in their slots, without their words (while a worker collects
   * them: see adoptBuilt). Returns true once all are placed (or the index is ready).
   */
  placeSome(count: number, isCurrent: (stored: StoredEvent) => boolean): boolean {
    return this.#build?.placeSome(count, isCurrent) ?? true;
  }

  /**
   * Indexes up to `count` more events of the bulk load; `isCurrent` tells whether one is still the live state (one
   * written or deleted since was taken, or dropped, by that write). Returns `ready`.
   */
  buildSome(count: number, isCurrent: (stored: StoredEvent) => boolean): boolean {
    if (this.#build?.step(count, isCurrent) === true) {
      this.#build = undefined;
      // The build filled postings its own way (adopted ones too): count the terms held once, then keep count.
      const terms = this.#eventTerms.terms.size;
      let live = 0;
      for (let term = 0; term < terms; term++) if (this.#postings.has(term)) live++;
      this.#liveTerms = live;
    }
    return this.ready;
  }

  /** Distinct words in the dictionary, and how many of them some event holds: the rest are forgotten in time. */
  get termCounts(): { terms: number; live: number; compactions: number } {
    return { terms: this.#eventTerms.terms.size, live: this.#liveTerms, compactions: this.#compactions };
  }

  /** Slots in use, free or reserved: the length of every bitmap. */
  get capacity(): number {
    return this.#slots.capacity;
  }

  /** The event in `slot`, if live. */
  eventAt(slot: number): StoredEvent | undefined {
    return this.#slots.eventAt(slot);
  }

  /** The slot of `stored`, if it is a live event here (this very object, as the store holds it). */
  slotOf(stored: StoredEvent): number | undefined {
    return this.#slots.slotOf(stored);
  }

  /** The slots of each category's live events. */
  categoryBitmap(category: Category): SlotBitmap {
    return this.#slots.categoryBitmap(category);
  }

  /** The slots of the events starting in UTC month `month` (`year * 12 + month - 1`; see monthOf). */
  monthPosting(month: number): Posting | undefined {
    return this.#slots.monthPosting(month);
  }

  /** The months that hold events, ascending. */
  months(): number[] {
    return this.#slots.months();
  }

  /** Indexes `stored`, which replaces `previous` (the same id's former state, indexed or not yet), if any. */
  put(stored: StoredEvent, previous: StoredEvent | undefined): void {
    this.#build?.noteChange();
    // A previous state not placed yet (a bulk load's, during the build) leaves its reserved slot to the build.
    const slot = previous === undefined ? undefined : this.#slots.slotOf(previous);
    if (previous === undefined || slot === undefined) {
      const fresh = this.#slots.newSlot();
      this.#slots.place(stored, fresh);
      if (this.#build !== undefined) this.#build.noteNew(fresh);
      else for (const term of this.#eventTerms.distinct(stored)) this.#add(term, fresh);
      return;
    }
    // Building: the terms wait for the build's end.
    this.#build?.noteWrite(slot);
    this.#slots.replace(slot, previous, stored);
    if (this.#build !== undefined || sameSearchText(previous, stored)) return;
    const before = this.#eventTerms.distinct(previous);
    const after = this.#eventTerms.distinct(stored);
    for (const term of before) if (!after.has(term)) this.#remove(term, slot);
    for (const term of after) if (!before.has(term)) this.#add(term, slot);
    this.#forgetIfMostlyDead();
  }

  /** Drops a live event (indexed or not yet) from the index. */
  delete(stored: StoredEvent): void {
    this.#build?.noteChange();
    const slot = this.#slots.slotOf(stored);
    if (slot === undefined) return;
    if (this.#build !== undefined) this.#build.noteWrite(slot);
    else for (const term of this.#eventTerms.distinct(this.#slots.eventAt(slot)!)) this.#remove(term, slot);
    this.#slots.remove(slot);
    if (this.#build === undefined) this.#forgetIfMostlyDead();
  }

  /** Slots added to or taken from a term's posting so far (each makes the cached unions stale): the work writes cost, for tests. */
  get postingUpdates(): number {
    return this.#postingsVersion;
  }

  /** The slots of the events in which each of `words` (folded, from queryWords) starts some word. */
  match(words: readonly string[]): SlotSet {
    return this.#matcher.match(words);
  }

  /** match() in steps (see WordMatcher.matchSteps). */
  matchSteps(words: readonly string[]): Steps<SlotSet> {
    return this.#matcher.matchSteps(words);
  }

  /**
   * Words no event holds any more stay in the dictionary (an edit's new words, a deleted event's): once they are more
   * than those held, and at least DEAD_TERMS_MIN, the dictionary is compacted, so memory follows the live words
   * however many edits and deletions came before. One pass over the terms, paid for by the dead ones it drops.
   */
  #forgetIfMostlyDead(): void {
    const dead = this.#eventTerms.terms.size - this.#liveTerms;
    if (dead < DEAD_TERMS_MIN || dead <= this.#liveTerms) return;
    const postings = this.#postings;
    const { terms, ids } = this.#eventTerms.terms.compacted((term) => postings.has(term));
    postings.renumber(ids, terms.size);
    this.#eventTerms.replaceTerms(terms);
    this.#liveTerms = terms.size;
    this.#postingsVersion++;
    this.#compactions++;
  }

  readonly #add = (term: number, slot: number): void => {
    this.#postingsVersion++;
    const posting = this.#postings.get(term);
    if (posting === undefined) this.#liveTerms++;
    const added = postingAdd(posting, slot, this.capacity);
    // An array or bitmap grows in place: only a new posting, or a change of form, is set again.
    if (added !== posting) this.#postings.set(term, added);
  };

  readonly #remove = (term: number, slot: number): void => {
    this.#postingsVersion++;
    const posting = this.#postings.get(term);
    if (posting === undefined) return;
    const left = postingRemove(posting, slot, this.capacity);
    if (left === undefined) this.#liveTerms--;
    this.#postings.set(term, left);
  };
}
