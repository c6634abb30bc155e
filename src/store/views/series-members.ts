// The events of each series (their `series_id`), so `GET /events?series_id=` reads a few hundred events, not all of them.
import type { StoredEvent } from '../../events/event.js';
import type { ListQuery, ListResult } from '../event-store.js';
import { compareEvents } from './sort-events.js';
import { categoriesOf } from './filtered-list.js';
import { hasSearchWords } from '../../search/event-search-text.js';

/** Live events by series id; an event without a series is in none. */
export class SeriesMembers {
  readonly #bySeries = new Map<string, Map<string, StoredEvent>>();

  add(stored: StoredEvent): void {
    if (stored.seriesId === undefined) return;
    let members = this.#bySeries.get(stored.seriesId);
    if (members === undefined) this.#bySeries.set(stored.seriesId, (members = new Map()));
    members.set(stored.id, stored);
  }

  remove(stored: StoredEvent): void {
    if (stored.seriesId === undefined) return;
    const members = this.#bySeries.get(stored.seriesId);
    members?.delete(stored.id);
    if (members?.size === 0) this.#bySeries.delete(stored.seriesId);
  }

  /** One page of the series' events matching the rest of `query` (categories, dates, words), in list order (API.md §5). */
  list(query: ListQuery & { seriesId: string }): ListResult {
    const categories = categoriesOf(query);
    const matches: StoredEvent[] = [];
    for (const stored of this.#bySeries.get(query.seriesId)?.values() ?? []) {
      if (categories.length > 0 && !categories.includes(stored.category)) continue;
      if (query.startFromMs !== undefined && stored.startMs < query.startFromMs) continue;
      if (query.endByMs !== undefined && stored.endMs > query.endByMs) continue;
      if (query.words !== undefined && !hasSearchWords(stored, query.words)) continue;
      matches.push(stored);
    }
    matches.sort(compareEvents);
    const offset = (query.page - 1) * query.limit;
    return { events: matches.slice(offset, offset + query.limit), total: matches.length };
  }
}
