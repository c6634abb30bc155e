// A start or a command that waited too long for a lock another session holds, as a sentence an operator can act on.

/** PostgreSQL's SQLSTATE for `lock_timeout` running out (lock_not_available). */
export const LOCK_NOT_AVAILABLE = '55P03';

/**
 * The sentence for a wait on a lock that ran out (the session's 3 s `lock_timeout`): the one long holder there is, a
 * `migrate` copying a folder in, holds the tables for the whole copy. Undefined for any other error.
 */
export function lockedTables(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || (error as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) return undefined;
  return "the database's tables stayed locked by another session for over 3 s (a migrate still copying a folder into it?): try again once it is done";
}
