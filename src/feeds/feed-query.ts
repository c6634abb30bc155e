// Parses the query of GET /events.ics: the filters of GET /events (same checks), no paging, `key` left to the pipeline, 31 days back by default.
import type { Role } from '../auth/principal.js';
import { refuseHiddenStatuses } from '../events/handlers.js';
import { ApiError } from '../http/errors.js';
import { parseListQuery, type ParsedListQuery } from '../events/list-query.js';
import { localTime, startOfDay } from '../lib/time-zone.js';
import { clip } from '../lib/clip.js';

/** The most events one feed holds (API.md §9.1). */
export const FEED_MAX_EVENTS = 1000;

/** Without `start_date`, the feed starts this many days before today (in the campus zone), so past events fall away. */
export const DEFAULT_LOOKBACK_DAYS = 31;

const DAY_MS = 86_400_000;

/**
 * The list query of a feed request at instant `nowMs`: the first FEED_MAX_EVENTS matches. `key` is
 * skipped (the pipeline has already judged it); `limit`, `page` and anything unknown are a 400. Days are
 * those of `timeZone` (default UTC). Asking for drafts or pending events is a 403 for a `role` that never sees them
 * (API.md §14, as on GET /events), else a 400: they are in no calendar.
 */
export function parseFeedQuery(query: string, nowMs: number, options: { timeZone?: string; role?: Role } = {}): ParsedListQuery {
  const timeZone = options.timeZone ?? 'UTC';
  const filters = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(query)) {
    if (name === 'key') continue;
    if (name === 'limit' || name === 'page') {
      throw new ApiError('bad_request', `Query parameter ${name} is not taken by GET /events.ics: the feed has no pages, it holds the first ${FEED_MAX_EVENTS} matching events.`);
    }
    if (name !== 'category' && name !== 'start_date' && name !== 'end_date' && name !== 'q' && name !== 'series_id' && name !== 'status') {
      throw new ApiError('bad_request', `Unknown query parameter "${clip(name)}"; GET /events.ics takes category, start_date, end_date, q, series_id, status and key.`);
    }
    filters.append(name, value);
  }
  const parsed = parseListQuery(filters.toString(), { timeZone });
  // A calendar is for everyone it is shared with: drafts and pending events are never in one (API.md §14).
  const hidden = parsed.statuses?.find((status) => status === 'draft' || status === 'pending');
  if (hidden !== undefined && options.role !== undefined) refuseHiddenStatuses(options.role);
  if (hidden !== undefined) throw new ApiError('bad_request', `Query parameter status of GET /events.ics may be published or cancelled (or both), got "${hidden}": drafts and pending events are in no calendar.`);
  parsed.limit = FEED_MAX_EVENTS;
  parsed.page = 1;
  if (parsed.startFromMs === undefined) parsed.startFromMs = lookbackStart(timeZone, nowMs);
  return parsed;
}

/** The start of the day DEFAULT_LOOKBACK_DAYS before the day of `nowMs` in `zone`. */
function lookbackStart(zone: string, nowMs: number): number {
  if (zone === 'UTC') return Math.floor(nowMs / DAY_MS) * DAY_MS - DEFAULT_LOOKBACK_DAYS * DAY_MS;
  const today = localTime(zone, nowMs);
  const day = new Date(Date.UTC(today.year, today.month - 1, today.day) - DEFAULT_LOOKBACK_DAYS * DAY_MS);
  return startOfDay(zone, day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate());
}
