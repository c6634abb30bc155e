// A list page with several categories or words (`q`): the ordered trees give the date window, the search index the words.
import type { Category, StoredEvent } from '../../events/event.js';
import type { ListQuery, ListResult } from '../event-store.js';
import type { OrderedEvents } from './ordered-events.js';
import type { SearchIndex, SlotSet } from '../../search/search-index.js';
import { SlotBitmap } from '../../search/search-postings.js';
import { compareEvents } from './sort-events.js';
import { hasSearchWords } from '../../search/event-search-text.js';
import { walk, walkCountSteps, walkSteps, type RankWindow } from './window-walk.js';
import { runAtOnce, type Steps } from '../../lib/loop-turns.js';
import { countWindowMatches } from './window-count.js';

/** What the event index lends a filtered list: its trees in list order and its search index (absent: words are scanned). */
export interface ListSources {
  all: OrderedEvents;
  tree(category: Category): OrderedEvents;
  /** The search index; undefined when it is switched off (a benchmark's baseline: then `q` scans the list). */
  search: SearchIndex | undefined;
}

/**
 * One page and the total of a query with `categories` or `words` (API.md §5), in list order. The start-date window
 * is a range of ranks of one tree (the category's, or the whole list tested for its categories); the words are a
 * set of slots from the search index. Each count and page takes the cheaper way: counting the matched slots, or
 * walking the window; a bitmap count when no date bounds the list.
 */
export function listFiltered(sources: ListSources, query: ListQuery): ListResult {
  return runAtOnce(listFilteredSteps(sources, query));
}

/** Events forEachSlot visits between two steps. */
const SLOTS_PER_STEP = 4096;

/**
 * listFiltered() in steps (see runInSlices): the walks of a window and the visits of matched slots yield every few
 * thousand events, so a search over a large campus can share the loop. The steps read the sources as they are at
 * each step: run them at once, or throw their answer away when the sources changed between two steps.
 */
export function* listFilteredSteps(sources: ListSources, query: ListQuery): Steps<ListResult> {
  const categories = categoriesOf(query);
  const tree = categories.length === 1 ? sources.tree(categories[0]!) : sources.all;
  const wanted = categories.length === 0 ? undefined : new Set(categories);
  const { startFromMs, endByMs } = query;
  const from = startFromMs === undefined ? 0 : tree.countStartingBefore(startFromMs);
  const to = endByMs === undefined ? tree.size : Math.max(from, tree.countStartingBefore(endByMs + 1));
  // The window holds every start in [startFromMs, endByMs]: what remains is the category and the end.
  const fits = (stored: StoredEvent): boolean => (wanted === undefined || wanted.has(stored.category)) && (endByMs === undefined || stored.endMs <= endByMs);
  const offset = (query.page - 1) * query.limit;
  const window = { tree, from, to };

  if (query.words === undefined) {
    // No category named (`categories: []`, as categoriesOf gives for all of them): the whole list's window.
    const trees = categories.length === 0 ? [sources.all] : categories.map((category) => sources.tree(category));
    const total = trees.reduce((sum, each) => sum + windowTotal(each, query), 0);
    return { events: offset >= total ? [] : yield* walkSteps(window, fits, offset, query.limit), total };
  }
  const search = sources.search;
  if (search === undefined) {
    const words = query.words;
    const matches = (stored: StoredEvent): boolean => fits(stored) && hasSearchWords(stored, words);
    return { events: yield* walkSteps(window, matches, offset, query.limit), total: yield* walkCountSteps(window, matches) };
  }
  // While the index is built after a start (API.md §3 has no 503 for a search): see scanSnapshotSteps.
  if (!search.ready) return yield* scanSnapshotSteps(window, fits, query.words, offset, query.limit);

  const found = yield* search.matchSteps(query.words);
  const size = 'slots' in found ? found.slots.length : found.bitmap.count;
  const inWindow = (stored: StoredEvent): boolean => fits(stored) && (startFromMs === undefined || stored.startMs >= startFromMs);
  let total: number;
  if ('bitmap' in found && startFromMs === undefined && endByMs === undefined) {
    total = categories.length === 0 ? size : categories.reduce((sum, category) => sum + found.bitmap.countShared(search.categoryBitmap(category)), 0);
  } else if (size <= to - from) {
    total = 0;
    yield* forEachSlotSteps(found, (slot) => void (inWindow(search.eventAt(slot)!) && total++));
  } else {
    const bitmap = bitmapOf(found, search.capacity);
    total = countWindowMatches({ tree, search, matched: bitmap, categories, startFromMs, endByMs }) ?? (yield* walkCountSteps(window, (stored) => fits(stored) && bitmap.has(search.slotOf(stored)!)));
  }
  if (offset >= total) return { events: [], total };
  // Walking visits about (offset + limit) / density events of the window; sorting the matches, size * log(size).
  const walkVisits = Math.min(to - from, ((offset + query.limit) * (to - from)) / total);
  if (size * Math.log2(size + 2) * 2 < walkVisits) {
    const matches: StoredEvent[] = [];
    yield* forEachSlotSteps(found, (slot) => {
      const stored = search.eventAt(slot)!;
      if (inWindow(stored)) matches.push(stored);
    });
    return { events: matches.sort(compareEvents).slice(offset, offset + query.limit), total };
  }
  const bitmap = bitmapOf(found, search.capacity);
  return { events: yield* walkSteps(window, (stored) => fits(stored) && bitmap.has(search.slotOf(stored)!), offset, query.limit), total };
}

