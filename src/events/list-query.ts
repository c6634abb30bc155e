// Parses the query of GET /events strictly: known parameters only, each valid, else a 400 naming it.
import type { Category } from './event.js';
import { CATEGORIES } from './event.js';
import { parseDate } from './time.js';
import type { ListQuery } from '../store/event-store.js';
import { ApiError } from '../http/errors.js';

const DAY_MS = 86_400_000;

/** A validated list query, with the raw values kept for building `Link`. */
export interface ParsedListQuery extends ListQuery {
  /** The filters as given, in a fixed order, without page: for Link URLs. */
  filters: [string, string][];
}

/** The paging parameters every list shares: `limit` 1–100 (default 50), `page` ≥ 1 (default 1). */
export function parsePaging(name: string, value: string): number {
  const max = name === 'limit' ? 100 : Number.MAX_SAFE_INTEGER;
  const range = name === 'limit' ? 'an integer from 1 to 100' : 'an integer of at least 1';
  if (!/^[0-9]{1,16}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new ApiError('bad_request', `Query parameter ${name} must be ${range}, got "${clip(value)}".`);
  }
  return Number(value);
}

/** Parses `category`, `start_date`, `end_date`, `limit`, `page`; anything else is a 400. */
export function parseListQuery(query: string): ParsedListQuery {
  const params = new URLSearchParams(query);
  const seen = new Set<string>();
  const result: ParsedListQuery = { limit: 50, page: 1, filters: [] };
  let startDate: string | undefined;
  let endDate: string | undefined;
  for (const [name, value] of params) {
    if (seen.has(name)) throw new ApiError('bad_request', `Query parameter ${clip(name)} is given more than once.`);
    seen.add(name);
    switch (name) {
      case 'category':
        if (!(CATEGORIES as readonly string[]).includes(value)) {
          throw new ApiError('bad_request', `Query parameter category must be one of ${CATEGORIES.join(', ')}, got "${clip(value)}".`);
        }
        result.category = value as Category;
        break;
      case 'start_date':
        result.startFromMs = dateParameter(name, value);
        startDate = value;
        break;
      case 'end_date':
        result.endByMs = dateParameter(name, value) + DAY_MS;
        endDate = value;
        break;
      case 'series_id':
        result.seriesId = seriesIdParameter(value);
        break;
      case 'limit':
      case 'page':
        result[name] = parsePaging(name, value);
        break;
      default:
        throw new ApiError('bad_request', `Unknown query parameter "${clip(name)}"; GET /events takes category, start_date, end_date, series_id, limit and page.`);
    }
  }
  if (startDate !== undefined && endDate !== undefined && startDate > endDate) {
    throw new ApiError('bad_request', `Query parameter start_date (${startDate}) must not be after end_date (${endDate}).`);
  }
  if (result.category !== undefined) result.filters.push(['category', result.category]);
  if (startDate !== undefined) result.filters.push(['start_date', startDate]);
  if (endDate !== undefined) result.filters.push(['end_date', endDate]);
  if (result.seriesId !== undefined) result.filters.push(['series_id', result.seriesId]);
  return result;
}

/** A series id as `series_id` takes it (an unknown one matches nothing). */
function seriesIdParameter(value: string): string {
  if (!/^ser_[0-9A-Za-z]{16,64}$/.test(value)) throw new ApiError('bad_request', `Query parameter series_id must be a series id (ser_ and 16 or more letters and digits), got "${clip(value)}".`);
  return value;
}

function dateParameter(name: string, value: string): number {
  const ms = parseDate(value);
  if (ms === undefined || ms > Date.UTC(9999, 11, 31) || ms < Date.UTC(1970, 0, 1)) {
    throw new ApiError('bad_request', `Query parameter ${name} must be a real date YYYY-MM-DD between 1970 and 9999, got "${clip(value)}".`);
  }
  return ms;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
