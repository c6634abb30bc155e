// The PostgreSQL store's writes: queued writes taken by one transaction at a time (group commit), decided against caught-up state, pipelined.
import type { WriteOptions } from '../event-store.js';
import { AlreadyAnswered, OutcomeUnknown, StoreUnavailable } from '../store-errors.js';
import type { IdempotencyTag } from '../views/idempotency-table.js';
import type { Views } from '../views/apply-record.js';
import { WriteQueue } from '../write/write-queue.js';
import { CommitUnknown, HOLDS_LOCK, withTimeout, type Database, type Queryable, type Transaction } from './client.js';
import { errorCode, shownFailure } from '../../lib/error-code.js';
import { catchUpQuery, type LogRow } from './catch-up.js';
import { resolveCommit } from './commit-outcome.js';
import { LOG_CHANNEL, LOG_LOCK, seqOfLine } from './log-table.js';
import { newerSchemaSince, SCHEMA_VERSION_SQL, SchemaTooNewError } from './schema.js';
import { LOCK_NOT_AVAILABLE } from './locked-tables.js';

/**
 * How long the wait for a write transaction's connection may take before the database counts as unreachable. Once it
 * came, the wait for the log's lock is bounded by the first round trip's own deadline instead: a batch of a frozen
 * instance holds the lock up to 2 s past its last statement (HOLDS_LOCK), and a batch queued behind it must not take
 * that wait for a lost database (503s, and /health 503 on a healthy instance).
 */
const CONNECTION_TIMEOUT_MS = 2_000;
/**
 * How long after a write was queued its outcome may stay open: a lost COMMIT answer is looked for until then, and the
 * writer told "unknown" after. API.md §12 gives 10 s from the request's arrival; a second is left for the rest.
 */
export const OUTCOME_MS = 9_000;
/**
 * How long a batch holding the log's lock waits for the batch ahead to finish (normally its COMMIT's round trip)
 * before it lets the lock go and tries again later: far below the server's idle-in-transaction time-out, so a batch
 * ahead asking about a lost COMMIT never makes this one hold the lock idle for the whole campus.
 */
const TURN_WAIT_MS = 1_000;

/** What a batch needs of the store: its views, its place in the log, their one order of change, and its down state. */
export interface BatchHost {
  readonly db: Database;
  readonly views: Views;
  readonly now: () => number;
  /** The seq of the newest record applied to the views. */
  lastSeq(): number;
  /** A batch committed records up to `seq`: the views hold them now. */
  committed(seq: number): void;
  /** Why the database cannot be used now, or undefined. */
  down(): string | undefined;
  /** Waits for the views' turn (after every step queued before); resolves with the function that ends the turn. */
  turn(): Promise<() => void>;
  /** Applies every committed record after lastSeq; `read`: the first rows, read already (by catchUpQuery). */
  catchUp(db: Queryable, read?: readonly LogRow[]): Promise<void>;
  /** The database failed: writes are refused until a catch-up succeeds. */
  lost(error: unknown): void;
  /** The 503 a write gets while the database cannot be reached (nothing of it was saved). */
  unavailable(idem?: IdempotencyTag): StoreUnavailable;
  /** Writes under these Idempotency-Keys may have been saved: a retry refused before the database is back says so too. */
  uncertain(tags: readonly IdempotencyTag[]): void;
  /** A batch ended: committed when `failure` is undefined; `wrote`: it wrote a row (writes, or a probe's), so its COMMIT proved writes commit. */
  ended(failure: unknown, wrote: boolean): void;
}

/** A write waiting for the next batch: it is decided only inside the batch's transaction, against caught-up state. */
interface Intent {
  run(queue: WriteQueue): Promise<unknown>;
  idem: WriteOptions['idem'];
  /** When it was queued (about when its request arrived): its outcome is known, or said unknown, by then + OUTCOME_MS. */
  at: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Queued by probe(): the batch writes a row of its own if it writes nothing else. */
  probe?: true;
}

/**
 * What a probe writes when its batch has nothing else to: one row of campus_meta. A transaction that wrote nothing
 * commits without waiting for a synchronous standby, so it would prove nothing about writes.
 */
