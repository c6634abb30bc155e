// The PostgreSQL engine: one log table in global seq order; each write's transaction catches up, decides with the shared write queue, then commits.
import type { StoredEvent } from '../../events/event.js';
import { ChangeLog } from '../views/change-log.js';
import { EventIndex } from '../views/event-index.js';
import type { EventChange, EventStore, GroupChange, GroupResult, ListQuery, ListResult, RosterChange, RosterResult, StoredDocument, WriteOptions } from '../event-store.js';
import { DocumentTable } from '../views/document-table.js';
import { IdempotencyTable, type IdempotencyEntry, type IdempotencyUse } from '../views/idempotency-table.js';
import type { RosterView } from '../views/roster.js';
import { RosterTable } from '../views/roster-table.js';
import { AlreadyAnswered, StoreUnavailable } from '../store-errors.js';
import { WriteQueue } from '../views/write-queue.js';
import { applyRecord, type Views } from '../views/apply-record.js';
import { connect, redactUrl, withTimeout, type Database, type Queryable, type Transaction } from './client.js';
import { KeyTable } from './key-table.js';
import { RateLeaseTable } from './rate-leases.js';
import { decodeLines, LOG_CHANNEL, LOG_LOCK, seqOfLine } from './log-table.js';
import { migrateSchema } from './schema.js';
import { ChangeHistory, type ChangeHistorySource } from '../views/change-history.js';
import { readHistory } from './history-feed.js';
import { PostgresWebhookTable } from './webhook-table.js';

/** One log call: a message and its fields. */
type LogCall = (message: string, fields?: Record<string, string | number | boolean | null | undefined>) => void;

/** Where the store reports what it did (the database lost and back, the schema migrated); the app's Logger fits. */
export type PostgresStoreLogger = Readonly<Record<'info' | 'warn', LogCall>>;

/** Options of openPostgresStore. */
export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  logger?: PostgresStoreLogger;
  /** The clock, ms since the epoch. Default Date.now. */
  now?: () => number;
  /** How often an instance reads what others wrote when no notification came, and retries an unreachable database, in ms. Default 500. */
  pollMs?: number;
}

/** How long a read, or the wait for a write transaction's connection, may take before the database counts as unreachable. */
const QUERY_TIMEOUT_MS = 2_000;

/** Rows a catch-up reads at a time. */
const CATCH_UP_ROWS = 5000;

/** The log after `lastSeq`, in order; seq::float8: an exact number for every seq below 2^53, where int8 would come back as a string. */
function catchUpQuery(lastSeq: number): string {
  return `SELECT seq::float8 AS seq, line FROM campus_log WHERE seq > ${Math.trunc(lastSeq)} ORDER BY seq LIMIT ${CATCH_UP_ROWS}`;
}

/** A log row as a catch-up reads it. */
type LogRow = { seq: number; line: string };

/** A write waiting for the next batch: it is decided only inside the batch's transaction, against caught-up state. */
interface Intent {
  run(queue: WriteQueue): Promise<unknown>;
  idem: WriteOptions['idem'];
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * An EventStore over one PostgreSQL database shared by several instances. Reads are served from the same
 * in-memory views as the file store's. A batch of writes takes the log's advisory lock in its transaction, so
 * sequence numbers are assigned one transaction at a time and commit in order: a follower reading `seq > last`
 * never skips one that commits late.
 */
export class PostgresStore implements EventStore {
  readonly #db: Database;
  readonly #views: Views;
  readonly #now: () => number;
  readonly #logger: PostgresStoreLogger;
  readonly #pollMs: number;
  readonly changes: ChangeLog;
  /** The API keys in the same database. */
  readonly keys: KeyTable;
  /** Rate-limit slots leased to instances. */
  readonly rateLeases: RateLeaseTable;
  /** The webhooks, shared by every instance on the database (API.md §13). */
  readonly webhookTable: PostgresWebhookTable;
  /** Told of each record applied here with its context (webhooks): this instance's writes (the write queue) and others' (applyRecord). */
  readonly #history = new ChangeHistory();
  #lastSeq = 0;
  #intents: Intent[] = [];
  /** Every batch's decisions and every catch-up run after the one before: the views change in one order. */
  #chain: Promise<void> = Promise.resolve();
  /** Writes are queued for a batch that has not taken them yet (started, or to start once #deciding ends). */
  #batchQueued = false;
  /** A batch holds the log's lock and has not yet sent its COMMIT: the next batch starts when it does. */
  #deciding = false;
  /** Batches whose transaction is open, for close() to wait on: at most two, one holding the log's lock, one waiting for it. */
  readonly #batches = new Set<Promise<void>>();
  /** Why the database cannot be used now (for 503 and /health); undefined while it can. */
  #down: string | undefined;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #unlisten: (() => Promise<void>) | undefined;

