// The in-memory state of the events: a map by id and arrays sorted by (start, id), so a list page is a binary search and a walk.
import { CATEGORIES } from '../events/event.js';
import type { Category, StoredEvent } from '../events/event.js';
import type { ListQuery, ListResult } from './event-store.js';
import { compareEvents, sortEvents } from './sort-events.js';

export { compareEvents };

/** Every live event, by id and in list order, overall and per category. */
export class EventIndex {
  readonly #byId: Map<string, StoredEvent>;
  readonly #all: StoredEvent[];
  readonly #byCategory: Map<Category, StoredEvent[]>;

  /**
   * Takes ownership of `byId` (a bulk load, e.g. from replay): its values are sorted once. Keep the
   * map in the order of each event's latest seq (delete before re-setting an id) so `values()` is too.
   */
  constructor(byId: Map<string, StoredEvent> = new Map()) {
    this.#byId = byId;
    this.#all = sortEvents([...byId.values()]);
    this.#byCategory = new Map(CATEGORIES.map((category) => [category, []]));
    for (const stored of this.#all) this.#categoryList(stored.category).push(stored);
  }

  /** Number of live events. */
  get size(): number {
    return this.#byId.size;
  }

  /** The event with this id, if live. */
  get(id: string): StoredEvent | undefined {
    return this.#byId.get(id);
  }

  /** Every live event in the order of its latest seq (the order a compacted log is written in). */
  values(): IterableIterator<StoredEvent> {
    return this.#byId.values();
  }

  /** Creates or replaces the event `stored.id`. */
  put(stored: StoredEvent): void {
    const previous = this.#byId.get(stored.id);
    if (previous !== undefined) this.#unlink(previous);
    // Delete then set, so the map's order follows each event's latest seq.
    this.#byId.delete(stored.id);
    this.#byId.set(stored.id, stored);
    insertSorted(this.#all, stored);
    insertSorted(this.#categoryList(stored.category), stored);
  }

  /** Removes an event; false when it was not there. */
  delete(id: string): boolean {
    const previous = this.#byId.get(id);
    if (previous === undefined) return false;
    this.#unlink(previous);
    this.#byId.delete(id);
    return true;
  }

  /** One page of the events matching `query`, in list order, and the count of every match (API.md §5). */
  list(query: ListQuery): ListResult {
    const events = query.category === undefined ? this.#all : this.#categoryList(query.category);
    const from = query.startFromMs === undefined ? 0 : firstStartingAtOrAfter(events, query.startFromMs);
    const offset = (query.page - 1) * query.limit;
    if (query.endByMs === undefined) {
      const total = events.length - from;
      return { events: events.slice(from + Math.min(offset, total), from + Math.min(offset + query.limit, total)), total };
    }
    // An event ends after it starts, so none starting after endByMs can match; between, only the end is checked.
    const endByMs = query.endByMs;
    const to = firstStartingAtOrAfter(events, endByMs + 1);
    const page: StoredEvent[] = [];
    let total = 0;
    for (let i = from; i < to; i++) {
      const stored = events[i]!;
      if (stored.endMs > endByMs) continue;
      if (total >= offset && page.length < query.limit) page.push(stored);
      total++;
    }
    return { events: page, total };
  }

  #categoryList(category: Category): StoredEvent[] {
    const list = this.#byCategory.get(category);
    if (list === undefined) throw new TypeError(`unknown category ${JSON.stringify(category)}`);
    return list;
  }

  #unlink(stored: StoredEvent): void {
    removeSorted(this.#all, stored);
    removeSorted(this.#categoryList(stored.category), stored);
  }
}

/** The first index whose event is not before `target` in list order. */
function lowerBound(events: readonly StoredEvent[], target: StoredEvent): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareEvents(events[middle]!, target) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first index whose event starts at or after `ms`. */
function firstStartingAtOrAfter(events: readonly StoredEvent[], ms: number): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (events[middle]!.startMs < ms) low = middle + 1;
    else high = middle;
  }
  return low;
}

function insertSorted(events: StoredEvent[], stored: StoredEvent): void {
  const at = lowerBound(events, stored);
  if (at === events.length) events.push(stored);
  else events.splice(at, 0, stored);
}

function removeSorted(events: StoredEvent[], stored: StoredEvent): void {
  const at = lowerBound(events, stored);
  if (events[at] !== stored) throw new Error(`event index out of step: ${stored.id} is not where its start time puts it`);
  events.splice(at, 1);
}
