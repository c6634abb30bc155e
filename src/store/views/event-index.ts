// The in-memory state of the events: a map by id and B+trees in list order (start, id), one overall and one per category.
import { CATEGORIES, isHidden } from '../../events/event.js';
import type { Category, StoredEvent } from '../../events/event.js';
import type { ListQuery, ListResult } from '../event-store.js';
import { OrderedEvents } from './ordered-events.js';
import { compareEvents, sortEvents } from './sort-events.js';
import { SeriesMembers } from './series-members.js';
import { SearchIndex } from '../../search/search-index.js';
import type { BuiltSearch } from '../../search/search-built.js';
import { PLACE_STEPS_PER_COLLECT } from '../../search/search-build.js';
import { listFiltered, listFilteredSteps, type ListSources } from './filtered-list.js';
import { STORE_EVENT_FORMS } from './store-event-forms.js';
import { runInSlices, type SliceOptions } from '../../lib/loop-turns.js';
import { finishStatusList, listByStatus, planStatusList, type StatusSources } from './status-list.js';

export { compareEvents };

/** Events indexed for `q` per turn of the event loop while the index is built after a start (a few milliseconds). */
const SEARCH_BUILD_STEP = 2000;

/**
 * Every live event by id; the public ones (published and cancelled: API.md §14) also in list order, overall and per
 * category, by series and for `q`. Drafts and pending events are kept apart in a small table of their own, so no count,
 * page, search or timing of a public list depends on them.
 */
export class EventIndex {
  readonly #byId: Map<string, StoredEvent>;
  /** The drafts and pending events, by id: in no tree, no series list and no search index. */
  readonly #hidden = new Map<string, StoredEvent>();
  /** The cancelled events (public, in the trees too), by id: what a list of `status=published` leaves out. */
  readonly #cancelled = new Map<string, StoredEvent>();
  readonly #all: OrderedEvents;
  readonly #byCategory: Map<Category, OrderedEvents>;
  readonly #series = new SeriesMembers();
  /** The words of every event, for `q`; undefined when switched off (then `q` scans, for benchmarks' baselines). */
  readonly #search: SearchIndex | undefined;
  readonly #sources: ListSources;
  /** What a list by status draws on (status-list.ts). */
  readonly #statusSources: StatusSources = { publicList: (plain) => this.list(plain), hidden: this.#hidden, cancelled: this.#cancelled };
  /** Puts and deletes so far: a list computed in slices is stale once this moved. */
  #changes = 0;

  /**
   * Takes ownership of `byId` (a bulk load, e.g. from replay): its values are sorted once. Keep the
   * map in the order of each event's latest seq (delete before re-setting an id) so `values()` is too.
   */
  constructor(byId: Map<string, StoredEvent> = new Map(), options: { searchIndex?: boolean } = {}) {
    this.#byId = byId;
    // The public events, in the map's order (each one's latest seq): what the trees, the series and the search index hold.
    const shown: StoredEvent[] = [];
    for (const stored of byId.values()) {
      // A published event has no status: one property read each, and nothing more.
      if (stored.status === undefined) shown.push(stored);
      else if (isHidden(stored)) this.#hidden.set(stored.id, stored);
      else {
        this.#cancelled.set(stored.id, stored);
        shown.push(stored);
      }
    }
    const sorted = sortEvents(shown);
    this.#all = new OrderedEvents(sorted);
    const perCategory = new Map<Category, StoredEvent[]>(CATEGORIES.map((category) => [category, []]));
    for (const stored of sorted) perCategory.get(stored.category)?.push(stored);
    this.#byCategory = new Map(CATEGORIES.map((category) => [category, new OrderedEvents(perCategory.get(category))]));
    for (const stored of shown) this.#series.add(stored);
    this.#search = options.searchIndex === false ? undefined : new SearchIndex(shown, STORE_EVENT_FORMS);
    this.#sources = { all: this.#all, tree: (category) => this.#tree(category), search: this.#search };
  }

