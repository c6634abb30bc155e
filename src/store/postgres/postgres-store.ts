// The PostgreSQL engine: one log table in global seq order; each write's transaction catches up, decides with the shared write queue, then commits.
import type { StoredEvent } from '../../events/event.js';
import { ChangeLog } from '../views/change-log.js';
import type { EventChange, EventStore, GroupChange, GroupResult, ListQuery, ListResult, RosterChange, RosterResult, StoredDocument, WriteOptions } from '../event-store.js';
import type { RosterView } from '../views/roster.js';
import { StoreUnavailable } from '../store-errors.js';
import type { WriteQueue } from '../write/write-queue.js';
import type { Views } from '../views/apply-record.js';
import { describeDatabaseError, type Database, type Queryable } from './client.js';
import { shownFailure } from '../../lib/error-code.js';
import { KeyTable } from './key-table.js';
import { notSent, UncertainWrites } from './uncertain-writes.js';
import { RateLeaseTable } from './rate-leases.js';
import { StreamSlotTable } from './stream-slots.js';
import { LOG_CHANNEL } from './log-table.js';
import { catchUp, CheckpointPassed, type CatchUpTarget, type LogRow } from './catch-up.js';
import { WriteBatches } from './write-batch.js';
import { WriteHealth } from './write-health.js';
import { ChangeHistory, type ChangeHistorySource } from '../views/change-history.js';
import { readHistory } from './history-feed.js';
import { PostgresWebhookTable } from './webhook-table.js';
import { loadViews, type LoadedViews } from './checkpoint-load.js';
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
 * in-memory views as the file store's. A batch of writes takes the log's advisory lock in its transaction, so
 * sequence numbers are assigned one transaction at a time and commit in order: a follower reading `seq > last`
 * never skips one that commits late. History is bounded by checkpoints (checkpoint-write.ts): an instance starts
 * from the newest and the rows after it, and writes the next one when the log is due.
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
  /** Every batch's decisions and every catch-up run after the one before: the views change in one order. */
  #chain: Promise<void> = Promise.resolve();
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
        turn: () => this.#turn(),
        catchUp: () => this.catchUp(),
        // Lasting while the service starts: the keeper then considers none at all (a brief hold it would wait out).
        held: (warn) => (this.#starting ? { reason: 'the service is still starting', lasting: true } : this.#history.compactionHeld(warn)),
      },
      NO_CHECKPOINT,
    );
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
      turn: () => this.#turn(),
      catchUp: (queryable, read) => this.#catchUp(queryable, read),
      lost: (error) => this.#lost(error),
      unavailable: (idem) => this.#unavailable(idem),
      uncertain: (tags) => this.#uncertain.remember(tags),
      ended: (failure, wrote) => this.#writes.ended(failure, wrote),
    });
  }

  /** Reads the newest checkpoint and the rows after it, then follows the log: notifications wake it, a poll backs them up. */
  async start(): Promise<void> {
    this.#install(await loadViews(this.#db, { now: this.#now }));
    this.#unlisten = await this.#db.listen(LOG_CHANNEL, (payload) => {
      if (Number(payload) > this.#lastSeq) this.#follow(Number(payload));
    }, () => this.#follow());
    this.#timer = setInterval(() => {
      this.#follow();
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

  /**
   * Applies what other instances committed, now; true when anything new was applied. While the database is away, or
   * slow to answer, false at once or after CATCH_UP_WAIT_MS (the stall guard then lets requests go on from memory).
   */
  async catchUp(): Promise<boolean> {
    return (await this.#look()).applied;
  }

  /**
   * catchUp() before an answer that memory alone must not give, a 404 or a 410 (freshOnNotFound): false when the
   * database confirmed there is nothing new; rejects with StoreUnavailable (503) when it is away or does not answer
   * within CATCH_UP_WAIT_MS, since this instance cannot tell then (API.md §12).
   */
  async catchUpBeforeDenying(): Promise<boolean> {
    const { applied, answered } = await this.#look();
    if (applied) return true;
    if (answered && this.#down === undefined) return false;
    throw new StoreUnavailable(`The database cannot be reached${this.#down === undefined ? ' in time' : ` (${this.#down})`}, so this instance cannot tell whether another one has written it; this request changed nothing. Retry in a moment.`, { retryAfterSeconds: 1 });
  }

  /** Follows the log now: whether anything was applied, and whether the database answered within CATCH_UP_WAIT_MS. */
  async #look(): Promise<{ applied: boolean; answered: boolean }> {
    if (this.#down !== undefined) return { applied: false, answered: false };
    const before = this.#lastSeq;
    this.#follow();
    let timer: NodeJS.Timeout | undefined;
    let answered = false;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, CATCH_UP_WAIT_MS)));
    const chain = this.#chain.then(() => void (answered = true), () => undefined);
    await Promise.race([chain, late]).finally(() => clearTimeout(timer));
    return { applied: this.#lastSeq > before, answered };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#batches.drain();
    await this.#chain;
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

  /** Waits for the views' turn (after every step queued before); resolves with the function that ends the turn. */
  #turn(): Promise<() => void> {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const turn = this.#chain.then(() => end);
    this.#chain = turn.then(() => ended);
    return turn;
  }

  #exclusive(step: () => Promise<void>): void {
    this.#chain = this.#chain.then(step).catch((error: unknown) => this.#lost(error));
  }

  /**
   * Catches up with what other instances committed (a notification, the poll, a reconnect). A notification of
   * `upTo` needs no read once the views reach it: usually this instance's own commit, applied meanwhile.
   */
  #follow(upTo?: number): void {
    if (this.#closed) return;
    this.#exclusive(async () => {
      if (upTo !== undefined && upTo <= this.#lastSeq && this.#down === undefined) return;
      await this.#catchUpFromCheckpoint();
      if (this.#down !== undefined) {
        this.#logger.info('the database is reachable again; writes resume', {});
        this.#down = undefined;
        this.#uncertain.clear();
      }
      this.#checkpoints.consider();
    });
  }

  /** Applies every committed record after #lastSeq, in seq order; `read`: the first page, read already (by catchUpQuery). */
  #catchUp(db: Queryable, read?: readonly LogRow[]): Promise<void> {
    const target: CatchUpTarget = {
      views: this.#views,
      now: this.#now,
      lastSeq: () => this.#lastSeq,
      advance: (seq) => (this.#lastSeq = seq),
      checkpoint: () => this.#checkpoints.known,
      adopt: (checkpoint) => this.#adopt(checkpoint),
      read: (rows, bytes) => this.#checkpoints.read(rows, bytes),
    };
    return catchUp(db, target, read);
  }

  /** Catches up; when a checkpoint dropped rows these views never applied, starts over from the newest checkpoint. */
  async #catchUpFromCheckpoint(): Promise<void> {
    try {
      await this.#catchUp(this.#db);
    } catch (error) {
      if (!(error instanceof CheckpointPassed)) throw error;
      this.#logger.warn('this instance fell behind a checkpoint another instance wrote (the rows it needed were dropped); it reads the checkpoint again', { last_seq: error.lastSeq, checkpoint_seq: error.checkpoint.seq });
      // Webhooks hear what follows the checkpoint as it is applied, once told that history was rewritten through it.
      this.#install(await loadViews(this.#db, { now: this.#now, history: this.#history, onCheckpoint: (checkpoint) => this.#history.compacted(checkpoint.seq) }));
    }
  }

  /** Makes views read from the database this store's, in one synchronous step: every view replaced in place, the change log started over. */
  #install(loaded: LoadedViews): void {
    const { checkpoint, index, rosters, idempotency, documents } = loaded;
    Object.assign(this.#views, { index, rosters, idempotency, documents });
    this.changes.restart({ events: index.values(), tombstones: loaded.tombstones, lastSeq: loaded.feedLastSeq, horizon: loaded.horizon });
    this.#lastSeq = loaded.lastSeq;
    this.#checkpoints.adopt(checkpoint);
    this.#checkpoints.read(loaded.rowsRead, loaded.bytesRead);
    this.#buildSearchIndex();
    this.changes.batchCommitted(index.values(), index.size);
  }

  /**
   * A checkpoint at or before the views' last seq: they forget the deletions it forgot (the change feed answers 410
   * before the newest, as every instance started from it does), and webhooks hear that history was rewritten through it.
   */
  #adopt(checkpoint: Checkpoint): void {
    this.changes.markDropped(checkpoint.gone);
    this.#checkpoints.adopt(checkpoint);
    this.#history.compacted(checkpoint.seq);
  }

  /** Indexes the words of a bulk-loaded index step by step; `q` is answered without it meanwhile. */
  #buildSearchIndex(): void {
    const index = this.#views.index;
    index.buildSearchIndex(() => this.#closed || this.#views.index !== index).catch((error: unknown) => {
      this.#logger.warn('the search index could not be built; q is answered without it', { error: String(error) });
    });
  }

  #unavailable(idem?: IdempotencyTag): StoreUnavailable {
    return notSent(this.#down, idem);
  }

  /** The database failed: refuse writes until a catch-up succeeds (the poll keeps trying). */
  #lost(error: unknown): void {
    if (error instanceof CheckpointPassed) {
      // A write's catch-up found it (it holds the log's lock: no time to read a checkpoint there); the next catch-up reads it.
      this.#down ??= 'this instance is reading a checkpoint another instance wrote';
      this.#follow();
      return;
    }
    // The log gets the whole error; answers (503s, /health, which needs no key) only its code: the message names the host.
    if (this.#down === undefined) this.#logger.warn('the database cannot be reached; writes get 503 until it is back', { error: describeDatabaseError(error) });
    this.#down = shownFailure(error);
  }
}

/** How long a read about to answer 404 waits for a catch-up before answering from memory. */
const CATCH_UP_WAIT_MS = 1_500;
