// A failed write whose undo failed too: the log may hold part (or all) of a batch that was refused.

/**
 * Thrown by the file store when a batch failed (a write or fdatasync) and cutting the log back
 * to its last good line failed as well. The refused writes may then be there after a restart:
 * the store must not say "nothing saved". Carries the first failure's `code`.
 */
export class UncertainWriteError extends Error {
  readonly code: string | undefined;

  constructor(cause: unknown, undoError: unknown) {
    super(`a write failed (${String(cause)}) and undoing it failed too (${String(undoError)})`, { cause });
    this.name = 'UncertainWriteError';
    // A string, a number or null has no code of its own: reading one gives undefined.
    const code = (cause as { code?: unknown } | null | undefined)?.code;
    this.code = typeof code === 'string' ? code : undefined;
  }
}
