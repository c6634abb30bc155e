// The errors the store raises for its callers to map: it knows no HTTP.
import type { IdempotencyEntry } from './views/idempotency-table.js';
import { errorCode } from '../lib/error-code.js';

/** One `{field, message}` of an error's details (API.md §3). */
export interface UnavailableDetail {
  field: string;
  message: string;
}

/**
 * The store cannot do what was asked now (a failed write, disk full, shutting down, a database away): a 503. Its
 * message says whether anything was kept; `retryAfterSeconds` becomes a Retry-After header, `details` the body's.
 */
export class StoreUnavailable extends Error {
  override readonly name: string = 'StoreUnavailable';
  readonly retryAfterSeconds: number | undefined;
  readonly details: readonly UnavailableDetail[] | undefined;

  constructor(message: string, options: { retryAfterSeconds?: number; details?: readonly UnavailableDetail[] } = {}) {
    super(message);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.details = options.details;
  }
}

/**
 * A write's COMMIT was sent and the database never said whether it committed (API.md §12, "An unknown outcome is
 * never reported as a failure"): the write may have been saved. The answer says so, and how to learn the outcome.
 */
export class OutcomeUnknown extends StoreUnavailable {
  override readonly name = 'OutcomeUnknown';

  constructor(reason: string) {
    super(
      'The database stopped answering after this write was sent to be committed, so it may have been saved. Retry with the same Idempotency-Key: once the database answers again, the retry gets the original outcome (a retry without one may save it twice).',
      { retryAfterSeconds: 1, details: [{ field: 'outcome', message: `unknown: ${reason}` }] },
    );
  }
}

/**
 * A write under an Idempotency-Key that another instance answered (and committed) while this one waited:
 * the caller replays that answer (API.md §9.3, §12) instead of writing again.
 */
export class AlreadyAnswered extends Error {
  override readonly name = 'AlreadyAnswered';
  readonly entry: IdempotencyEntry;

  constructor(entry: IdempotencyEntry) {
    super(`Idempotency-Key ${JSON.stringify(entry.key)} was answered at seq ${entry.seq}`);
    this.entry = entry;
  }
}

/** The sentence every refused write gets once the store cannot write (API.md §7); `uncertain` when the failed batch could not be undone. */
export function cannotWriteError(reason: string, uncertain = false): StoreUnavailable {
  if (uncertain) {
    return new StoreUnavailable(`The store cannot write (${reason}), and undoing a failed write failed too: whether the last writes were saved is uncertain until the server is restarted. Writes are refused until then.`);
  }
  return new StoreUnavailable(`The store cannot write (${reason}); nothing of this request was saved. Writes are refused until the server is restarted.`);
}

/** A short, safe description of a failed write or sync, e.g. `ENOSPC: no space left on the disk`. */
export function describeWriteError(error: unknown): string {
  if (error instanceof Error && error.name === 'LogRemoved') return error.message;
  const code = errorCode(error);
  if (code === undefined) return 'an unexpected write error';
  // Own keys only: a code such as `toString` must not name a method of Object.prototype.
  return Object.hasOwn(IO_ERRORS, code) ? `${code}: ${IO_ERRORS[code]}` : code;
}

const IO_ERRORS: Record<string, string> = {
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'the log reached the largest file size allowed',
  EIO: 'input/output error on the disk',
  EROFS: 'the file system is read-only',
};
