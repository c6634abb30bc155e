// A failed write whose undo failed too: the log may hold part (or all) of a batch that was refused.
import { errorCode } from '../lib/error-code.js';

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
    this.code = errorCode(cause);
  }
}
