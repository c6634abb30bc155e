// Shared by the filtered-list and window tests: what a list query must answer, found the plain way (every event
// tested against every filter, then sorted and paged).
import type { StoredEvent } from '../../../src/events/event.js';
import type { ListQuery } from '../../../src/store/event-store.js';
import { compareEvents } from '../../../src/store/views/sort-events.js';

/** An event and its own search words. */
export interface PlainEntry {
  stored: StoredEvent;
  words: readonly string[];
}

/** The page `query` asks for (by id) and the count of every match; `categories: []` means all, as `category` absent does. */
export function plainList(entries: Iterable<PlainEntry>, query: ListQuery): { ids: string[]; total: number } {
  const categories = query.categories !== undefined && query.categories.length > 0 ? query.categories : query.category === undefined ? undefined : [query.category];
  const keep = ({ stored, words }: PlainEntry): boolean => {
    if (categories !== undefined && !categories.includes(stored.category)) return false;
    if (query.startFromMs !== undefined && stored.startMs < query.startFromMs) return false;
    if (query.endByMs !== undefined && stored.endMs > query.endByMs) return false;
    return (query.words ?? []).every((word) => words.some((own) => own.startsWith(word)));
  };
  const matches = [...entries].filter(keep).map(({ stored }) => stored).sort(compareEvents);
  const offset = (query.page - 1) * query.limit;
  return { ids: matches.slice(offset, offset + query.limit).map((stored) => stored.id), total: matches.length };
}
