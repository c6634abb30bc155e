// Whether this instance's writes commit, as its last write batch found: a database that answers reads may commit nothing.
import { describeDatabaseError, shownDatabaseError } from './client.js';
import type { PostgresStoreLogger } from './postgres-store-options.js';
import { SchemaTooNewError } from './schema.js';

/** How often, at most, a probe (WriteBatches.probe) tries whether commits work again after a write failed. */
const PROBE_MS = 1_000;

/**
 * Why the last write batch failed, until one commits (for /health): the database may answer reads and still commit
 * nothing (a synchronous standby missing, the log's lock held by a commit waiting for one), so a catch-up that
 * succeeds is no proof. While writes fail and none comes, the store tries a probe, which writes a row (probeDue).
 */
export class WriteHealth {
  readonly #logger: PostgresStoreLogger;
  readonly #now: () => number;
  #failure: string | undefined;
  #lastProbe = -Infinity;
  /** Something else that writes failed (a rate-limit lease): a probe tells whether writes do, before /health says so. */
  #suspected = false;

  constructor(logger: PostgresStoreLogger, now: () => number) {
    this.#logger = logger;
    this.#now = now;
  }

  /** Why the last batch failed (an error code, or "no answer"), or undefined once one committed. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /**
   * A write batch ended: committed when `failure` is undefined. Only a commit that wrote a row proves writes commit
   * (one that wrote nothing never waits for a synchronous standby): `wrote` says whether it did.
   */
  ended(failure: unknown, wrote: boolean): void {
    if (failure === undefined) {
      if (!wrote) return;
      if (this.#failure !== undefined) this.#logger.info('writes commit again', {});
      this.#failure = undefined;
      return;
    }
    if (this.#failure === undefined) this.#logger.warn('a write could not be committed; /health says 503 until one is', { error: describeDatabaseError(failure) });
    this.#failure = failure instanceof SchemaTooNewError ? failure.message : shownDatabaseError(failure);
  }

  /**
   * Another write failed (a rate-limit lease, refused before any write batch): the next probe says whether writes
   * commit, and only its failure turns /health to 503 (a lease may fail for one key's lock held by a stalled instance).
   */
  suspect(): void {
    this.#suspected = true;
  }

  /** Whether a probe should be tried now: writes failed (or are suspected to), and none was tried in the last PROBE_MS. */
  probeDue(): boolean {
    if ((this.#failure === undefined && !this.#suspected) || this.#now() - this.#lastProbe < PROBE_MS) return false;
    this.#suspected = false;
    this.#lastProbe = this.#now();
    return true;
  }
}
