// The write path both stores share: a change is planned against the latest queued state (event-write, group-write,
// roster-write), its line goes out in a batch with every change queued meanwhile (group commit), then the views see
// it (commit-batch). A failed batch fails every queued write and every later one.
import type { StoredEvent } from '../../events/event.js';
import type { EventChange, GroupChange, GroupResult, RosterChange, RosterResult, WriteOptions } from '../event-store.js';
import { encodeGroup } from '../records/encode-record.js';
import type { LogRecord } from '../records/jsonl-record.js';
import { cannotWriteError, describeWriteError, StoreUnavailable } from '../store-errors.js';
import { UncertainWriteError } from '../uncertain-write.js';
import type { ChangeHistory } from '../views/change-history.js';
import type { ChangeLog } from '../views/change-log.js';
import { commitBatch, type CommitTargets, type QueuedChange } from './commit-batch.js';
import { DocumentTable, type StoredDocument } from '../views/document-table.js';
import type { EventIndex } from '../views/event-index.js';
import { planEventWrite, type PlannedEventWrite } from './event-write.js';
import { planGroupWrite, type PlannedGroup } from './group-write.js';
import type { IdempotencyTable } from '../views/idempotency-table.js';
import { PendingChanges, type PendingEvent } from './pending-changes.js';
import type { RosterTable } from '../views/roster-table.js';
import { applyToRoster, planRosterChange, type PlannedRosterChange } from './roster-write.js';

/** Makes a group of log lines durable; rejects when they could not be (and then none of them counts). */
export type PersistBatch = (text: string, lineCount: number) => Promise<void>;

/** Options of a WriteQueue. */
export interface WriteQueueOptions {
  /** The committed state; changed only after a batch is durable. */
  index: EventIndex;
  rosters: RosterTable;
  /** The clock, ms since the epoch: when each change happened. */
  now: () => number;
  /** The sequence number of the next line (one more than the last in the log). */
  nextSeq: number;
  persist: PersistBatch;
  /** A batch stops growing past this many characters of lines. Default 1 MiB. */
  maxBatchChars?: number;
  /** Called after each batch is durable and applied to the index (the file store checks for compaction here). */
  onCommit?: () => void;
  /** The change feed's index: told of each line once durable. */
  changes?: ChangeLog;
  /** The remembered answers of Idempotency-Keys: told of each tagged line once durable. */
  idempotency?: IdempotencyTable;
  /** The committed documents (series); changed only after a batch is durable. Default: a table of its own. */
  documents?: DocumentTable;
  /** Webhooks' view of the log: told of each durable batch, line by line with its context, while anyone listens. */
  history?: ChangeHistory;
  /**
   * Whether a batch waits one turn of the event loop for the writes of every request read in that turn. Default
   * true. False for a caller that queues a whole batch at once (the PostgreSQL store, holding the log's lock).
   */
  gatherTurn?: boolean;
}

/**
 * One in-process queue with group commit: every change queued while a batch is being written goes
 * out together in the next batch, as one persist call. A write resolves only after its batch is
 * durable and applied to the index. A failed batch fails it and everything queued after it, and
 * every later write: the queue never retries.
 */
export class WriteQueue {
  readonly #persist: PersistBatch;
  readonly #maxBatchChars: number;
  readonly #onCommit: (() => void) | undefined;
  readonly #gatherTurn: boolean;
  /** The committed views a durable batch changes, and the latest queued state: what the next change sees. */
  readonly #views: CommitTargets;
  readonly #pending: PendingChanges<QueuedChange>;
  #queue: QueuedChange[] = [];
  #nextSeq: number;
  #running: Promise<void> | undefined;
  #paused = false;
  #idleWaiters: (() => void)[] = [];
  /** Set once writes are refused: the error each refused write gets. */
  #refusal: (() => StoreUnavailable) | undefined;

