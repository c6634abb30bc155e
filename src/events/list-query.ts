// Parses the query of GET /events strictly: known parameters only, each valid, else a 400 naming it.
import { CATEGORIES, EVENT_STATUSES } from './event.js';
import { parseDate } from './time.js';
import type { ListQuery } from '../store/event-store.js';
import { ApiError } from '../http/errors.js';
import { queryWords } from '../search/search-words.js';
import { startOfDay } from '../lib/time-zone.js';
import { clip } from '../lib/clip.js';

const DAY_MS = 86_400_000;

/** A validated list query, with the raw values kept for building `Link`. */
export interface ParsedListQuery extends ListQuery {
  /** The filters as given, in a fixed order, without page: for Link URLs. */
  filters: [string, string][];
}

/**
 * The paging parameters every list shares: `limit` 1–100 (default 50), `page` ≥ 1 (default 1). A page past
 * 2^53 − 1 (the largest integer a JSON client reads exactly) is refused, and the message says so.
 */
export function parsePaging(name: string, value: string): number {
  const max = name === 'limit' ? 100 : Number.MAX_SAFE_INTEGER;
  const range = `an integer from 1 to ${max}`;
  if (!/^[0-9]{1,16}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new ApiError('bad_request', `Query parameter ${name} must be ${range}, got "${clip(value)}".`);
  }
  return Number(value);
}

/** The most characters (code points) of `q`. */
export const MAX_Q_LENGTH = 200;

/**
 * Parses `category` (one or several, comma-separated), `start_date`, `end_date` (days of the campus zone
 * `timeZone`, default UTC), `q`, `limit`, `page`; anything else is a 400.
 */
export function parseListQuery(query: string, options: { timeZone?: string } = {}): ParsedListQuery {
  const timeZone = options.timeZone ?? 'UTC';
  const params = new URLSearchParams(query);
  const seen = new Set<string>();
  const result: ParsedListQuery = { limit: 50, page: 1, filters: [] };
  let startDate: string | undefined;
  let endDate: string | undefined;
  let categories: string | undefined;
  let q: string | undefined;
  for (const [name, value] of params) {
    if (seen.has(name)) throw new ApiError('bad_request', `Query parameter ${clip(name)} is given more than once.`);
    seen.add(name);
    switch (name) {
      case 'category': {
        const several = nameList('category', value, CATEGORIES);
        if (several.length === 1) result.category = several[0];
        else result.categories = several;
        categories = value;
        break;
      }
      case 'start_date':
        result.startFromMs = dayStart(timeZone, dateParameter(name, value));
        startDate = value;
        break;
      case 'end_date':
        // The end of day D is the start of day D + 1: 23 or 25 hours later on a daylight-saving change.
        result.endByMs = dayStart(timeZone, dateParameter(name, value) + DAY_MS);
        endDate = value;
        break;
      case 'series_id':
        result.seriesId = seriesIdParameter(value);
        break;
      case 'status':
        result.statuses = nameList('status', value, EVENT_STATUSES);
        break;
      case 'q':
        result.words = searchQuery(value);
        q = value;
        break;
      case 'limit':
      case 'page':
        result[name] = parsePaging(name, value);
        break;
      default:
        throw new ApiError('bad_request', `Unknown query parameter "${clip(name)}"; GET /events takes category, start_date, end_date, q, series_id, status, limit and page.`);
    }
  }
  if (startDate !== undefined && endDate !== undefined && startDate > endDate) {
    throw new ApiError('bad_request', `Query parameter start_date (${startDate}) must not be after end_date (${endDate}).`);
  }
  if (categories !== undefined) result.filters.push(['category', categories]);
  if (startDate !== undefined) result.filters.push(['start_date', startDate]);
  if (endDate !== undefined) result.filters.push(['end_date', endDate]);
  if (q !== undefined) result.filters.push(['q', q]);
  if (result.seriesId !== undefined) result.filters.push(['series_id', result.seriesId]);
  if (result.statuses !== undefined) result.filters.push(['status', result.statuses.join(',')]);
  return result;
}

/** The names of a comma-separated parameter (`category=academic,social`, `status=draft,pending`): each known, none twice. */
function nameList<Name extends string>(parameter: string, value: string, known: readonly Name[]): Name[] {
  const several: Name[] = [];
  for (const name of value.split(',')) {
    if (!(known as readonly string[]).includes(name)) {
      throw new ApiError('bad_request', `Query parameter ${parameter} must be one of ${known.join(', ')}, or several of them separated by commas, got "${clip(name)}".`);
    }
    if (several.includes(name as Name)) throw new ApiError('bad_request', `Query parameter ${parameter} names "${name}" more than once.`);
    several.push(name as Name);
  }
  return several;
}

/** A series id as `series_id` takes it (an unknown one matches nothing). */
function seriesIdParameter(value: string): string {
  if (!/^ser_[0-9A-Za-z]{16,}$/.test(value)) throw new ApiError('bad_request', `Query parameter series_id must be a series id (ser_ and 16 or more letters and digits), got "${clip(value)}".`);
  return value;
}

/** The words of `q`: 1–200 characters holding at least one word. */
function searchQuery(value: string): string[] {
  const length = [...value].length;
  if (length < 1 || length > MAX_Q_LENGTH) {
    throw new ApiError('bad_request', `Query parameter q must be 1 to ${MAX_Q_LENGTH} characters, got ${length}.`);
  }
  const words = queryWords(value);
  if (words.length === 0) throw new ApiError('bad_request', `Query parameter q must hold at least one word (letters or digits), got "${clip(value)}".`);
  return words;
}

/** The first instant of the day whose UTC midnight is `utcMidnightMs`, in `zone` (UTC: that midnight itself). */
function dayStart(zone: string, utcMidnightMs: number): number {
  if (zone === 'UTC') return utcMidnightMs;
  const day = new Date(utcMidnightMs);
  return startOfDay(zone, day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate());
}

/**
 * A real date `YYYY-MM-DD`, any year of four digits: one before the first event (1970) is a bound like any other
 * (start_date=1900-01-01 is every event, end_date=1969-12-31 those ending by that day's end in the campus zone).
 */
function dateParameter(name: string, value: string): number {
  const ms = parseDate(value);
  if (ms === undefined) throw new ApiError('bad_request', `Query parameter ${name} must be a real date YYYY-MM-DD, got "${clip(value)}".`);
  return ms;
}
