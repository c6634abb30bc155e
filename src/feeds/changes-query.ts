// Parses GET /changes strictly: `since` (required, integer ≥ 0), `limit` (1–1000, default 100) and a copy token; a Last-Event-ID header.
import { ApiError } from '../http/errors.js';
import { clip } from '../lib/clip.js';

/** A validated change-feed query. */
export interface ChangesQuery {
  since: number;
  limit: number;
  /** The copy token of the page before, on the later pages of a full copy (API.md §9.2). */
  copy?: string;
}

/** Entries per page at most, and by default. */
export const MAX_CHANGES_LIMIT = 1000;
export const DEFAULT_CHANGES_LIMIT = 100;

const INTEGER = /^[0-9]{1,15}$/;
/** A position: any integer ≥ 0 (one past every seq ever written is a 410, not a 400), up to 100 digits to keep it a finite number. */
const POSITION = /^[0-9]{1,100}$/;
/** What a copy token may look like at all (API.md §9.2); whether it is one of ours, the change feed's source says. */
const COPY_TOKEN = /^[A-Za-z0-9_-]{1,200}$/;

/** Parses `since` and `limit`; any other parameter, a repeated one or a bad value is a 400 naming it. */
export function parseChangesQuery(query: string): ChangesQuery {
  const seen = new Set<string>();
  let since: number | undefined;
  let limit = DEFAULT_CHANGES_LIMIT;
  let copy: string | undefined;
  for (const [name, value] of new URLSearchParams(query)) {
    if (seen.has(name)) throw new ApiError('bad_request', `Query parameter ${clip(name)} is given more than once.`);
    seen.add(name);
    if (name === 'since') {
      if (!POSITION.test(value)) throw new ApiError('bad_request', `Query parameter since must be an integer of at least 0 (a seq from an earlier answer, or 0 for a full copy), got "${clip(value)}".`);
      since = Number(value);
    } else if (name === 'limit') {
      if (!INTEGER.test(value) || Number(value) < 1 || Number(value) > MAX_CHANGES_LIMIT) {
        throw new ApiError('bad_request', `Query parameter limit must be an integer from 1 to ${MAX_CHANGES_LIMIT}, got "${clip(value)}".`);
      }
      limit = Number(value);
    } else if (name === 'copy') {
      if (!COPY_TOKEN.test(value)) throw new ApiError('bad_request', `Query parameter copy must be the copy token of the page before (1 to 200 characters of A-Z, a-z, 0-9, _ and -), got "${clip(value)}".`);
      copy = value;
    } else {
      throw new ApiError('bad_request', `Unknown query parameter "${clip(name)}"; GET /changes takes since, limit and copy.`);
    }
  }
  if (since === undefined) throw new ApiError('bad_request', 'Query parameter since is required: 0 for a full copy, else the next_since of the last answer.');
  return copy === undefined ? { since, limit } : { since, limit, copy };
}

/** The position a reconnecting SSE client sends (it wins over `since`); undefined when absent or empty (an SSE client with no last id). */
export function parseLastEventId(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '') return undefined;
  if (!POSITION.test(value.trim())) throw new ApiError('bad_request', `The Last-Event-ID header must be an integer of at least 0 (the id of the last change received), got "${clip(value)}".`);
  return Number(value.trim());
}