/** Events whose words scanSnapshotSteps reads between two steps. */
const SCANS_PER_STEP = 256;

/**
 * The page and total of `words` in `window`, read from each event's own text: the window's events are taken in one
 * walk (cheap: a test of category and end each), then their words, the costly part, are read in steps. The answer is
 * that of the state at the walk, whatever is written meanwhile, so the steps need not start over (and never run at
 * once): give them a version that does not move.
 */
export function* scanSnapshotSteps(window: RankWindow, fits: (stored: StoredEvent) => boolean, words: readonly string[], offset: number, limit: number): Steps<ListResult> {
  const candidates = walk(window, fits, 0, Number.MAX_SAFE_INTEGER);
  const matches: StoredEvent[] = [];
  for (let at = 0; at < candidates.length; at++) {
    if (hasSearchWords(candidates[at]!, words)) matches.push(candidates[at]!);
    if (at % SCANS_PER_STEP === SCANS_PER_STEP - 1) yield;
  }
  return { events: matches.slice(offset, offset + limit), total: matches.length };
}

/** The categories a query keeps, once each; empty for all of them. */
export function categoriesOf(query: ListQuery): readonly Category[] {
  if (query.categories !== undefined && query.categories.length > 0) return [...new Set(query.categories)];
  return query.category === undefined ? [] : [query.category];
}

/** The `total` of the date window alone in `tree` (as EventIndex.list counts it): starts in the window, less those ending late. */
function windowTotal(tree: OrderedEvents, query: ListQuery): number {
  const from = query.startFromMs === undefined ? 0 : tree.countStartingBefore(query.startFromMs);
  if (query.endByMs === undefined) return tree.size - from;
  const to = Math.max(from, tree.countStartingBefore(query.endByMs + 1));
  return to - from - tree.ranksEndingAfter(query.startFromMs ?? -Infinity, query.endByMs).length;
}

/** Visits every slot of `found` in ascending order, a step every SLOTS_PER_STEP slots (or bits of a bitmap). */
function* forEachSlotSteps(found: SlotSet, visit: (slot: number) => void): Steps<void> {
  if ('slots' in found) {
    const { slots } = found;
    for (let at = 0; at < slots.length; at += SLOTS_PER_STEP) {
      const end = Math.min(slots.length, at + SLOTS_PER_STEP);
      for (let each = at; each < end; each++) visit(slots[each]!);
      yield;
    }
    return;
  }
  const { words } = found.bitmap;
  const wordsPerStep = SLOTS_PER_STEP >>> 5;
  for (let at = 0; at < words.length; at += wordsPerStep) {
    const end = Math.min(words.length, at + wordsPerStep);
    for (let index = at; index < end; index++) {
      let word = words[index]!;
      while (word !== 0) {
        const low = word & -word;
        visit((index << 5) + 31 - Math.clz32(low));
        word ^= low;
      }
    }
    yield;
  }
}

function bitmapOf(found: SlotSet, capacity: number): SlotBitmap {
  if ('bitmap' in found) return found.bitmap;
  const bitmap = new SlotBitmap(capacity);
  for (const slot of found.slots) bitmap.add(slot);
  return bitmap;
}