  /**
   * Indexes the words of the bulk-loaded events, SEARCH_BUILD_STEP events per turn of the event loop, so requests
   * are served meanwhile (a list with `q` is refused with StoreUnavailable until it is done). With `built` (a build
   * of the same log in a worker), waits for it and only places the events when it holds exactly them. Resolves
   * once done, or once `stop` is set: with undefined when the worker's build was taken, else why not.
   */
  async buildSearchIndex(stop: () => boolean = () => false, built?: Promise<BuiltSearch | string>): Promise<string | undefined> {
    const search = this.#search;
    if (search === undefined) return 'no search index';
    const isCurrent = (stored: StoredEvent): boolean => this.#byId.get(stored.id) === stored;
    let notTaken: string | undefined = 'no build from the log';
    if (built !== undefined) {
      let result: BuiltSearch | string | undefined;
      void built.then((value) => (result = value));
      // The events are placed in their slots while the worker reads the log: its words are all that is left then.
      while (!stop() && result === undefined && !search.placeSome(SEARCH_BUILD_STEP * PLACE_STEPS_PER_COLLECT, isCurrent)) await new Promise((resolve) => setImmediate(resolve));
      result ??= await built;
      notTaken = typeof result === 'string' ? result : search.adoptBuilt(result);
    }
    while (!stop() && !search.buildSome(SEARCH_BUILD_STEP, isCurrent)) await new Promise((resolve) => setImmediate(resolve));
    return notTaken;
  }

  /** Number of live events, drafts and pending ones included. */
  get size(): number {
    return this.#byId.size;
  }

  /** Number of live drafts and pending events. */
  get hiddenCount(): number {
    return this.#hidden.size;
  }

  /** The event with this id, if live (whatever its status). */
  get(id: string): StoredEvent | undefined {
    return this.#byId.get(id);
  }

  /** Every live event, drafts and pending ones included, in the order of its latest seq (the order a compacted log is written in). */
  values(): IterableIterator<StoredEvent> {
    return this.#byId.values();
  }

