// The term ids of an event's searched text (title, description, location, organizer name), interned in the dictionary.
import type { StoredEvent } from '../events/event.js';
import { searchTextOf } from './event-search-text.js';
import type { EventForms } from './event-forms.js';
import { TermsByKey } from './search-key-cache.js';
import { scanTerms } from './search-scan.js';
import { SearchTerms } from './search-terms.js';

/** Equal texts (a series' description, an organizer's name) are split into words once, while they are this many. */
const TEXT_CACHE_SIZE = 1024;
/** Longer texts are not kept in that cache (it would hold up to 5,000 characters per description)… */
const TEXT_CACHE_MAX_LENGTH = 1000;
/** …but in one of their own, the last this many. */
const LONG_TEXTS = 4;

/** The dictionary of the search index, and the words of events in it, with the repeated texts met lately cached. */
export class EventTerms {
  readonly #keysTexts: EventForms['keysTexts'];
  #terms = new SearchTerms();
  /** The term ids of texts met lately (descriptions, locations, organizer names), by text. */
  readonly #textTerms = new Map<string, number[]>();
  /**
   * The last few texts too long for that cache, with their term ids: a series' long description repeats in every
   * occurrence, and a change of it reads the old one (to take its words out) and the new one in turn.
   */
  readonly #longTerms = new Map<string, number[]>();
  /** The same for replayed events' texts, by their key (see KeyedTexts.searchTextKey): no string to hash. */
  #keyTerms = new TermsByKey();
  #textsScanned = 0;

  /** `forms` tells which events' texts are read by key (the store's replayed ones). */
  constructor(forms: EventForms) {
    this.#keysTexts = forms.keysTexts;
  }

  get terms(): SearchTerms {
    return this.#terms;
  }

  /** Texts split into words so far: a repeated text found in a cache is not split again (the tests count on it). */
  get textsScanned(): number {
    return this.#textsScanned;
  }

  /** Takes `terms` (built elsewhere) as the dictionary, before any event's words were looked up. */
  adopt(terms: SearchTerms): void {
    if (this.#terms.size > 0) throw new Error('a dictionary is adopted before any word is interned');
    this.#terms = terms;
  }

  /** Moves to `terms`, a compacted copy of the dictionary (new ids): every cached list of ids is dropped. */
  replaceTerms(terms: SearchTerms): void {
    this.#terms = terms;
    this.#textTerms.clear();
    this.#longTerms.clear();
    this.#keyTerms = new TermsByKey();
  }

  /** The distinct term ids of an event's searched text. */
  distinct(stored: StoredEvent): Set<number> {
    const terms: number[] = [];
    this.termsOf(stored, terms);
    return new Set(terms);
  }

  /** Pushes onto `out` the term ids of an event's searched text, repeats included. */
  termsOf(stored: StoredEvent, out: number[]): void {
    if (this.#keysTexts(stored)) {
      // A replayed event: its fields straight from the arena (no view built), repeated ones known by their key.
      this.#scan(stored.searchText(0), out);
      for (let field = 1; field < 4; field++) {
        const key = stored.searchTextKey(field);
        if (this.#keyTerms.pushInto(key, out)) continue;
        const from = out.length;
        this.#scan(stored.searchText(field), out);
        this.#keyTerms.set(key, out, from);
      }
      return;
    }
    const texts = searchTextOf(stored);
    this.#scan(texts[0]!, out);
    // The other fields repeat (a series' description, a building, an organizer): each is scanned once while recent.
    for (let field = 1; field < texts.length; field++) {
      const text = texts[field]!;
      const long = text.length > TEXT_CACHE_MAX_LENGTH;
      const cache = long ? this.#longTerms : this.#textTerms;
      let terms = cache.get(text);
      if (terms === undefined) {
        terms = [];
        this.#scan(text, terms);
        if (!long && cache.size >= TEXT_CACHE_SIZE) cache.clear();
        else if (long && cache.size === LONG_TEXTS) cache.delete(cache.keys().next().value!);
        cache.set(text, terms);
      }
      for (const term of terms) out.push(term);
    }
  }

  /** Pushes onto `out` the term ids of `text`'s words. */
  #scan(text: string, out: number[]): void {
    this.#textsScanned++;
    scanTerms(text, this.#terms, out);
  }
}