  /** @internal Use openPostgresStore. */
  constructor(db: Database, options: PostgresStoreOptions) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger ?? { info() {}, warn() {} };
    this.#pollMs = options.pollMs ?? 500;
    this.keys = new KeyTable(db);
    this.rateLeases = new RateLeaseTable(db);
    this.webhookTable = new PostgresWebhookTable(db);
    const index = new EventIndex();
    this.changes = new ChangeLog((id) => index.get(id));
    this.#views = { index, rosters: new RosterTable(), changes: this.changes, idempotency: new IdempotencyTable(), documents: new DocumentTable(), history: this.#history };
  }

  /** Reads the whole log, then follows it: notifications wake it, a poll backs them up. */
  async start(): Promise<void> {
    await this.#catchUp(this.#db);
    this.#unlisten = await this.#db.listen(LOG_CHANNEL, (payload) => {
      if (Number(payload) > this.#lastSeq) this.#follow(Number(payload));
    }, () => this.#follow());
    this.#timer = setInterval(() => this.#follow(), this.#pollMs);
    this.#timer.unref();
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
      // The database's log is never compacted.
      onCompacted: () => () => undefined,
      readAfter: (since, limit) => readHistory(this.#db, { since, through: this.#lastSeq, limit }, this.#now()),
    };
  }

  get writable(): boolean {
    return !this.#closed && this.#down === undefined;
  }

