// How a PostgreSQL instance follows the log every instance writes: the views' turn, catch-ups (a notification, the
// poll, a read before a 404), and a start over from the newest checkpoint when one dropped rows the views never applied.
import type { ChangeHistory } from '../views/change-history.js';
import type { ChangeLog } from '../views/change-log.js';
import type { Views } from '../views/apply-record.js';
import { StoreUnavailable } from '../store-errors.js';
import type { Database, Queryable } from './client.js';
import { catchUp, CheckpointPassed, type CatchUpTarget, type LogRow } from './catch-up.js';
import { loadViews, type LoadedViews } from './checkpoint-load.js';
import type { Checkpoint } from './checkpoint-table.js';
import type { CheckpointKeeper } from './checkpoint-keeper.js';
import type { PostgresStoreLogger } from './postgres-store-options.js';

/** How long a read about to answer 404 waits for a catch-up before answering from memory. */
const CATCH_UP_WAIT_MS = 1_500;

/** What a LogFollower reads, and what it tells the store. */
export interface LogFollowerDeps {
  db: Database;
  /** The store's views, changed in place by a start from a checkpoint. */
  views: Views;
  changes: ChangeLog;
  history: ChangeHistory;
  checkpoints: CheckpointKeeper;
  now: () => number;
  logger: PostgresStoreLogger;
  /** The seq of the newest record applied to the views, and its setter. */
  lastSeq: () => number;
  advance: (seq: number) => void;
  /** Why the database cannot be used now; undefined while it can. */
  down: () => string | undefined;
  /** A catch-up went through: the database answers (again). */
  reachable: () => void;
  /** The database failed (see PostgresStore's #lost). */
  lost: (error: unknown) => void;
  closed: () => boolean;
}

/** Applies what other instances committed to this instance's views, in the views' turn (which the write batches take too). */
export class LogFollower {
  readonly #deps: LogFollowerDeps;
  /** Every batch's decisions and every catch-up run after the one before: the views change in one order. */
  #chain: Promise<void> = Promise.resolve();

  constructor(deps: LogFollowerDeps) {
    this.#deps = deps;
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
    const down = this.#deps.down();
    if (answered && down === undefined) return false;
    throw new StoreUnavailable(`The database cannot be reached${down === undefined ? ' in time' : ` (${down})`}, so this instance cannot tell whether another one has written it; this request changed nothing. Retry in a moment.`, { retryAfterSeconds: 1 });
  }

  /** Waits for the views' turn (after every step queued before); resolves with the function that ends the turn. */
  turn(): Promise<() => void> {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const turn = this.#chain.then(() => end);
    this.#chain = turn.then(() => ended);
    return turn;
  }

  /** Resolves once every step queued so far has run. */
  settled(): Promise<void> {
    return this.#chain;
  }

  /**
   * Catches up with what other instances committed (a notification, the poll, a reconnect). A notification of
   * `upTo` needs no read once the views reach it: usually this instance's own commit, applied meanwhile.
   */
  follow(upTo?: number): void {
    if (this.#deps.closed()) return;
    this.#exclusive(async () => {
      if (upTo !== undefined && upTo <= this.#deps.lastSeq() && this.#deps.down() === undefined) return;
      await this.#catchUpFromCheckpoint();
      this.#deps.reachable();
      this.#deps.checkpoints.consider();
    });
  }

  /** Applies every committed record after the last one applied, in seq order; `read`: the first page, read already (by catchUpQuery). */
  catchUpWith(db: Queryable, read?: readonly LogRow[]): Promise<void> {
    const target: CatchUpTarget = {
      views: this.#deps.views,
      now: this.#deps.now,
      lastSeq: this.#deps.lastSeq,
      advance: this.#deps.advance,
      checkpoint: () => this.#deps.checkpoints.known,
      adopt: (checkpoint) => this.#adopt(checkpoint),
      read: (rows, bytes) => this.#deps.checkpoints.read(rows, bytes),
    };
    return catchUp(db, target, read);
  }

  /** Makes views read from the database this store's, in one synchronous step: every view replaced in place, the change log started over. */
  install(loaded: LoadedViews): void {
    const { checkpoint, index, rosters, idempotency, documents } = loaded;
    Object.assign(this.#deps.views, { index, rosters, idempotency, documents });
    this.#deps.changes.restart({ events: index.values(), tombstones: loaded.tombstones, lastSeq: loaded.feedLastSeq, horizon: loaded.horizon });
    this.#deps.advance(loaded.lastSeq);
    this.#deps.checkpoints.adopt(checkpoint);
    this.#deps.checkpoints.read(loaded.rowsRead, loaded.bytesRead);
    this.#buildSearchIndex();
    this.#deps.changes.batchCommitted(index.values(), index.size);
  }

  /** Follows the log now: whether anything was applied, and whether the database answered within CATCH_UP_WAIT_MS. */
  async #look(): Promise<{ applied: boolean; answered: boolean }> {
    if (this.#deps.down() !== undefined) return { applied: false, answered: false };
    const before = this.#deps.lastSeq();
    this.follow();
    let timer: NodeJS.Timeout | undefined;
    let answered = false;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, CATCH_UP_WAIT_MS)));
    const chain = this.#chain.then(() => void (answered = true), () => undefined);
    await Promise.race([chain, late]).finally(() => clearTimeout(timer));
    return { applied: this.#deps.lastSeq() > before, answered };
  }

  #exclusive(step: () => Promise<void>): void {
    this.#chain = this.#chain.then(step).catch((error: unknown) => this.#deps.lost(error));
  }

  /** Catches up; when a checkpoint dropped rows these views never applied, starts over from the newest checkpoint. */
  async #catchUpFromCheckpoint(): Promise<void> {
    const { db, history, logger, now } = this.#deps;
    try {
      await this.catchUpWith(db);
    } catch (error) {
      if (!(error instanceof CheckpointPassed)) throw error;
      logger.warn('this instance fell behind a checkpoint another instance wrote (the rows it needed were dropped); it reads the checkpoint again', { last_seq: error.lastSeq, checkpoint_seq: error.checkpoint.seq });
      // Webhooks hear what follows the checkpoint as it is applied, once told that history was rewritten through it.
      this.install(await loadViews(db, { now, history, onCheckpoint: (checkpoint) => history.compacted(checkpoint.seq) }));
    }
  }

  /**
   * A checkpoint at or before the views' last seq: they forget the deletions it forgot (the change feed answers 410
   * before the newest, as every instance started from it does), and webhooks hear that history was rewritten through it.
   */
  #adopt(checkpoint: Checkpoint): void {
    this.#deps.changes.markDropped(checkpoint.gone);
    this.#deps.checkpoints.adopt(checkpoint);
    this.#deps.history.compacted(checkpoint.seq);
  }

  /** Indexes the words of a bulk-loaded index step by step; `q` is answered without it meanwhile. */
  #buildSearchIndex(): void {
    const index = this.#deps.views.index;
    index.buildSearchIndex(() => this.#deps.closed() || this.#deps.views.index !== index).catch((error: unknown) => {
      this.#deps.logger.warn('the search index could not be built; q is answered without it', { error: String(error) });
    });
  }
}