  constructor(options: WriteQueueOptions) {
    this.#nextSeq = options.nextSeq;
    this.#persist = options.persist;
    this.#maxBatchChars = options.maxBatchChars ?? 1024 * 1024;
    this.#onCommit = options.onCommit;
    this.#gatherTurn = options.gatherTurn ?? true;
    const { index, rosters, now, changes, idempotency, history } = options;
    const documents = options.documents ?? new DocumentTable();
    this.#pending = new PendingChanges({ index, rosters, documents, now });
    this.#views = { index, rosters, documents, changes, idempotency, history, now, pending: this.#pending };
  }

  /** The committed document `id` of `collection`. */
  document(collection: string, id: string): StoredDocument | undefined {
    return this.#views.documents.get(collection, id);
  }

  /** The committed documents of `collection`. */
  documents(collection: string): StoredDocument[] {
    return this.#views.documents.list(collection);
  }

  /** False once a write failed or the queue was closed. */
  get writable(): boolean {
    return this.#refusal === undefined;
  }

  /** The sequence number the next change will get. */
  get nextSeq(): number {
    return this.#nextSeq;
  }

  /**
   * Queues a change to event `id` (see EventStore.write). A change that throws queues nothing. A
   * capacity raised confirms the oldest waitlisted registrations in the same line. Once writes are refused, a change
   * is still decided first: one that could never be made gets its own error (404, 412, 400, 409), not the 503.
   */
  write(id: string, change: EventChange, options: WriteOptions = {}): Promise<StoredEvent | null> {
    const current = this.#pending.event(id);
    let planned: PlannedEventWrite | undefined;
    try {
      planned = planEventWrite(id, current, change, this.#nextSeq, this.#pending, options);
    } catch (error) {
      return Promise.reject(error);
    }
    // A change that changes nothing of a committed event writes nothing, so its ETag stays.
    if (planned === undefined) return Promise.resolve(current!);
    if (this.#refusal !== undefined) return Promise.reject(this.#refusal());
    const { state, promoted } = planned;
    return this.#enqueue(id, state, planned.record, planned.line, (entry) => {
      if (promoted.length > 0) this.#pending.working(id, entry).confirm(promoted);
    }, () => state);
  }