  get unwritableReason(): string | undefined {
    if (this.#closed) return 'the store is closing';
    return this.#down === undefined ? undefined : `the database cannot be reached: ${this.#down}; retrying`;
  }

  write(id: string, change: EventChange, options: WriteOptions = {}): Promise<StoredEvent | null> {
    return this.#queue((queue) => queue.write(id, change, options), options) as Promise<StoredEvent | null>;
  }

  writeGroup(change: GroupChange): Promise<GroupResult> {
    return this.#queue((queue) => queue.writeGroup(change), {}) as Promise<GroupResult>;
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

  /** Applies what other instances committed, now (before a 404, say); true when anything new was applied. */
  catchUp(): Promise<boolean> {
    const before = this.#lastSeq;
    this.#follow();
    return this.#chain.then(() => this.#lastSeq > before);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    // A batch ending may start the next for writes queued meanwhile: wait until none is left.
    while (this.#batches.size > 0) await Promise.all(this.#batches);
    await this.#chain;
    await this.#unlisten?.().catch(() => undefined);
    await this.#db.end();
  }

  #queue(run: (queue: WriteQueue) => Promise<unknown>, options: WriteOptions): Promise<unknown> {
    if (this.#closed) return Promise.reject(new StoreUnavailable('The server is shutting down; nothing of this request was saved. Retry in a moment.'));
    if (this.#down !== undefined) return Promise.reject(this.#unavailable());
    return new Promise((resolve, reject) => {
      this.#intents.push({ run, idem: options.idem, resolve, reject });
      if (this.#batchQueued) return;
      this.#batchQueued = true;
      if (!this.#deciding) this.#startBatch();
    });
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
      await this.#catchUp(this.#db);
      if (this.#down !== undefined) {
        this.#logger.info('the database is reachable again; writes resume', {});
        this.#down = undefined;
      }
    });
  }

  /** Applies every committed record after #lastSeq, in seq order; `read`: the first rows, read already (by catchUpQuery). */
  async #catchUp(db: Queryable, read?: readonly LogRow[]): Promise<void> {
    for (;;) {
      const rows = read ?? (await withTimeout(db.query<LogRow>(catchUpQuery(this.#lastSeq)), QUERY_TIMEOUT_MS, 'reading the log'));
      read = undefined;
      // Rows read before the batch ahead applied its own (see #batch) are in the views already.
      const fresh = rows.filter((row) => row.seq > this.#lastSeq);
      if (fresh.length > 0) {
        const nowMs = this.#now();
        for (const record of decodeLines(fresh)) {
          applyRecord(this.#views, record, nowMs);
          this.#lastSeq = record.seq > this.#lastSeq ? record.seq : this.#lastSeq;
        }
        this.#lastSeq = Math.max(this.#lastSeq, fresh[fresh.length - 1]!.seq);
        this.changes.batchCommitted(this.#views.index.values(), this.#views.index.size);
      }
      if (rows.length < CATCH_UP_ROWS) return;
    }
  }

  /**
   * One transaction for every write queued until it holds the log's lock (group commit), in two round trips: BEGIN,
   * the lock and the catch-up read; then, after the shared write queue's decisions against the now-current state,
   * one insert, the notification and COMMIT. Only then the views change. Pipelined: the next batch starts as this one
   * sends its COMMIT, so its first round trip waits on the lock meanwhile; it decides only once this one's records
   * are applied (its turn), skipping them in what it read.
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
    let settled: Promise<void>[] = [];
    // A transaction whose connection never came is abandoned; should it start later after all, it writes nothing.
    let started = false;
    let abandoned = false;
    try {
      const transaction = this.#db.transaction(async (tx: Transaction) => {
        if (abandoned) throw new Error('abandoned: its connection came too late');
        started = true;
        endTurn = await this.#turn();
        intents = this.#takeIntents();
        this.#deciding = true;
        // The batch ahead failed: this one's writes get the same 503, and its transaction writes nothing.
        if (this.#down !== undefined) throw new Error(this.#down);
        await this.#catchUp(tx, tx.firstRows as LogRow[]);
        newest = this.#lastSeq;
        let signalInserted!: () => void;
        const insertedSignal = new Promise<void>((resolve) => (signalInserted = resolve));
        const queue = new WriteQueue({
          ...this.#views,
          now: this.#now,
          nextSeq: this.#lastSeq + 1,
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
              await tx.commitWith(`WITH written AS (INSERT INTO campus_log (seq, line) SELECT * FROM ${values} RETURNING 1) SELECT pg_notify(${tx.literal(LOG_CHANNEL)}, '${newest}') FROM (SELECT count(*) FROM written) AS done`);
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
      }, `SELECT pg_advisory_xact_lock(${LOG_LOCK}); ${catchUpQuery(this.#lastSeq)}`);
      transaction.catch(() => undefined);
      await withTimeout(transaction, QUERY_TIMEOUT_MS, 'a write transaction').catch((error: unknown) => {
        if (started) return transaction;
        abandoned = true;
        throw error;
      });
      if (inserted) this.#lastSeq = newest;
      settleCommit.resolve();
    } catch (error) {
      failure ??= error;
      settleCommit.reject(error);
    }
    await Promise.all(settled);
    if (failure !== undefined) {
      // Writes not taken yet (the transaction never got its lock) fail with it; a new write starts a new batch.
      for (const intent of intents ?? this.#takeIntents()) intent.reject(this.#unavailable());
      this.#lost(failure);
    }
    this.#decided();
    endTurn();
  }

  /** Runs one write in the batch's queue; an Idempotency-Key another instance answered meanwhile replays instead. */
  #decide(intent: Intent, queue: WriteQueue): Promise<void> {
    const idem = intent.idem;
    const remembered = idem === undefined ? undefined : this.#views.idempotency.find(idem.keyId, idem.key, this.#now());
    if (remembered !== undefined) {
      intent.reject(new AlreadyAnswered(remembered));
      return Promise.resolve();
    }
    return intent.run(queue).then(intent.resolve, (error: unknown) => {
      // A failed batch rejects its writes with the file store's "restart" sentence; the batch answers them instead.
      if (!(error instanceof StoreUnavailable)) intent.reject(error);
    });
  }

  #unavailable(): StoreUnavailable {
    return new StoreUnavailable(`The database cannot be reached${this.#down === undefined ? '' : ` (${this.#down})`}; nothing of this request was saved. Retry in a moment.`);
  }

  /** The database failed: refuse writes until a catch-up succeeds (the poll keeps trying). */
  #lost(error: unknown): void {
    const reason = describeDatabaseError(error);
    if (this.#down === undefined) this.#logger.warn('the database cannot be reached; writes get 503 until it is back', { error: reason });
    this.#down = reason;
  }
}

/** A short description of a database error without secrets, e.g. `ECONNREFUSED` or `57P01: terminating connection`. */
export function describeDatabaseError(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'an unexpected error';
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message.split('\n')[0]!.slice(0, 120) : '';
  return typeof code === 'string' ? `${code}${text === '' || text === code ? '' : `: ${text}`}` : text || 'an unexpected error';
}

/** Connects, creates or migrates the schema, reads the log into memory and starts following it. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const db = await connect(options.url, { retryMs: options.pollMs });
  try {
    const migrated = await migrateSchema(db);
    if (migrated.from !== migrated.to) options.logger?.info('database schema created or migrated', { from: migrated.from, to: migrated.to, database: redactUrl(options.url) });
    const store = new PostgresStore(db, options);
    await store.start();
    options.logger?.info('event log read from the database', { live_events: store.size, last_seq: store.lastSeq });
    return store;
  } catch (error) {
    await db.end().catch(() => undefined);
    throw error;
  }
}
