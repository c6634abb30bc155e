// Parses the query of GET /series: `status` (as GET /events takes it, API.md §14), `limit` and `page`; anything else is a 400.
import { ApiError } from '../http/errors.js';
import { parseListQuery, parsePaging } from '../events/list-query.js';
import type { EventStatus } from '../events/event.js';
import { clip } from '../lib/clip.js';

/** A validated GET /series query. */
export interface SeriesListQuery {
  limit: number;
  page: number;
  /** Only series of these statuses; undefined: published and cancelled ones. */
  statuses: readonly EventStatus[] | undefined;
}

/** `status`, `limit` and `page` (API.md §5's rules); anything else is a 400. */
export function parseSeriesListQuery(query: string): SeriesListQuery {
  const result: SeriesListQuery = { limit: 50, page: 1, statuses: undefined };
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(query)) {
    if (seen.has(name)) throw new ApiError('bad_request', `Query parameter ${clip(name, 80)} is given more than once.`);
    seen.add(name);
    if (name === 'status') result.statuses = parseListQuery(new URLSearchParams({ status: value }).toString()).statuses;
    else if (name === 'limit' || name === 'page') result[name] = parsePaging(name, value);
    else throw new ApiError('bad_request', `Unknown query parameter "${clip(name, 80)}"; GET /series takes status, limit and page (occurrences: GET /events?series_id=).`);
  }
  return result;
}
