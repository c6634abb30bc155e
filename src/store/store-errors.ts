// The errors the store raises for its callers to map: it knows no HTTP.
import type { IdempotencyEntry } from './views/idempotency-table.js';

/** The store cannot write (a failed write, disk full, shutting down): nothing of the change was kept. */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
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