const PROBE_SQL = "INSERT INTO campus_meta (name, value) VALUES ('write_probe', now()::text) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value";

/** The batch let the log's lock go before taking any write (the batch ahead took too long): its writes wait for the next. */
class YieldedTurn extends Error {
  override readonly name = 'YieldedTurn';
}

/**
 * Batches of writes, each one transaction that takes the log's advisory lock, so sequence numbers are assigned one
 * transaction at a time and commit in order: a follower reading `seq > last` never skips one that commits late.
 */
export class WriteBatches {
  readonly #host: BatchHost;
  #intents: Intent[] = [];
  /** Writes are queued for a batch that has not taken them yet (started, or to start once #deciding ends). */
  #batchQueued = false;
  /** A batch holds the log's lock and has not yet sent its COMMIT: the next batch starts when it does. */
  #deciding = false;
  /** Batches whose transaction is open, for close() to wait on: at most two, one holding the log's lock, one waiting for it. */
  readonly #batches = new Set<Promise<void>>();

  constructor(host: BatchHost) {
    this.#host = host;
  }

  /** Queues a write for the next batch; it settles once that batch's transaction is known committed (or failed). */
  queue(run: (queue: WriteQueue) => Promise<unknown>, options: WriteOptions): Promise<unknown> {
    return this.#enqueue((resolve, reject) => ({ run, idem: options.idem, at: this.#host.now(), resolve, reject }));
  }

  /** No batch is open and no write waits for one. */
  get idle(): boolean {
    return this.#batches.size === 0 && this.#intents.length === 0;
  }

  /**
   * A batch to learn whether writes commit, told to the host as it ends: it takes the log's lock as every batch does,
   * and writes one row (PROBE_SQL) if it has nothing else to, so its COMMIT waits for a synchronous standby as a
   * write's would. A probe that fails alone does not count the database as lost (reads may well work).
   */
  probe(): void {
    this.#enqueue((resolve, reject) => ({ run: () => Promise.resolve(), idem: undefined, at: this.#host.now(), resolve, reject, probe: true })).catch(() => undefined);
  }