  /**
   * Queues a change to several events and documents as one group line (see EventStore.writeGroup): `change`
   * decides against the latest queued state, and nothing of it is visible until the whole line is durable.
   */
  writeGroup(change: GroupChange, options: WriteOptions = {}): Promise<GroupResult> {
    let planned: PlannedGroup;
    try {
      planned = planGroupWrite(change, this.#nextSeq, this.#pending, options);
    } catch (error) {
      return Promise.reject(error);
    }
    const { events, documents, lines } = planned;
    const result = (): GroupResult => ({
      events: new Map(events.map((member) => [member.id, member.state])),
      documents: new Map(documents.map((member) => [member.id, member.document])),
    });
    if (lines.length === 0) return Promise.resolve(result());
    if (this.#refusal !== undefined) return Promise.reject(this.#refusal());
    this.#nextSeq = planned.nextSeq;
    return new Promise<GroupResult>((resolve, reject) => {
      const queued: QueuedChange = { members: events, documents, line: lines.length === 1 ? lines[0]! : encodeGroup(lines), lineCount: lines.length, settle: () => resolve(result()), reject };
      for (const member of events) {
        const entry = this.#pending.queue(member.id, queued, member.state);
        if (member.promoted.length > 0) this.#pending.working(member.id, entry).confirm(member.promoted);
      }
      for (const member of documents) this.#pending.queueDocument(member.collection, member.id, member.document, queued);
      this.#queue.push(queued);
      this.#kick();
    });
  }

  /**
   * Queues a change to the registrations of event `id` (see EventStore.changeRegistrations): `change`
   * decides against the latest queued state; the seat rules are applied in roster-write, in the one writer.
   */
  changeRegistrations(id: string, change: RosterChange, options: WriteOptions = {}): Promise<RosterResult> {
    let planned: PlannedRosterChange;
    try {
      planned = planRosterChange(id, change, this.#nextSeq, this.#pending, options);
    } catch (error) {
      return Promise.reject(error);
    }
    if ('answer' in planned) return Promise.resolve(planned.answer);
    if (this.#refusal !== undefined) return Promise.reject(this.#refusal());
    const { event, state, registration } = planned;
    return this.#enqueue(id, state, planned.record, planned.line, (entry) => applyToRoster(this.#pending.working(id, entry), planned), () => ({ event: state ?? event, registration }));
  }

  /** Takes the seq, queues the line, and updates the pending state of the event (`touch` changes its working roster). */
  #enqueue<T>(id: string, state: StoredEvent | null | undefined, record: LogRecord, line: string, touch: (entry: PendingEvent<QueuedChange>) => void, result: () => T): Promise<T> {
    this.#nextSeq = record.seq + 1;
    return new Promise<T>((resolve, reject) => {
      const queued: QueuedChange = { members: [{ id, state, record }], documents: [], line, lineCount: 1, settle: () => resolve(result()), reject };
      touch(this.#pending.queue(id, queued, state));
      this.#queue.push(queued);
      this.#kick();
    });
  }

  /** Resolves once nothing is queued or being written (waits through a pause). */
  drain(): Promise<void> {
    if (this.#running === undefined && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Lets the batch in flight finish, then holds later ones until `resume()`; writes still queue.
   * For compaction: while paused, the log file can be swapped.
   */
  async pause(): Promise<void> {
    this.#paused = true;
    await this.#running;
  }

  /** Starts writing again after `pause()`. */
  resume(): void {
    this.#paused = false;
    // With nothing queued, nobody waits for idle here: whatever emptied the queue (a run, a failure) woke them.
    if (this.#queue.length > 0) this.#kick();
  }

  /**
   * Refuses every queued write and every later one with a 503 naming `error`, as a failed batch does.
   * For a failure outside a batch that leaves the log unsafe to append to (a failed compaction swap).
   */
  fail(error: unknown): void {
    this.#fail([], error);
    // Nothing is queued now: with no batch in flight to finish, the queue is idle at once.
    if (this.#running === undefined) this.#wakeIdleWaiters();
  }

  /** Refuses new writes, then waits for the queued ones. */
  async close(): Promise<void> {
    this.#refusal ??= () => new StoreUnavailable('The server is shutting down; nothing of this request was saved. Retry in a moment.');
    await this.drain();
  }

  #kick(): void {
    if (this.#running === undefined && !this.#paused) this.#running = this.#run();
  }

  async #run(): Promise<void> {
    // Wait one turn of the event loop, so the writes of every request read in this turn go out together; without
    // gatherTurn, only until the caller's synchronous queueing is done.
    await (this.#gatherTurn ? new Promise<void>((resolve) => setImmediate(resolve)) : Promise.resolve());
    while (this.#queue.length > 0 && !this.#paused) {
      const batch = this.#takeBatch();
      let text = '';
      let lineCount = 0;
      for (const entry of batch) {
        text += entry.line;
        lineCount += entry.lineCount;
      }
      try {
        await this.#persist(text, lineCount);
      } catch (error) {
        this.#fail(batch, error);
        break;
      }
      commitBatch(batch, this.#views);
      this.#onCommit?.();
    }
    this.#running = undefined;
    if (this.#queue.length === 0) this.#wakeIdleWaiters();
  }

  #wakeIdleWaiters(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }

  #takeBatch(): QueuedChange[] {
    let chars = 0;
    let count = 0;
    while (count < this.#queue.length && (count === 0 || chars + this.#queue[count]!.line.length <= this.#maxBatchChars)) {
      chars += this.#queue[count]!.line.length;
      count++;
    }
    return this.#queue.splice(0, count);
  }

  #fail(batch: readonly QueuedChange[], error: unknown): void {
    const reason = describeWriteError(error);
    const uncertain = error instanceof UncertainWriteError;
    this.#refusal = () => cannotWriteError(reason, uncertain);
    const failed = [...batch, ...this.#queue];
    this.#queue = [];
    this.#pending.clear();
    for (const entry of failed) entry.reject(cannotWriteError(reason, uncertain));
  }
}
