// The PostgreSQL engine: one log table in global seq order; each write's transaction catches up, decides with the shared write queue, then commits.
import type { StoredEvent } from '../../events/event.js';
import { ChangeLog } from '../views/change-log.js';
import type { EventChange, EventStore, GroupChange, GroupResult, ListQuery, ListResult, RosterChange, RosterResult, StoredDocument, WriteOptions } from '../event-store.js';
import type { RosterView } from '../views/roster.js';
import { StoreUnavailable } from '../store-errors.js';
import type { WriteQueue } from '../write/write-queue.js';
import type { Views } from '../views/apply-record.js';
import { describeDatabaseError, type Database } from './client.js';
import { shownFailure } from '../../lib/error-code.js';
import { KeyTable } from './key-table.js';
import { notSent, UncertainWrites } from './uncertain-writes.js';
import { RateLeaseTable } from './rate-leases.js';
import { StreamSlotTable } from './stream-slots.js';
import { LOG_CHANNEL } from './log-table.js';
import { CheckpointPassed } from './catch-up.js';
import { LogFollower } from './log-follower.js';
import { WriteBatches } from './write-batch.js';
import { WriteHealth } from './write-health.js';
import { ChangeHistory, type ChangeHistorySource } from '../views/change-history.js';
import { readHistory } from './history-feed.js';
import { PostgresWebhookTable } from './webhook-table.js';
import { loadViews } from './checkpoint-load.js';
import { NO_CHECKPOINT, type Checkpoint } from './checkpoint-table.js';
import { EventIndex } from '../views/event-index.js';
import { DocumentTable } from '../views/document-table.js';
import { IdempotencyTable, type IdempotencyEntry, type IdempotencyTag, type IdempotencyUse } from '../views/idempotency-table.js';
import { RosterTable } from '../views/roster-table.js';
import type { CheckpointOutcome } from './checkpoint-write.js';
import { CheckpointKeeper } from './checkpoint-keeper.js';
import { DEFAULT_CHECKPOINT_MIN_BYTES, type PostgresStoreLogger, type PostgresStoreOptions } from './postgres-store-options.js';
import { downReason } from './primary.js';

/**
 * An EventStore over one PostgreSQL database shared by several instances. Reads are served from the same
 * in-memory views as the file store's, which follow what every instance commits (log-follower.ts). A batch of
 * writes takes the log's advisory lock in its transaction, so sequence numbers are assigned one transaction at a
 * time and commit in order: a follower reading `seq > last` never skips one that commits late. History is bounded
 * by checkpoints (checkpoint-write.ts): an instance starts from the newest and the rows after it, and writes the
 * next one when the log is due.
 */
export class PostgresStore implements EventStore {
  readonly #db: Database;
  /** Changed in place by a restart from a checkpoint: the write batches hold this object. */
  readonly #views: Views;
  readonly #now: () => number;
  readonly #logger: PostgresStoreLogger;
  readonly #pollMs: number;
  readonly changes: ChangeLog;
  /** What every instance on the database shares: the API keys, rate-limit slots, webhooks (API.md §13) and open change streams (§9.2's caps). */
  readonly keys: KeyTable;
  readonly rateLeases: RateLeaseTable;
  readonly webhookTable: PostgresWebhookTable;
  readonly streamSlots: StreamSlotTable;
  /** Told of each record applied here with its context (webhooks): this instance's writes (the write queue) and others' (applyRecord). */
  readonly #history = new ChangeHistory();
  /** Until releaseStart() (with PostgresStoreOptions.holdAtStart): no checkpoint is considered. */
  #starting: boolean;
  #lastSeq = 0;
  /** Applies what other instances commit; the views' turn, which every batch and every catch-up takes. */
  readonly #follower: LogFollower;
  readonly #batches: WriteBatches;
  /** Why the database cannot be used now (for 503 and /health); undefined while it can. */
  #down: string | undefined;
  /** Whether writes commit, as the last batch that wrote found (for /health); tried by a probe while they fail. */
  readonly #writes: WriteHealth;
  #closed = false;
  /** Writes whose outcome stayed unknown, while the database is away: a retry is told so again. */
  readonly #uncertain = new UncertainWrites();
  #timer: NodeJS.Timeout | undefined;
  #unlisten: (() => Promise<void>) | undefined;
  /** The newest checkpoint the views know of, and the next one. */
  readonly #checkpoints: CheckpointKeeper;