  /** Creates or replaces the event `stored.id`. */
  put(stored: StoredEvent): void {
    this.#changes++;
    const previous = this.#byId.get(stored.id);
    if (previous !== undefined && this.#replaceInPlace(previous, stored)) return;
    if (previous !== undefined) {
      this.#unlink(previous);
      // Delete then set, so the map's order follows each event's latest seq (a new id goes last by itself).
      this.#byId.delete(stored.id);
    }
    this.#byId.set(stored.id, stored);
    const shownBefore = previous !== undefined && !isHidden(previous) ? previous : undefined;
    if (stored.status !== undefined && isHidden(stored)) {
      this.#hidden.set(stored.id, stored);
      if (shownBefore !== undefined) this.#search?.delete(shownBefore);
      return;
    }
    if (stored.status === 'cancelled') this.#cancelled.set(stored.id, stored);
    this.#all.insert(stored);
    this.#tree(stored.category).insert(stored);
    this.#series.add(stored);
    this.#search?.put(stored, shownBefore);
  }

  /** Removes an event; false when it was not there. */
  delete(id: string): boolean {
    const previous = this.#byId.get(id);
    if (previous === undefined) return false;
    this.#changes++;
    this.#unlink(previous);
    this.#byId.delete(id);
    if (!isHidden(previous)) this.#search?.delete(previous);
    return true;
  }

  /** Moves with every change of the events or their words: equal values, equal state. */
  get version(): number {
    return this.#changes + (this.#search?.postingUpdates ?? 0);
  }

  /**
   * list() sharing the event loop (runInSlices): a search or a walk of several categories over a large campus yields
   * between slices of a few milliseconds and starts over if a write committed meanwhile; a plain page is answered
   * at once, as it costs little. A list by status (API.md §14) reads its public part so too.
   */
  async listInTurns(query: ListQuery, slices: Omit<SliceOptions, 'version'> = {}): Promise<ListResult> {
    if (query.statuses !== undefined) {
      // Planned and finished in one turn with its public part: a write between them would mix two states.
      const before = this.version;
      const plan = planStatusList(this.#statusSources, { ...query, statuses: query.statuses });
      const head = plan.head === undefined ? undefined : await this.listInTurns(plan.head, slices);
      return this.version === before ? finishStatusList(plan, head) : this.list(query);
    }
    if (query.seriesId !== undefined || (query.words === undefined && query.categories === undefined)) return this.list(query);
    // A scan while the search index is built answers for the state its first step took (scanSnapshotSteps): it never
    // starts over, so writes meanwhile neither starve it nor make it run at once.
    const scanning = query.words !== undefined && this.#search !== undefined && !this.#search.ready;
    return runInSlices(() => listFilteredSteps(this.#sources, query), { ...slices, version: scanning ? () => 0 : () => this.version });
  }

  /**
   * One page of the events matching `query`, in list order, and the count of every match (API.md §5): the public
   * ones (published and cancelled), or those of `query.statuses` (§14).
   */
  list(query: ListQuery): ListResult {
    if (query.statuses !== undefined) return listByStatus(this.#statusSources, { ...query, statuses: query.statuses });
    if (query.seriesId !== undefined) return this.#series.list({ ...query, seriesId: query.seriesId });

    if (query.words !== undefined || query.categories !== undefined) return listFiltered(this.#sources, query);
    const events = query.category === undefined ? this.#all : this.#tree(query.category);
    const from = query.startFromMs === undefined ? 0 : events.countStartingBefore(query.startFromMs);
    const offset = (query.page - 1) * query.limit;
    if (query.endByMs === undefined) {
      const total = events.size - from;
      return { events: offset >= total ? [] : events.slice(from + offset, Math.min(query.limit, total - offset)), total };
    }
    // An event ends after it starts, so none starting after endByMs can match. Of those starting in
    // [from, to), only the ones still running at endByMs fail: counted apart, not by walking the window.
    const endByMs = query.endByMs;
    const to = Math.max(from, events.countStartingBefore(endByMs + 1));
    const dropped = events.ranksEndingAfter(query.startFromMs ?? -Infinity, endByMs);
    const total = to - from - dropped.length;
    if (offset >= total) return { events: [], total };
    // The rank of the match number `offset`: step over each dropped rank at or before it.
    let first = from + offset;
    for (const rank of dropped) {
      if (rank > first) break;
      first++;
    }
    return { events: events.sliceEndingBy(first, query.limit, endByMs), total };
  }

  #tree(category: Category): OrderedEvents {
    const tree = this.#byCategory.get(category);
    if (tree === undefined) throw new TypeError(`unknown category ${JSON.stringify(category)}`);
    return tree;
  }

  /**
   * For a published event whose new state sorts, ends and belongs where the old one did (a registration changed its
   * count, an edit its text): the new state takes the old one's place in every view, without a delete and an insert.
   */
  #replaceInPlace(previous: StoredEvent, stored: StoredEvent): boolean {
    if (previous.status !== undefined || stored.status !== undefined || previous.startMs !== stored.startMs || previous.endMs !== stored.endMs) return false;
    if (previous.category !== stored.category || previous.seriesId !== stored.seriesId) return false;
    // Delete then set, so the map's order follows each event's latest seq.
    this.#byId.delete(stored.id);
    this.#byId.set(stored.id, stored);
    if (!this.#all.replace(previous, stored) || !this.#tree(stored.category).replace(previous, stored)) {
      throw new Error(`event index out of step: ${stored.id} is not where its start time puts it`);
    }
    this.#series.remove(previous);
    this.#series.add(stored);
    this.#search?.put(stored, previous);
    return true;
  }

  #unlink(stored: StoredEvent): void {
    if (stored.status !== undefined) {
      if (this.#hidden.delete(stored.id)) return;
      this.#cancelled.delete(stored.id);
    }
    if (!this.#all.delete(stored) || !this.#tree(stored.category).delete(stored)) {
      throw new Error(`event index out of step: ${stored.id} is not where its start time puts it`);
    }
    this.#series.remove(stored);
  }
}
