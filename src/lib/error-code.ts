// An error's `code` (`ENOENT`, `ECONNREFUSED`, PostgreSQL's `57P01`), read safely from whatever was thrown.

/** The `code` of `error` when it is a non-empty string, else undefined. */
export function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code !== '' ? code : undefined;
}

/**
 * What a client may hear of a failure of the database or another source: its code (`ECONNREFUSED`, `57P01`), or "no
 * answer". The message, which can name a host and port, stays in the log.
 */
export function shownFailure(failure: unknown): string {
  return errorCode(failure) ?? 'no answer';
}
