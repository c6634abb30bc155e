// Whether this instance's writes commit, as its last write batch found: a database that answers reads may commit
// nothing; and whether a newer program migrated the database, after which this one must write nothing.
import { describeDatabaseError, type Queryable } from './client.js';
import { shownFailure } from '../../lib/error-code.js';
import type { PostgresStoreLogger } from './postgres-store-options.js';
import { newerSchemaSince, SCHEMA_VERSION_SQL, SchemaTooNewError } from './schema.js';

/** How often, at most, a probe (WriteBatches.probe) tries whether commits work again after a write failed. */
const PROBE_MS = 1_000;

/** How often the schema's version is read (besides every write batch): an instance that writes nothing learns it so. */
const SCHEMA_LOOK_MS = 10_000;

/**
 * Why the last write batch failed, until one commits (for /health): the database may answer reads and still commit
 * nothing (a synchronous standby missing, the log's lock held by a commit waiting for one), so a catch-up that
 * succeeds is no proof. While writes fail and none comes, the store tries a probe, which writes a row (probeDue).
 */
export class WriteHealth {
  readonly #logger: PostgresStoreLogger;
  readonly #now: () => number;
  readonly #db: Queryable;
  #failure: string | undefined;
  /** Set while the database's schema is newer than this program's: writes are refused, whatever the last batch found. */
  #newer: SchemaTooNewError | undefined;
  #lastSchemaLook = -Infinity;
  /** A look is on its way: a database that does not answer gets one at a time. */
  #looking = false;
  #lastProbe = -Infinity;
  /** Something else that writes failed (a rate-limit lease): a probe tells whether writes do, before /health says so. */
  #suspected = false;

  constructor(logger: PostgresStoreLogger, now: () => number, db: Queryable) {
    this.#logger = logger;
    this.#now = now;
    this.#db = db;
  }

  /** Why writes are refused (for /health), or undefined while the last batch committed and the schema is ours. */
  get reason(): string | undefined {
    if (this.#newer !== undefined) return this.#newer.message;
    return this.#failure === undefined ? undefined : `the last write could not be committed: ${this.#failure}; trying again`;
  }

  /**
   * A write batch ended: committed when `failure` is undefined. Only a commit that wrote a row proves writes commit
   * (one that wrote nothing never waits for a synchronous standby): `wrote` says whether it did.
   */
  ended(failure: unknown, wrote: boolean): void {
    if (failure instanceof SchemaTooNewError) return this.#sawSchema(failure);
    if (failure === undefined) {
      if (!wrote) return;
      this.#newer = undefined;
      if (this.#failure !== undefined) this.#logger.info('writes commit again', {});
      this.#failure = undefined;
      return;
    }
    if (this.#failure === undefined) this.#logger.warn('a write could not be committed; /health says 503 until one is', { error: describeDatabaseError(failure) });
    this.#failure = shownFailure(failure);
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

  /** Reads the schema's version if it was not read in the last 10 s (called on every poll of the store). */
  lookAtSchema(): void {
    if (this.#looking || this.#now() - this.#lastSchemaLook < SCHEMA_LOOK_MS) return;
    this.#lastSchemaLook = this.#now();
    this.#looking = true;
    this.#db.query<{ version: string | null }>(`SELECT ${SCHEMA_VERSION_SQL} AS version`).then(
      ([row]) => this.#sawSchema(newerSchemaSince(row?.version)),
      () => undefined, // the database away: the store's own reads say so
    ).finally(() => (this.#looking = false));
  }

  #sawSchema(newer: SchemaTooNewError | undefined): void {
    if (newer !== undefined && this.#newer === undefined) this.#logger.warn('writes are refused: a newer build migrated the database; stop this instance', { reason: newer.message });
    else if (newer === undefined && this.#newer !== undefined) this.#logger.info('the database\'s schema is this program\'s again; writes resume', {});
    this.#newer = newer;
  }
}