  /** Queues the intent `make` builds around its promise's settlers; starts a batch unless one is queued or deciding. */
  #enqueue(make: (resolve: (value: unknown) => void, reject: (error: unknown) => void) => Intent): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#intents.push(make(resolve, reject));
      if (this.#batchQueued) return;
      this.#batchQueued = true;
      if (!this.#deciding) this.#startBatch();
    });
  }

  /** Waits until no batch is left (a batch ending may start the next for writes queued meanwhile). */
  async drain(): Promise<void> {
    while (this.#batches.size > 0) await Promise.all(this.#batches);
  }

  #startBatch(): void {
    const batch = this.#batch();
    this.#batches.add(batch);
    void batch.finally(() => this.#batches.delete(batch));
  }

  /** The deciding batch sends its COMMIT (or ends): a batch for the writes queued meanwhile starts and waits for the lock. */
  #decided(): void {
    if (!this.#deciding) return;
    this.#deciding = false;
    if (this.#batchQueued) this.#startBatch();
  }

  /** The writes queued so far, for the batch taking them; later ones start the next batch. */
  #takeIntents(): Intent[] {
    this.#batchQueued = false;
    const intents = this.#intents;
    this.#intents = [];
    return intents;
  }

  /**
   * One transaction for every write queued until it holds the log's lock (group commit), in two round trips: BEGIN,
   * the lock and the catch-up read; then, after the shared write queue's decisions against the now-current state,
   * one insert, the notification and COMMIT. Only then the views change. Pipelined: the next batch starts as this one
   * sends its COMMIT, so its first round trip waits on the lock meanwhile; it decides only once this one's records
   * are applied (its turn), skipping them in what it read. A COMMIT whose answer is lost is resolved by asking the
   * database (see commit-outcome.ts) before anyone is answered.
   */
  async #batch(): Promise<void> {
    let intents: Intent[] | undefined;
    let endTurn = (): void => undefined;
    let failure: unknown;
    /** Set once the transaction's fate is known: the queue's persist waits on it before the views change. */
    let settleCommit!: { resolve: () => void; reject: (error: unknown) => void };
    const commit = new Promise<void>((resolve, reject) => (settleCommit = { resolve, reject }));
    commit.catch(() => undefined);
    let newest = 0;
    let inserted = false;
    let probed = false;
    let settled: Promise<void>[] = [];
    // A transaction whose connection never came is abandoned; should it start later after all, it writes nothing.
    let connected = false;
    let started = false;
    let abandoned = false;
    let yielded: Promise<() => void> | undefined;
    try {
      const transaction = this.#host.db.transaction(async (tx: Transaction) => {
        if (abandoned) throw new Error('abandoned: its connection came too late');
        started = true;
        const turn = this.#host.turn();
        let timer: NodeJS.Timeout | undefined;
        const ended = await Promise.race([turn, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), TURN_WAIT_MS)))]).finally(() => clearTimeout(timer));
        if (ended === undefined) {
          yielded = turn;
          throw new YieldedTurn('the batch ahead is still finishing');
        }
        endTurn = ended;
        intents = this.#takeIntents();
        this.#deciding = true;
        // The batch ahead failed: this one's writes get the same 503, and its transaction writes nothing.
        const down = this.#host.down();
        if (down !== undefined) throw new Error(down);
        const [lock, read] = [tx.firstResults[1]?.[0] as { xid: number; schema: string | null } | undefined, tx.firstResults[2] as LogRow[] | undefined];
        const newer = newerSchemaSince(lock?.schema);
        if (newer !== undefined) throw newer;
        await this.#host.catchUp(tx, read);
        newest = this.#host.lastSeq();
        const deadline = intents.reduce((first, intent) => Math.min(first, intent.at), this.#host.now()) + OUTCOME_MS;
        let signalInserted!: () => void;
        const insertedSignal = new Promise<void>((resolve) => (signalInserted = resolve));
        const queue = new WriteQueue({
          ...this.#host.views,
          now: this.#host.now,
          nextSeq: this.#host.lastSeq() + 1,
          maxBatchChars: Number.MAX_SAFE_INTEGER,
          // Every write of the batch is queued below at once; waiting a turn of the event loop would hold the lock longer.
          gatherTurn: false,
          persist: async (text) => {
            // One persist per batch: a second would run outside the transaction and its lock.
            if (inserted) throw new Error('a batch persisted twice');
            inserted = true;
            const lines = text.split('\n').slice(0, -1).map((line) => `${line}\n`);
            const seqs = lines.map(seqOfLine);
            newest = Math.max(newest, ...seqs);
            try {
              // One round trip: the rows, the notification followers wake on (sent by PostgreSQL at commit), and COMMIT.
              // Seqs are integers; lines go in as literals the client escapes (a simple query takes no parameters).
              this.#decided();
              const values = `unnest(ARRAY[${seqs.join(',')}]::bigint[], ARRAY[${lines.map((line) => tx.literal(line)).join(',')}]::text[])`;
              const sql = `WITH written AS (INSERT INTO campus_log (seq, line) SELECT * FROM ${values} RETURNING 1) SELECT pg_notify(${tx.literal(LOG_CHANNEL)}, '${newest}') FROM (SELECT count(*) FROM written) AS done`;
              // The answer is waited for as long as the outcome may stay open, less a moment to ask again if it is lost.
              await tx.commitWith(sql, Math.max(1_000, deadline - this.#host.now() - 2_000)).catch(async (error: unknown) => {
                if (!(error instanceof CommitUnknown)) throw error;
                const why = `the answer to COMMIT was lost (${shownFailure(error.cause)})`;
                if (lock === undefined) throw new OutcomeUnknown(why);
                // Asked of the standby promoted since, once one was found: only it can tell then (Database.queryNewest).
                const outcome = await resolveCommit({ query: (text, params) => this.#host.db.queryNewest(text, params) }, { xid: lock.xid, server: tx.server, firstSeq: seqs[0]!, firstLine: lines[0]! }, deadline, { now: this.#host.now });
                if (outcome === 'aborted') throw error;
                if (outcome === 'unknown') throw new OutcomeUnknown(`${why} and the database could not tell within ${OUTCOME_MS / 1000} s of the request whether it committed`);
                // Committed after all: the batch goes on as if COMMIT had answered.
              });
            } catch (error) {
              failure = error;
              throw error;
            } finally {
              signalInserted();
            }
            // Memory after the commit: the queue applies the records and answers the writers only once it is known.
            await commit;
          },
        });
        settled = intents.map((intent) => this.#decide(intent, queue));
        // Either the queue persisted (then the transaction commits when this returns), or nothing was to be written.
        await Promise.race([insertedSignal, queue.drain()]);
        if (failure !== undefined) throw failure;
        if (inserted) return;
        // Nothing to write: the COMMIT follows, so the next batch may start and wait for the lock, as after an insert.
        this.#decided();
        if (intents.some((intent) => intent.probe === true)) {
          await tx.commitWith(PROBE_SQL);
          probed = true;
        }
      }, `${HOLDS_LOCK}; SELECT pg_advisory_xact_lock(${LOG_LOCK}), txid_current()::float8 AS xid, ${SCHEMA_VERSION_SQL} AS schema; ${catchUpQuery(this.#host.lastSeq())}`, () => (connected = true));
      transaction.catch(() => undefined);
      await withTimeout(transaction, CONNECTION_TIMEOUT_MS, 'a connection for a write transaction').catch((error: unknown) => {
        if (connected || started) return transaction;
        abandoned = true;
        throw error;
      });
      if (inserted) this.#host.committed(newest);
      settleCommit.resolve();
    } catch (error) {
      failure ??= error;
      settleCommit.reject(error);
    }
    if (yielded !== undefined) return this.#afterYield(yielded);
    await Promise.all(settled);
    if (failure !== undefined) this.#failed(intents ?? this.#takeIntents(), failure);
    this.#decided();
    endTurn();
    this.#host.ended(failure, inserted || probed);
  }

  /** The batch let the lock go: once the batch ahead is done, the queued writes get a batch of their own. */
  async #afterYield(turn: Promise<() => void>): Promise<void> {
    (await turn)();
    if (this.#batchQueued && !this.#deciding) this.#startBatch();
  }

  /**
   * Answers the writes of a failed batch: those whose COMMIT's outcome stayed unknown are told so (never that nothing
   * was saved); the others get the 503 saying nothing was. A wait for the log's lock that timed out is no lost database.
   */
  #failed(intents: readonly Intent[], failure: unknown): void {
    if (failure instanceof SchemaTooNewError) {
      // Not a lost database: it answers, and says this program must not write to it.
      const why = failure.message.charAt(0).toUpperCase() + failure.message.slice(1);
      for (const intent of intents) intent.reject(new StoreUnavailable(`${why}. Nothing of this request was saved.`));
      return;
    }
    const unknown = failure instanceof OutcomeUnknown;
    if (unknown) this.#host.uncertain(intents.flatMap((intent) => (intent.idem === undefined ? [] : [intent.idem])));
    // Writes not taken yet (the transaction never got its lock) fail with it; a new write starts a new batch.
    for (const intent of intents) intent.reject(unknown ? failure : this.#host.unavailable(intent.idem));
    const probeAlone = intents.length > 0 && intents.every((intent) => intent.probe === true);
    if (errorCode(failure) !== LOCK_NOT_AVAILABLE && !probeAlone) this.#host.lost(failure);
  }

  /** Runs one write in the batch's queue; an Idempotency-Key another instance answered meanwhile replays instead. */
  #decide(intent: Intent, queue: WriteQueue): Promise<void> {
    const idem = intent.idem;
    const remembered = idem === undefined ? undefined : this.#host.views.idempotency.find(idem.keyId, idem.key, this.#host.now());
    if (remembered !== undefined) {
      intent.reject(new AlreadyAnswered(remembered));
      return Promise.resolve();
    }
    return intent.run(queue).then(intent.resolve, (error: unknown) => {
      // A failed batch rejects its writes with the file store's "restart" sentence; the batch answers them instead.
      if (!(error instanceof StoreUnavailable)) intent.reject(error);
    });
  }
}
