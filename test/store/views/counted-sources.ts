// Shared by the work tests of filtered-list and window-count: list sources whose trees and search index count the
// events read from them, so a test can pin which way a list took by the work it did, never by time.
import { CATEGORIES, type StoredEvent } from '../../../src/events/event.js';
import type { ListSources } from '../../../src/store/views/filtered-list.js';
import { OrderedEvents } from '../../../src/store/views/ordered-events.js';
import { SearchIndex } from '../../../src/search/search-index.js';
import { sortEvents } from '../../../src/store/views/sort-events.js';
import { STORE_EVENT_FORMS } from '../../../src/store/views/store-event-forms.js';

export /** Sources whose trees and search index count the events read from them. */
function countedSources(events: readonly StoredEvent[]): { sources: ListSources; reads: () => number } {
  let reads = 0;
  const counted = (tree: OrderedEvents): OrderedEvents => {
    const slice = tree.slice.bind(tree);
    tree.slice = (rank: number, count: number) => {
      const out = slice(rank, count);
      reads += out.length;
      return out;
    };
    return tree;
  };
  const sorted = sortEvents(events);
  const all = counted(new OrderedEvents(sorted));
  const trees = new Map(CATEGORIES.map((category) => [category, counted(new OrderedEvents(sorted.filter((stored) => stored.category === category)))]));
  const search = new SearchIndex([], STORE_EVENT_FORMS);
  for (const stored of events) search.put(stored, undefined);
  const eventAt = search.eventAt.bind(search);
  search.eventAt = (slot: number) => {
    reads++;
    return eventAt(slot);
  };
  return { sources: { all, tree: (category) => trees.get(category)!, search }, reads: () => reads };
}
