// The write path both stores share: a change runs against the latest queued state, its line goes out in a group, then the index sees it.
import { seatsOf, toStored, withRegisteredCount } from './served-event.js';
import { viewJson } from '../../events/event.js';
import type { EventRecord, StoredEvent } from '../../events/event.js';
import type { EventChange, GroupChange, GroupResult, GroupView, RosterChange, RosterResult, WriteOptions } from '../event-store.js';
import { DocumentTable, type StoredDocument } from './document-table.js';
import type { EventIndex } from './event-index.js';
import { encodeCancel, encodeCheckIn, encodeDelete, encodeDocument, encodeDocumentDelete, encodeGroup, encodeRegister, encodeStored } from '../records/encode-record.js';
import { unloggableReason } from '../records/record-checks.js';
import type { CancelRecord, CheckInRecord, LogRecord, RegisterRecord } from '../records/jsonl-record.js';
import { emptyRoster, type Registration, Roster, type RosterView } from './roster.js';
import type { RosterTable } from './roster-table.js';
import { StoreUnavailable } from '../store-errors.js';
import type { ChangeLog } from './change-log.js';
import type { IdempotencyTable, IdempotencyTag } from './idempotency-table.js';
import { rememberAnswer } from './remember-answer.js';
import { UncertainWriteError } from '../uncertain-write.js';
import { touchedBy, type ChangeHistory, type CommittedChange } from './change-history.js';

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

/** A change to one event inside a queued write. */
interface EventMember {
  /** The event the change is to. */
  readonly id: string;
  /** The event after the change: null when deleted, undefined when the change leaves it as it was. */
  readonly state: StoredEvent | null | undefined;
  /** What the line says, applied to the committed rosters once it is durable. */
  readonly record: LogRecord;
}

/** A document put (or deleted: null) by a queued group write. */
interface DocumentMember {
  readonly collection: string;
  readonly id: string;
  readonly seq: number;
  readonly document: StoredDocument | null;
}

interface QueuedChange {
  /** The events it changes: one, or several for a group write. */
  readonly members: readonly EventMember[];
  readonly documents: readonly DocumentMember[];
  /** Its text: one line, or one group line (see encodeGroup). */
  readonly line: string;
  /** Log records in `line`. */
  readonly lineCount: number;
  /** Tells the writer it is durable and visible. */
  readonly settle: () => void;
  readonly reject: (error: unknown) => void;
}

/** The latest queued state of one event and its roster: what the next change to it sees. */
interface Pending {
  event: StoredEvent | undefined;
  /** A working copy of the roster, made when a queued change first touches it. */
  roster: Roster | undefined;
  last: QueuedChange;
}

/** Working rosters kept for reuse (see WriteQueue.#spareRosters). */
const SPARE_ROSTERS = 4;

/** The sentence every refused write gets once the store cannot write (API.md §7); `uncertain` when the failed batch could not be undone. */
export function cannotWriteError(reason: string, uncertain = false): StoreUnavailable {
  if (uncertain) {
    return new StoreUnavailable(`The store cannot write (${reason}), and undoing a failed write failed too: whether the last writes were saved is uncertain until the server is restarted. Writes are refused until then.`);
  }
  return new StoreUnavailable(`The store cannot write (${reason}); nothing of this request was saved. Writes are refused until the server is restarted.`);
}

