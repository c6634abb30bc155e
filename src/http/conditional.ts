// Conditional requests (RFC 9110 §13.1): the comparisons of If-Match and If-None-Match against an ETag.

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
