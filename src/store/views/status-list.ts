// Lists with a status filter (API.md §14): the public list the index keeps (published and cancelled events), less the
// cancelled ones when they are not asked for, plus the few drafts and pending events a caller may see.
import type { EventStatus, StoredEvent } from '../../events/event.js';
import type { ListQuery, ListResult } from '../event-store.js';
import { hasSearchWords } from '../../search/event-search-text.js';
import { categoriesOf } from './filtered-list.js';
import { compareEvents } from './sort-events.js';

/** What a status list draws on: the public list, and the short tables of hidden and cancelled events. */
export interface StatusSources {
  /** The public list (published and cancelled) for a query without `statuses`. */
  publicList(query: ListQuery): ListResult;
  /** The drafts and pending events, by id. */
  hidden: ReadonlyMap<string, StoredEvent>;
  /** The cancelled events, by id. */
  cancelled: ReadonlyMap<string, StoredEvent>;
}

/**
 * One page of the events whose status is one of `query.statuses`, matching the other filters, in list order. Drafts
 * and pending events are those of `query.hiddenOwner` only (all when it is undefined). Without a hidden or cancelled
 * match to merge or drop, the public list answers as it would without the filter; with some, the public list's first
 * offset + limit (+ those dropped) matches are merged with them: a page of a few.
 */
export function listByStatus(sources: StatusSources, query: ListQuery & { statuses: readonly EventStatus[] }): ListResult {
  const wanted = new Set(query.statuses);
  const extra: StoredEvent[] = [];
  if (wanted.has('draft') || wanted.has('pending')) {
    for (const stored of sources.hidden.values()) {
      if (wanted.has(stored.status!) && (query.hiddenOwner === undefined || stored.organizerEmail === query.hiddenOwner) && matchesFilters(stored, query)) extra.push(stored);
    }
  }
  const withPublished = wanted.has('published');
  const dropped: StoredEvent[] = [];
  for (const stored of sources.cancelled.values()) {
    if (withPublished === wanted.has('cancelled') || !matchesFilters(stored, query)) continue;
    // Published asked for without cancelled: the public list's cancelled matches are dropped; cancelled alone: kept.
    (withPublished ? dropped : extra).push(stored);
  }
  extra.sort(compareEvents);
  const offset = (query.page - 1) * query.limit;
  const plain: ListQuery = { ...query, statuses: undefined, hiddenOwner: undefined };
  if (!withPublished) return { events: extra.slice(offset, offset + query.limit), total: extra.length };
  if (extra.length === 0 && dropped.length === 0) return sources.publicList(plain);
  const head = sources.publicList({ ...plain, page: 1, limit: offset + query.limit + dropped.length });
  const gone = new Set(dropped);
  const merged = mergeSorted(head.events.filter((stored) => !gone.has(stored)), extra);
  return { events: merged.slice(offset, offset + query.limit), total: head.total - dropped.length + extra.length };
}

/** Whether `stored` matches the filters of `query` other than paging and status: categories, dates, words, series. */
export function matchesFilters(stored: StoredEvent, query: ListQuery): boolean {
  const categories = categoriesOf(query);
  if (categories.length > 0 && !categories.includes(stored.category)) return false;
  if (query.startFromMs !== undefined && stored.startMs < query.startFromMs) return false;
  if (query.endByMs !== undefined && stored.endMs > query.endByMs) return false;
  if (query.seriesId !== undefined && stored.seriesId !== query.seriesId) return false;
  return query.words === undefined || hasSearchWords(stored, query.words);
}

/** Two lists each in list order, merged in list order. */
function mergeSorted(a: readonly StoredEvent[], b: readonly StoredEvent[]): StoredEvent[] {
  const out: StoredEvent[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j === b.length || (i < a.length && compareEvents(a[i]!, b[j]!) <= 0)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}
