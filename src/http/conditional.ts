// Conditional requests (RFC 9110 §13.1): the comparisons of If-Match and If-None-Match against an ETag, and the 412.
import { clip } from '../lib/clip.js';
import { ApiError } from './errors.js';

/** If-Match uses the strong comparison: weak tags never match; `*` matches any current representation. */
export function matchesIfMatch(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim() === etag);
}

/** If-None-Match uses the weak comparison: `W/"x"` matches `"x"`, and `*` matches any. */
export function matchesNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** Throws the 412 of an If-Match (when sent) that does not match `etag`, the current ETag of `what` (`event "evt_…"`). */
export function checkIfMatch(header: string | undefined, etag: string, what: string): void {
  if (header !== undefined && !matchesIfMatch(header, etag)) {
    throw new ApiError('precondition_failed', `If-Match ${clip(header, 80)} does not match the current ETag ${etag} of ${what}; read it again and retry.`);
  }
}