  /** @internal Use openPostgresStore (open-postgres-store.ts). */
  constructor(db: Database, options: PostgresStoreOptions) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger ?? { info() {}, warn() {} };
    this.#writes = new WriteHealth(this.#logger, this.#now, db);
    this.#pollMs = options.pollMs ?? 500;
    this.keys = new KeyTable(db);
    this.rateLeases = new RateLeaseTable(db);
    this.rateLeases.onFailure(() => this.#writes.suspect());
    this.webhookTable = new PostgresWebhookTable(db);
    this.streamSlots = new StreamSlotTable(db);
    // Empty until start() reads the database; a start from a checkpoint replaces them in place.
    this.changes = new ChangeLog((id) => this.#views.index.get(id));
    this.#views = { index: new EventIndex(), rosters: new RosterTable(), changes: this.changes, idempotency: new IdempotencyTable(), documents: new DocumentTable(), history: this.#history };
    this.#starting = options.holdAtStart === true;
    this.#history.onCompactionRecheck(() => this.#checkpoints.consider());
    this.#checkpoints = new CheckpointKeeper(
      {
        db,
        now: this.#now,
        logger: this.#logger,
        minBytes: options.compactMinBytes ?? DEFAULT_CHECKPOINT_MIN_BYTES,
        onStep: options.onCheckpointStep,
        views: () => this.#views,
        lastSeq: () => this.#lastSeq,
        writable: () => this.writable,
        turn: () => this.#follower.turn(),
        catchUp: () => this.catchUp(),
        // Lasting while the service starts: the keeper then considers none at all (a brief hold it would wait out).
        held: (warn) => (this.#starting ? { reason: 'the service is still starting', lasting: true } : this.#history.compactionHeld(warn)),
      },
      NO_CHECKPOINT,
    );
    this.#follower = new LogFollower({
      db,
      views: this.#views,
      changes: this.changes,
      history: this.#history,
      checkpoints: this.#checkpoints,
      now: this.#now,
      logger: this.#logger,
      lastSeq: () => this.#lastSeq,
      advance: (seq) => (this.#lastSeq = seq),
      down: () => this.#down,
      reachable: () => this.#reachable(),
      lost: (error) => this.#lost(error),
      closed: () => this.#closed,
    });
    this.#batches = new WriteBatches({
      db,
      views: this.#views,
      now: this.#now,
      lastSeq: () => this.#lastSeq,
      committed: (seq) => {
        this.#lastSeq = seq;
        this.#checkpoints.consider();
      },
      down: () => this.#down,
      turn: () => this.#follower.turn(),
      catchUp: (queryable, read) => this.#follower.catchUpWith(queryable, read),
      lost: (error) => this.#lost(error),
      unavailable: (idem) => this.#unavailable(idem),
      uncertain: (tags) => this.#uncertain.remember(tags),
      ended: (failure, wrote) => this.#writes.ended(failure, wrote),
    });
  }

  /** Reads the newest checkpoint and the rows after it, then follows the log: notifications wake it, a poll backs them up. */
  async start(): Promise<void> {
    this.#follower.install(await loadViews(this.#db, { now: this.#now }));
    this.#unlisten = await this.#db.listen(LOG_CHANNEL, (payload) => {
      if (Number(payload) > this.#lastSeq) this.#follower.follow(Number(payload));
    }, () => this.#follower.follow());
    this.#timer = setInterval(() => {
      this.#follower.follow();
      this.#writes.lookAtSchema();
      // After a failed write, with the database answering and no write under way: does a commit work again?
      if (this.#down === undefined && !this.#closed && this.#batches.idle && this.#writes.probeDue()) this.#batches.probe();
    }, this.#pollMs);
    this.#timer.unref();
    this.#checkpoints.consider();
  }

  /** Lets checkpoints be written (see PostgresStoreOptions.holdAtStart), and considers one now. */
  releaseStart(): void {
    this.#starting = false;
    this.#checkpoints.consider();
  }

  /** The newest checkpoint this instance knows of (seq 0: none yet). */
  get checkpointSeen(): Checkpoint {
    return this.#checkpoints.known;
  }

  /**
   * Writes a checkpoint now if this instance can (no other is writing one), whether or not the log is due (with
   * `due: true`, only when §7's rule says it is, as the store does by itself after writes); joins one under way.
   * Resolves once this instance's views have taken it in.
   */
  checkpoint(options: { due?: boolean } = {}): Promise<CheckpointOutcome> {
    if (this.#closed) return Promise.resolve({ skipped: 'the store is closing' });
    return this.#checkpoints.write(options);
  }

  /** The seq of the newest record applied to this instance's views. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  get(id: string): StoredEvent | undefined {
    return this.#views.index.get(id);
  }

  list(query: ListQuery): ListResult {
    return this.#views.index.list(query);
  }

  listInTurns(query: ListQuery): Promise<ListResult> {
    return this.#views.index.listInTurns(query);
  }

  roster(eventId: string): RosterView {
    return this.#views.rosters.get(eventId);
  }

  rememberedAnswer(keyId: string, key: string, nowMs: number): IdempotencyEntry | undefined {
    return this.#views.idempotency.find(keyId, key, nowMs);
  }

  /** The answers this API key holds (every instance's, as this one has applied them), for its quota. */
  idempotencyUse(keyId: string, nowMs: number): IdempotencyUse {
    return this.#views.idempotency.use(keyId, nowMs);
  }

  get size(): number {
    return this.#views.index.size;
  }

  /** Every record as it is applied here, in seq order, whichever instance wrote it; and the past read back from campus_log. */
  get history(): ChangeHistorySource {
    return {
      subscribe: (listener) => this.#history.subscribe(listener),
      // Told when this instance takes in a checkpoint, whoever wrote it (rows at or before its seq are gone).
      onCompacted: (listener) => this.#history.onCompacted(listener),
      holdCompaction: (hold) => this.#history.holdCompaction(hold),
      readAfter: (since, limit) => readHistory(this.#db, { since, through: this.#lastSeq, limit }, this.#now()),
    };
  }

  get writable(): boolean {
    return !this.#closed && this.#down === undefined && this.#writes.reason === undefined;
  }

  get unwritableReason(): string | undefined {
    if (this.#closed) return 'the store is closing';
    if (this.#down !== undefined) return downReason(this.#down, this.#db.stalePrimary?.());
    return this.#writes.reason;
  }

  write(id: string, change: EventChange, options: WriteOptions = {}): Promise<StoredEvent | null> {
    return this.#queue((queue) => queue.write(id, change, options), options) as Promise<StoredEvent | null>;
  }

  writeGroup(change: GroupChange, options: WriteOptions = {}): Promise<GroupResult> {
    return this.#queue((queue) => queue.writeGroup(change, options), options) as Promise<GroupResult>;
  }

  document(collection: string, id: string): StoredDocument | undefined {
    return this.#views.documents.get(collection, id);
  }

  documents(collection: string): StoredDocument[] {
    return this.#views.documents.list(collection);
  }

  changeRegistrations(eventId: string, change: RosterChange, options: WriteOptions = {}): Promise<RosterResult> {
    return this.#queue((queue) => queue.changeRegistrations(eventId, change, options), options) as Promise<RosterResult>;
  }

  /** Applies what other instances committed, now; true when anything new was applied (see LogFollower.catchUp). */
  catchUp(): Promise<boolean> {
    return this.#follower.catchUp();
  }

  /** catchUp() before a 404 or a 410: false when the database confirmed there is nothing new, else a 503 (see LogFollower). */
  catchUpBeforeDenying(): Promise<boolean> {
    return this.#follower.catchUpBeforeDenying();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#batches.drain();
    await this.#follower.settled();
    await this.#checkpoints.settled();
    await this.#unlisten?.().catch(() => undefined);
    await this.#db.end();
  }

  #queue(run: (queue: WriteQueue) => Promise<unknown>, options: WriteOptions): Promise<unknown> {
    if (this.#closed) return Promise.reject(new StoreUnavailable('The server is shutting down; nothing of this request was saved. Retry in a moment.'));
    if (this.#down !== undefined) {
      // A retry of a write whose outcome stayed unknown must not hear that nothing was saved: the first may have been.
      const unknown = this.#uncertain.retry(options.idem, this.#down);
      if (unknown !== undefined) return Promise.reject(unknown);
      return Promise.reject(this.#unavailable(options.idem));
    }
    return this.#batches.queue(run, options);
  }

  /** A catch-up went through: when the database was down, it is back, and writes resume. */
  #reachable(): void {
    if (this.#down === undefined) return;
    this.#logger.info('the database is reachable again; writes resume', {});
    this.#down = undefined;
    this.#uncertain.clear();
  }

  #unavailable(idem?: IdempotencyTag): StoreUnavailable {
    return notSent(this.#down, idem);
  }

  /** The database failed: refuse writes until a catch-up succeeds (the poll keeps trying). */
  #lost(error: unknown): void {
    if (error instanceof CheckpointPassed) {
      // A write's catch-up found it (it holds the log's lock: no time to read a checkpoint there); the next catch-up reads it.
      this.#down ??= 'this instance is reading a checkpoint another instance wrote';
      this.#follower.follow();
      return;
    }
    // The log gets the whole error; answers (503s, /health, which needs no key) only its code: the message names the host.
    if (this.#down === undefined) this.#logger.warn('the database cannot be reached; writes get 503 until it is back', { error: describeDatabaseError(error) });
    this.#down = shownFailure(error);
  }
}