/** A short, safe description of a failed write or sync, e.g. `ENOSPC: no space left on the disk`. */
export function describeWriteError(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return 'an unexpected write error';
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

/**
 * One in-process queue with group commit: every change queued while a batch is being written goes
 * out together in the next batch, as one persist call. A write resolves only after its batch is
 * durable and applied to the index. A failed batch fails it and everything queued after it, and
 * every later write: the queue never retries.
 */
export class WriteQueue {
  readonly #index: EventIndex;
  readonly #rosters: RosterTable;
  readonly #now: () => number;
  readonly #persist: PersistBatch;
  readonly #maxBatchChars: number;
  readonly #onCommit: (() => void) | undefined;
  readonly #changes: ChangeLog | undefined;
  readonly #idempotency: IdempotencyTable | undefined;
  readonly #history: ChangeHistory | undefined;
  readonly #gatherTurn: boolean;
  /** Events with queued (not yet durable) changes: what the next change to each sees. */
  readonly #pending = new Map<string, Pending>();
  /**
   * Working rosters of events whose queued changes are all committed, so each equals its committed roster: the next
   * change to one of these events reuses it instead of copying the roster again (a copy per batch made registering for
   * a large event slow down as its roster grew). A few, the latest used: each costs the maps of a roster, not its registrations.
   */
  readonly #spareRosters = new Map<string, Roster>();
  #queue: QueuedChange[] = [];
  readonly #documents: DocumentTable;
  /** Documents with queued (not yet durable) changes: what the next group change sees. */
  readonly #pendingDocuments = new Map<string, { document: StoredDocument | null; last: QueuedChange }>();
  #nextSeq: number;
  #running: Promise<void> | undefined;
  #paused = false;
  #idleWaiters: (() => void)[] = [];
  /** Set once writes are refused: the error each refused write gets. */
  #refusal: (() => StoreUnavailable) | undefined;

  constructor(options: WriteQueueOptions) {
    this.#index = options.index;
    this.#rosters = options.rosters;
    this.#now = options.now;
    this.#nextSeq = options.nextSeq;
    this.#persist = options.persist;
    this.#maxBatchChars = options.maxBatchChars ?? 1024 * 1024;
    this.#onCommit = options.onCommit;
    this.#changes = options.changes;
    this.#idempotency = options.idempotency;
    this.#documents = options.documents ?? new DocumentTable();
    this.#history = options.history;
    this.#gatherTurn = options.gatherTurn ?? true;
  }

  /** The committed document `id` of `collection`. */
  document(collection: string, id: string): StoredDocument | undefined {
    return this.#documents.get(collection, id);
  }

  /** The committed documents of `collection`. */
  documents(collection: string): StoredDocument[] {
    return this.#documents.list(collection);
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
   * capacity raised confirms the oldest waitlisted registrations in the same line.
   */
  write(id: string, change: EventChange, options: WriteOptions = {}): Promise<StoredEvent | null> {
    if (this.#refusal !== undefined) return Promise.reject(this.#refusal());
    const pending = this.#pending.get(id);
    const current = pending === undefined ? this.#index.get(id) : pending.event;
    const seq = this.#nextSeq;
    let state: StoredEvent | null;
    let line: string;
    let record: LogRecord;
    let promoted: string[];
    try {
      const next = change(current);
      if (next === null) {
        if (current === undefined) throw new TypeError(`a change deleted event ${id}, which does not exist`);
        state = null;
        promoted = [];
        line = encodeDelete(seq, id);
        record = { seq, op: 'del', id };
      } else {
        const put = this.#put(id, current, pending !== undefined, next, seq, options);
        // A change that changes nothing of a committed event writes nothing, so its ETag stays.
        if (put === undefined) return Promise.resolve(current!);
        ({ state, line, record, promoted } = put);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(id, state, record, line, (entry) => {
      if (state === null) {
        entry.roster = new Roster();
        this.#spareRosters.delete(id);
      }
      if (promoted.length > 0) this.#working(id, entry).confirm(promoted);
    }, () => state);
  }

  /** The put of `next` over `current` at `seq`, its count set from the roster; undefined when it would change nothing of a committed event. */
  #put(id: string, current: StoredEvent | undefined, queued: boolean, next: EventRecord, seq: number, options: WriteOptions): { state: StoredEvent; line: string; record: LogRecord; promoted: string[] } | undefined {
    if (next.id !== id) throw new TypeError(`a change to event ${id} returned event ${next.id}`);
    const roster = current === undefined ? emptyRoster() : this.#rosterNow(id);
    const promoted = roster.nextToConfirm(next.capacity);
    // The roster is the truth of registered_count: the confirmed ones, and those a raised capacity confirms now.
    const record_ = { ...next, registered_count: roster.confirmed + promoted.length };
    const unloggable = unloggableReason(record_);
    if (unloggable !== undefined) throw new TypeError(`the store cannot log event ${id}: ${unloggable}`);
    const view = viewJson(record_);
    if (!queued && current !== undefined && view === current.json && record_.created_at === current.createdAt) return undefined;
    const state = toStored(record_, seq, view, this.#now());
    const line = encodeStored(state, promoted, options.idem);
    const record: LogRecord = promoted.length === 0 ? { seq, op: 'put', stored: state } : { seq, op: 'put', stored: state, promoted };
    if (options.idem !== undefined) record.idem = options.idem;
    return { state, line, record, promoted };
  }

  /**
   * Queues a change to several events and documents as one group line (see EventStore.writeGroup): `change`
   * decides against the latest queued state, and nothing of it is visible until the whole line is durable.
   */
  writeGroup(change: GroupChange): Promise<GroupResult> {
    if (this.#refusal !== undefined) return Promise.reject(this.#refusal());
    const view: GroupView = {
      event: (id) => this.#eventNow(id),
      roster: (id) => this.#rosterNow(id),
      document: (collection, id) => {
        const pending = this.#pendingDocuments.get(documentKey(collection, id));
        return pending === undefined ? this.#documents.get(collection, id) : (pending.document ?? undefined);
      },
    };
    let seq = this.#nextSeq;
    const members: (EventMember & { promoted: string[] })[] = [];
    const documents: DocumentMember[] = [];
    const lines: string[] = [];
    try {
      const plan = change(view);
      const seen = new Set<string>();
      for (const { id, record: next } of plan.events) {
        if (seen.has(id)) throw new TypeError(`a group write changes event ${id} twice`);
        seen.add(id);
        const pending = this.#pending.get(id);
        const current = this.#eventNow(id);
        if (next === null) {
          if (current === undefined) throw new TypeError(`a group write deleted event ${id}, which does not exist`);
          members.push({ id, state: null, record: { seq, op: 'del', id }, promoted: [] });
          lines.push(encodeDelete(seq++, id));
          continue;
        }
        const put = this.#put(id, current, pending !== undefined, next, seq, {});
        if (put === undefined) continue;
        members.push({ id, state: put.state, record: put.record, promoted: put.promoted });
        lines.push(put.line);
        seq++;
      }
      for (const { collection, id, json } of plan.documents) {
        if (seen.has(documentKey(collection, id))) throw new TypeError(`a group write changes document ${id} twice`);
        seen.add(documentKey(collection, id));
        const document = json === null ? null : { collection, id, json, seq };
        lines.push(document === null ? encodeDocumentDelete(seq, collection, id) : encodeDocument(document));
        documents.push({ collection, id, seq, document });
        seq++;
      }
    } catch (error) {
      return Promise.reject(error);
    }
    const result = (): GroupResult => ({
      events: new Map(members.map((member) => [member.id, member.state ?? null])),
      documents: new Map(documents.map((member) => [member.id, member.document])),
    });
    if (lines.length === 0) return Promise.resolve(result());
    this.#nextSeq = seq;
    return new Promise<GroupResult>((resolve, reject) => {
      const queued: QueuedChange = { members, documents, line: lines.length === 1 ? lines[0]! : encodeGroup(lines), lineCount: lines.length, settle: () => resolve(result()), reject };
      for (const member of members) {
        const entry = this.#pendingEntry(member.id, queued, member.state);
        if (member.state === null) {
          entry.roster = new Roster();
          this.#spareRosters.delete(member.id);
        }
        if (member.promoted.length > 0) this.#working(member.id, entry).confirm(member.promoted);
      }
      for (const member of documents) this.#pendingDocuments.set(documentKey(member.collection, member.id), { document: member.document, last: queued });
      this.#queue.push(queued);
      this.#kick();
    });
  }

  /** The latest queued state of an event, else its committed one. */
  #eventNow(id: string): StoredEvent | undefined {
    const pending = this.#pending.get(id);
    return pending === undefined ? this.#index.get(id) : pending.event;
  }

  /**
   * Queues a change to the registrations of event `id` (see EventStore.changeRegistrations): `change`
   * decides against the latest queued state; the seat rules are applied here, in the one writer.
   */
  changeRegistrations(id: string, change: RosterChange, options: WriteOptions = {}): Promise<RosterResult> {
    if (this.#refusal !== undefined) return Promise.reject(this.#refusal());
    const pending = this.#pending.get(id);
    const event = pending === undefined ? this.#index.get(id) : pending.event;
    const roster = this.#rosterNow(id);
    let seq = this.#nextSeq;
    const atMs = this.#now();
    const at = new Date(atMs).toISOString();
    let decision: ReturnType<RosterChange>;
    let record: RegisterRecord | CancelRecord | CheckInRecord;
    let line: string;
    let registration: Registration;
    let confirmedAfter: number;
    try {
      decision = change(event, roster);
      if (decision === undefined) return Promise.resolve({ event, registration: undefined });
      if (event === undefined) throw new TypeError(`a change to the registrations of event ${id}, which does not exist`);
      const { capacity } = seatsOf(event);
      switch (decision.op) {
        case 'register': {
          // Checked here too, so a working roster is never left half changed by a refused add.
          if (roster.get(decision.registration.id) !== undefined || roster.hasEmail(decision.registration.email)) {
            throw new TypeError(`registration ${decision.registration.id} (${decision.registration.email}) is already on event ${id}`);
          }
          const status = roster.confirmed < capacity ? 'confirmed' : 'waitlisted';
          // A confirmation also changes the event, whose new state needs a seq of its own: compaction writes
          // the registration at its seq and the event at the event's, and two lines never share one.
          const registrationSeq = seq;
          if (status === 'confirmed') seq++;
          registration = { ...decision.registration, eventId: event.id, status, createdAt: at, checkedInAt: null, seq: registrationSeq };
          record = options.idem === undefined ? { seq, op: 'reg', registration } : { seq, op: 'reg', registration, idem: options.idem };
          line = encodeRegister(registration, seq, options.idem);
          confirmedAfter = roster.confirmed + (status === 'confirmed' ? 1 : 0);
          break;
        }
        case 'cancel': {
          registration = existing(roster, decision.id, id);
          // A confirmed seat freed goes to the oldest waitlisted registration.
          const promoted = registration.status === 'confirmed' ? roster.nextToConfirm(capacity + 1) : [];
          record = { seq, op: 'cancel', eventId: event.id, id: registration.id, atMs, promoted };
          line = encodeCancel(record);
          confirmedAfter = roster.confirmed - (registration.status === 'confirmed' ? 1 : 0) + promoted.length;
          break;
        }
        case 'checkIn': {
          const before = existing(roster, decision.id, id);
          if (before.status !== 'confirmed') throw new TypeError(`registration ${before.id} is waitlisted: it cannot be checked in`);
          if (before.checkedInAt !== null) return Promise.resolve({ event, registration: before });
          registration = { ...before, checkedInAt: at };
          record = { seq, op: 'checkin', eventId: event.id, id: before.id, at };
          line = encodeCheckIn(record);
          confirmedAfter = roster.confirmed;
          break;
        }
        default: {
          const unknown: never = decision;
          throw new TypeError(`unknown registration change ${JSON.stringify(unknown)}`);
        }
      }
    } catch (error) {
      return Promise.reject(error);
    }
    // The event changes (a new ETag, a change-feed entry) only when its registered_count does.
    const state = confirmedAfter === roster.confirmed ? undefined : withRegisteredCount(event, confirmedAfter, seq, atMs);
    return this.#enqueue(id, state, record, line, (entry) => {
      const working = this.#working(id, entry);
      if (record.op === 'reg') working.add(registration);
      else if (record.op === 'cancel') {
        working.remove(record.id);
        working.confirm(record.promoted);
      } else working.checkIn(record.id, record.at);
    }, () => ({ event: state ?? event, registration }));
  }

  /** The latest queued roster of an event (a working copy when changes are queued), else the committed one. */
  #rosterNow(id: string): RosterView {
    return this.#pending.get(id)?.roster ?? this.#rosters.get(id);
  }

  /** The working copy of an event's roster, made on first use. */
  #working(id: string, entry: Pending): Roster {
    if (entry.roster === undefined) {
      entry.roster = this.#spareRosters.get(id) ?? this.#rosters.copy(id);
      this.#spareRosters.delete(id);
    }
    return entry.roster;
  }

  /** Takes the seq, queues the line, and updates the pending state of the event (`touch` changes its working roster). */
  #enqueue<T>(id: string, state: StoredEvent | null | undefined, record: LogRecord, line: string, touch: (entry: Pending) => void, result: () => T): Promise<T> {
    this.#nextSeq = record.seq + 1;
    return new Promise<T>((resolve, reject) => {
      const queued: QueuedChange = { members: [{ id, state, record }], documents: [], line, lineCount: 1, settle: () => resolve(result()), reject };
      touch(this.#pendingEntry(id, queued, state));
      this.#queue.push(queued);
      this.#kick();
    });
  }

  /** The pending state of event `id`, now last changed by `queued` (to `state`, unless undefined). */
  #pendingEntry(id: string, queued: QueuedChange, state: StoredEvent | null | undefined): Pending {
    let entry = this.#pending.get(id);
    if (entry === undefined) {
      entry = { event: this.#index.get(id), roster: undefined, last: queued };
      this.#pending.set(id, entry);
    }
    entry.last = queued;
    if (state !== undefined) entry.event = state ?? undefined;
    return entry;
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
      this.#commit(batch);
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

  /** Memory after disk: the index changes only now, then the writers hear back. */
  #commit(batch: readonly QueuedChange[]): void {
    const history: CommittedChange[] | undefined = this.#history?.listened === true ? [] : undefined;
    const atMs = this.#now();
    for (const entry of batch) {
      for (const member of entry.members) {
        if (history !== undefined) {
          history.push({ record: member.record, before: this.#index.get(member.id), after: member.state, touched: touchedBy(member.record, this.#rosters.get(member.id)), atMs });
        }
        this.#commitMember(entry, member);
      }
      for (const member of entry.documents) {
        this.#documents.set(member.collection, member.id, member.document);
        // Not a change-feed entry (API.md §11), but the newest durable write: next_since and compaction's mark count it.
        this.#changes?.committed(member.seq, member.id, undefined);
        const key = documentKey(member.collection, member.id);
        if (this.#pendingDocuments.get(key)?.last === entry) this.#pendingDocuments.delete(key);
      }
    }
    this.#changes?.batchCommitted(this.#index.values(), this.#index.size);
    if (history !== undefined) this.#history!.committed(history);
    for (const entry of batch) entry.settle();
  }

  #commitMember(entry: QueuedChange, member: EventMember): void {
    if (member.state === null) this.#index.delete(member.id);
    else if (member.state !== undefined) this.#index.put(member.state);
    this.#rosters.apply(member.record);
    this.#changes?.committed(member.record.seq, member.id, member.state);
    if (this.#idempotency !== undefined) rememberAnswer(this.#idempotency, member.record, this.#now());
    const pending = this.#pending.get(member.id);
    if (pending?.last !== entry) return;
    this.#pending.delete(member.id);
    // Every change made to the working roster is now committed: it equals the committed one, and is kept for the next change.
    if (pending.roster !== undefined) this.#keepSpare(member.id, pending.roster);
  }

  #keepSpare(id: string, roster: Roster): void {
    this.#spareRosters.delete(id);
    this.#spareRosters.set(id, roster);
    if (this.#spareRosters.size > SPARE_ROSTERS) this.#spareRosters.delete(this.#spareRosters.keys().next().value!);
  }

  #fail(batch: readonly QueuedChange[], error: unknown): void {
    const reason = describeWriteError(error);
    const uncertain = error instanceof UncertainWriteError;
    this.#refusal = () => cannotWriteError(reason, uncertain);
    const failed = [...batch, ...this.#queue];
    this.#queue = [];
    this.#pending.clear();
    this.#pendingDocuments.clear();
    this.#spareRosters.clear();
    for (const entry of failed) entry.reject(cannotWriteError(reason, uncertain));
  }
}

function documentKey(collection: string, id: string): string {
  return `${collection}/${id}`;
}

function existing(roster: RosterView, registrationId: string, eventId: string): Registration {
  const registration = roster.get(registrationId);
  if (registration === undefined) throw new TypeError(`registration ${registrationId} is not on event ${eventId}`);
  return registration;
}
