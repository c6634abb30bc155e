// WriteQueue against a plain model over seeded random steps: a fake disk that the test resolves or fails when it chooses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { viewJson, type EventRecord, type StoredEvent } from '../../../src/events/event.js';
import { isGroupLine } from '../../../src/lib/group-line.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { decodeGroup } from '../../../src/store/records/group-line.js';
import type { LogRecord, MetaRecord } from '../../../src/store/records/jsonl-record.js';
import { StoreUnavailable } from '../../../src/store/store-errors.js';
import { UncertainWriteError } from '../../../src/store/uncertain-write.js';
import { applyRecord, type Views } from '../../../src/store/views/apply-record.js';
import { ChangeHistory, type CommittedChange } from '../../../src/store/views/change-history.js';
import { ChangeLog } from '../../../src/store/views/change-log.js';
import { DocumentTable } from '../../../src/store/views/document-table.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { IdempotencyTable, type IdempotencyTag } from '../../../src/store/views/idempotency-table.js';
import { RosterTable } from '../../../src/store/views/roster-table.js';
import type { Registration, RosterView } from '../../../src/store/views/roster.js';
import { WriteQueue } from '../../../src/store/write/write-queue.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, sampleRecord } from '../helpers.js';

const SEED = Number(process.env['WRITE_QUEUE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const EVENTS = [1, 2, 3, 4, 5, 6].map(eventId);
const COLLECTIONS = ['series', 'notes'];
const START = Date.parse('2031-03-01T08:00:00.000Z');

interface ModelEvent {
  /** The event as a plain record; its registered_count is the roster's confirmed count. */
  record: EventRecord;
  seq: number;
  modifiedMs: number;
}

interface ModelDocument {
  collection: string;
  id: string;
  json: string;
  seq: number;
}

/** What the store should hold: the plain model. */
interface ModelState {
  events: Map<string, ModelEvent>;
  rosters: Map<string, Registration[]>;
  documents: Map<string, ModelDocument>;
}

const emptyState = (): ModelState => ({ events: new Map(), rosters: new Map(), documents: new Map() });
const cloneState = (s: ModelState): ModelState => ({ events: new Map(s.events), rosters: new Map([...s.rosters].map(([id, list]) => [id, [...list]])), documents: new Map(s.documents) });

type Shown = Record<string, unknown> | null | undefined;

const showEvent = (stored: StoredEvent | null | undefined): Shown =>
  stored === null || stored === undefined ? stored : { id: stored.id, seq: stored.seq, modifiedMs: stored.modifiedMs, createdAt: stored.createdAt, view: JSON.parse(stored.json) };
const showModel = (event: ModelEvent | undefined): Shown =>
  event === undefined ? undefined : { id: event.record.id, seq: event.seq, modifiedMs: event.modifiedMs, createdAt: event.record.created_at, view: JSON.parse(viewJson(event.record)) };
const showRoster = (roster: RosterView): unknown => ({ list: [...roster.values()].map((r) => ({ ...r })), confirmed: roster.confirmed, waitlisted: roster.waitlisted, size: roster.size });
const showModelRoster = (list: readonly Registration[] | undefined): unknown => {
  const all = list ?? [];
  const confirmed = all.filter((r) => r.status === 'confirmed').length;
  return { list: all.map((r) => ({ ...r })), confirmed, waitlisted: all.length - confirmed, size: all.length };
};
const documentKey = (collection: string, id: string): string => `${collection}/${id}`;

/** The whole committed state of views, shown plainly. */
function showViews(index: EventIndex, rosters: RosterTable, document: (collection: string, id: string) => unknown, documents: (collection: string) => { id: string }[]): unknown {
  return {
    events: EVENTS.map((id) => showEvent(index.get(id))),
    size: index.size,
    rosters: EVENTS.map((id) => showRoster(rosters.get(id))),
    documents: COLLECTIONS.map((c) => [...documents(c)].sort((a, b) => a.id.localeCompare(b.id)).map((d) => ({ ...d }))),
    one: COLLECTIONS.map((c) => ['d1', 'd2', 'd3'].map((id) => { const d = document(c, id) as ModelDocument | undefined; return d === undefined ? undefined : { ...d }; })),
  };
}

function showState(s: ModelState): unknown {
  return {
    events: EVENTS.map((id) => showModel(s.events.get(id))),
    size: s.events.size,
    rosters: EVENTS.map((id) => showModelRoster(s.rosters.get(id))),
    documents: COLLECTIONS.map((c) => [...s.documents.values()].filter((d) => d.collection === c).sort((a, b) => a.id.localeCompare(b.id)).map((d) => ({ ...d }))),
    one: COLLECTIONS.map((c) => ['d1', 'd2', 'd3'].map((id) => { const d = s.documents.get(documentKey(c, id)); return d === undefined ? undefined : { ...d }; })),
  };
}

/** A queued write the model expects to be written: its line, the state after it, the answer it should get. */
interface Written {
  n: number;
  label: string;
  /** Events the change touches (the queue's pending entries). */
  ids: string[];
  seqs: number[];
  after: ModelState;
  expected: unknown;
  show: (value: unknown) => unknown;
  answers: { tag: IdempotencyTag; entry: unknown }[];
  state: 'unsent' | 'inflight' | 'committed' | 'failed';
  failMessage?: string;
  records?: (LogRecord | MetaRecord)[];
  settled?: { ok: boolean; value: unknown; order: number };
}

/** A call that should settle at once: refused, thrown, or changing nothing. */
interface Immediate {
  label: string;
  ok: boolean;
  expected: unknown;
  show: (value: unknown) => unknown;
  settled?: { ok: boolean; value: unknown };
}

class Harness {
  readonly random: () => number;
  clock = START;
  readonly index = new EventIndex();
  readonly rosters: RosterTable;
  readonly documentsTable = new DocumentTable();
  readonly changes: ChangeLog;
  readonly idempotency = new IdempotencyTable();
  readonly without = new Set<string>();
  readonly history: ChangeHistory | undefined;
  readonly heard: CommittedChange[] = [];
  readonly writes: WriteQueue;
  readonly maxBatchChars: number | undefined;
  readonly gatherTurn: boolean;
  /** The replay of every durable line into views of its own. */
  readonly replay: Views;
  readonly replayHeard: CommittedChange[] = [];
  committed = emptyState();
  queued = emptyState();
  nextSeq: number;
  lastSeq = 0;
  readonly answers = new Map<string, { tag: IdempotencyTag; entry: unknown }>();
  readonly ops: Written[] = [];
  unsent: Written[] = [];
  inflight: Written[] | undefined;
  disk: { text: string; lineCount: number; resolve: () => void; reject: (error: unknown) => void } | undefined;
  readonly immediates: Immediate[] = [];
  readonly problems: string[] = [];
  settleOrder = 0;
  commits = 0;
  batches = 0;
  listened = 0;
  refusal: string | undefined;
  paused = false;
  run: { ended: boolean } | undefined;
  readonly drains: { promise: { done: boolean }; expected: boolean }[] = [];
  readonly pauses: { promise: { done: boolean }; run: { ended: boolean } | undefined }[] = [];
  /** Each batch's characters when the next one must overflow it: checked on the next persist. */
  overflow: { chars: number; n: number } | undefined;

  constructor(seed: number) {
    this.random = mulberry32(seed);
    const below = (n: number): number => Math.floor(this.random() * n);
    this.rosters = new RosterTable();
    for (const name of ['onCommit', 'changes', 'idempotency', 'documents']) if (below(4) === 0) this.without.add(name);
    this.changes = new ChangeLog((id) => this.index.get(id));
    this.changes.subscribe(() => this.listened++);
    const withHistory = below(3);
    this.history = withHistory === 0 ? undefined : new ChangeHistory();
    if (withHistory === 2) this.history!.subscribe((changes) => this.heard.push(...changes));
    this.maxBatchChars = below(2) === 0 ? undefined : 200 + below(1500);
    this.gatherTurn = below(3) !== 0;
    this.nextSeq = 1 + below(3) * 1000;
    const replayHistory = new ChangeHistory();
    replayHistory.subscribe((changes) => this.replayHeard.push(...changes));
    const replayIndex = new EventIndex();
    this.replay = { index: replayIndex, rosters: new RosterTable(), changes: new ChangeLog((id) => replayIndex.get(id)), idempotency: new IdempotencyTable(), documents: new DocumentTable(), history: replayHistory };
    const options = {
      index: this.index,
      rosters: this.rosters,
      now: () => this.clock,
      nextSeq: this.nextSeq,
      persist: (text: string, lineCount: number) => this.persist(text, lineCount),
      // Each collaborator is optional: some rounds go without each.
      ...(this.without.has('onCommit') ? {} : { onCommit: () => this.commits++ }),
      ...(this.without.has('changes') ? {} : { changes: this.changes }),
      ...(this.without.has('idempotency') ? {} : { idempotency: this.idempotency }),
      ...(this.without.has('documents') ? {} : { documents: this.documentsTable }),
      ...(this.history === undefined ? {} : { history: this.history }),
      ...(this.maxBatchChars === undefined ? {} : { maxBatchChars: this.maxBatchChars }),
      ...(this.gatherTurn ? (below(2) === 0 ? {} : { gatherTurn: true }) : { gatherTurn: false }),
    };
    this.writes = new WriteQueue(options);
  }

  below(n: number): number {
    return Math.floor(this.random() * n);
  }

  problem(text: string): void {
    this.problems.push(text);
  }

  /** The fake disk: checks the batch it is given against the queued writes, and waits for the test. */
  persist(text: string, lineCount: number): Promise<void> {
    if (this.disk !== undefined) this.problem('persist called while a batch was in flight');
    if (this.run === undefined || this.run.ended || this.paused) this.problem('persist called with no run expected');
    const lines = text.split('\n');
    if (lines.pop() !== '') this.problem('a batch does not end with a newline');
    const batch = this.unsent.slice(0, lines.length);
    if (batch.length !== lines.length) this.problem(`a batch of ${lines.length} lines for ${this.unsent.length} queued writes`);
    let chars = 0;
    let count = 0;
    lines.forEach((line, at) => {
      const op = batch[at];
      chars += line.length + 1;
      const bytes = Buffer.from(line);
      const group = isGroupLine(bytes, 0, bytes.length);
      const decoded = group ? decodeGroup(bytes, 0, bytes.length, undefined) : decodeRecord(bytes, 0, bytes.length);
      const records: (LogRecord | MetaRecord)[] = typeof decoded === 'string' ? [] : Array.isArray(decoded) ? decoded : [decoded];
      count += records.length;
      // A group of one line is written as a plain line, which any reader of the log reads.
      if (group && records.length === 1) this.problem(`${op?.label}: a group of one line written as a group`);
      if (op === undefined) return;
      if (typeof decoded === 'string') this.problem(`${op.label}: ${decoded}`);
      op.records = records;
      if (!isDeepStrictEqual(records.map((r) => r.seq), op.seqs)) this.problem(`${op.label}: its line holds seqs ${records.map((r) => r.seq).join()}, not ${op.seqs.join()}`);
    });
    if (lineCount !== count) this.problem(`persist told ${lineCount} lines for ${count}`);
    if (this.overflow !== undefined && batch[0] !== undefined && batch[0].n === this.overflow.n) {
      if (this.overflow.chars + lines[0]!.length + 1 <= (this.maxBatchChars ?? 1024 * 1024)) this.problem(`a batch of ${this.overflow.chars} characters stopped short of write ${batch[0].n}`);
    }
    this.overflow = undefined;
    if (batch.length > 1 && chars > (this.maxBatchChars ?? 1024 * 1024)) this.problem(`a batch of ${chars} characters passes the limit`);
    if (batch.length < this.unsent.length) this.overflow = { chars, n: this.unsent[batch.length]!.n };
    for (const op of batch) op.state = 'inflight';
    this.unsent = this.unsent.slice(batch.length);
    this.inflight = batch;
    this.batches++;
    return new Promise<void>((resolve, reject) => (this.disk = { text, lineCount, resolve, reject }));
  }

  pending(id: string): boolean {
    // A failure clears the queued state: a batch still in flight (refused from outside) lands, but unseen till then.
    if (this.failed) return false;
    return [...this.unsent, ...(this.inflight ?? [])].some((op) => op.ids.includes(id));
  }

  /** Set once writes failed (not merely closed): nothing queued is seen any more. */
  failed = false;

  /** The queue starts a run when nothing runs and it is not paused. */
  kick(): void {
    if (this.run === undefined && !this.paused) this.run = { ended: false };
  }

  endRun(): void {
    if (this.run !== undefined) this.run.ended = true;
    this.run = undefined;
    if (this.unsent.length === 0) this.wake();
  }

  wake(): void {
    for (const drain of this.drains) drain.expected = true;
  }

  immediate(label: string, promise: Promise<unknown>, ok: boolean, expected: unknown, show: (value: unknown) => unknown = (v) => v): void {
    const entry: Immediate = { label, ok, expected, show };
    this.immediates.push(entry);
    promise.then(
      (value) => (entry.settled = { ok: true, value }),
      (error: unknown) => (entry.settled = { ok: false, value: error }),
    );
  }

  refuse(label: string, promise: Promise<unknown>): void {
    this.immediate(label, promise, false, { type: StoreUnavailable, message: this.refusal });
  }

  /**
   * Once writes are refused, the queued state before the change being decided: the queue still decides each change
   * (its own errors and its no-ops answer as ever), and refuses only one that would write, which leaves nothing queued.
   */
  decidedFrom: ModelState | undefined;

  written(label: string, promise: Promise<unknown>, ids: string[], seqs: number[], expected: unknown, show: (value: unknown) => unknown, answers: { tag: IdempotencyTag; entry: unknown }[] = []): void {
    if (this.refusal !== undefined) {
      this.queued = this.decidedFrom!;
      return this.refuse(label, promise);
    }
    const op: Written = { n: this.ops.length, label, ids, seqs, after: cloneState(this.queued), expected, show, answers, state: 'unsent' };
    this.ops.push(op);
    this.unsent.push(op);
    this.nextSeq = seqs[seqs.length - 1]! + 1;
    this.kick();
    promise.then(
      (value) => {
        op.settled = { ok: true, value, order: this.settleOrder++ };
        if (op.state !== 'committed') this.problem(`${label} resolved before its batch was durable`);
        // Visible when it resolves: the index already holds its whole batch.
        for (const id of ids) if (!isDeepStrictEqual(showEvent(this.index.get(id)), showModel(this.committed.events.get(id)))) this.problem(`${label} resolved before ${id} was visible`);
      },
      (error: unknown) => (op.settled = { ok: false, value: error, order: this.settleOrder++ }),
    );
  }

  // ---- the writes ----

  /** A record for `id`: the latest queued one changed a little, or a new one. */
  nextRecord(id: string): EventRecord {
    const n = EVENTS.indexOf(id) + 1;
    const base = this.queued.events.get(id)?.record ?? sampleRecord(n, { capacity: this.below(4) });
    const record: EventRecord = { ...base, registered_count: this.below(3) === 0 ? this.below(9) : base.registered_count };
    const roll = this.below(8);
    if (roll === 0) record.title = `Event ${n} v${this.below(3)}`;
    else if (roll === 1 || roll === 2) record.capacity = this.below(5);
    else if (roll === 3) record.created_at = new Date(START - this.below(3) * 86_400_000).toISOString();
    return record;
  }

  /** The put of `next` over the queued state: undefined when it changes nothing of a committed event. */
  expectPut(id: string, next: EventRecord, seq: number, pending: boolean): { event: ModelEvent; promoted: string[] } | undefined {
    const current = this.queued.events.get(id);
    const roster = current === undefined ? [] : (this.queued.rosters.get(id) ?? []);
    const confirmed = roster.filter((r) => r.status === 'confirmed').length;
    const promoted = roster.filter((r) => r.status === 'waitlisted').slice(0, Math.max(0, next.capacity - confirmed)).map((r) => r.id);
    const record = { ...next, registered_count: confirmed + promoted.length };
    if (!pending && current !== undefined && viewJson(record) === viewJson(current.record) && record.created_at === current.record.created_at) return undefined;
    return { event: { record, seq, modifiedMs: this.clock }, promoted };
  }

  applyPut(id: string, put: { event: ModelEvent; promoted: string[] }): void {
    this.queued.events.set(id, put.event);
    if (put.promoted.length > 0) {
      this.queued.rosters.set(id, (this.queued.rosters.get(id) ?? []).map((r) => (put.promoted.includes(r.id) ? { ...r, status: 'confirmed' } : r)));
    }
  }

  applyDelete(id: string): void {
    this.queued.events.delete(id);
    this.queued.rosters.delete(id);
  }

  checkSeen(label: string, id: string, seen: StoredEvent | undefined): void {
    if (!isDeepStrictEqual(showEvent(seen), showModel(this.queued.events.get(id)))) this.problem(`${label}: the change saw ${JSON.stringify(showEvent(seen))}, not the latest queued state`);
  }

  checkRoster(label: string, id: string, seen: RosterView): void {
    if (!isDeepStrictEqual(showRoster(seen), showModelRoster(this.queued.rosters.get(id)))) this.problem(`${label}: the change saw another roster`);
  }

  idemTag(): IdempotencyTag | undefined {
    return this.below(3) === 0 ? { key: `k${this.ops.length}-${this.below(1e6)}`, keyId: `key${this.below(2)}`, requestHash: `h${this.below(100)}` } : undefined;
  }

  queueWrite(): void {
    const id = EVENTS[this.below(EVENTS.length)]!;
    const kind = this.below(10);
    const label = `write #${this.ops.length} ${id} kind ${kind}`;
    if (kind <= 4) {
      // A put: a create or a change (sometimes of nothing).
      const next = this.nextRecord(id);
      const idem = this.idemTag();
      const promise = this.writes.write(id, (current) => {
        this.checkSeen(label, id, current);
        return next;
      }, idem === undefined ? {} : { idem });
      this.decidedFrom = this.refusal === undefined ? undefined : cloneState(this.queued);
      const put = this.expectPut(id, next, this.nextSeq, this.pending(id));
      if (put === undefined) return this.immediate(label, promise, true, showModel(this.queued.events.get(id)), (v) => showEvent(v as StoredEvent));
      this.applyPut(id, put);
      const answers = idem === undefined ? [] : [{ tag: idem, entry: { ...idem, atMs: this.clock, seq: put.event.seq, answer: { kind: 'event', view: viewJson(put.event.record), createdAt: put.event.record.created_at } } }];
      this.written(label, promise, [id], [put.event.seq], showModel(put.event), (v) => showEvent(v as StoredEvent), answers);
    } else if (kind <= 6) {
      const promise = this.writes.write(id, (current) => {
        this.checkSeen(label, id, current);
        return null;
      });
      this.decidedFrom = this.refusal === undefined ? undefined : cloneState(this.queued);
      if (!this.queued.events.has(id)) return this.immediate(label, promise, false, { type: TypeError, message: `a change deleted event ${id}, which does not exist` });
      this.applyDelete(id);
      this.written(label, promise, [id], [this.nextSeq], null, (v) => v);
    } else if (kind === 7) {
      const promise = this.writes.write(id, () => {
        throw new RangeError('refused by the change');
      });
      this.decidedFrom = this.refusal === undefined ? undefined : cloneState(this.queued);
      this.immediate(label, promise, false, { type: RangeError, message: 'refused by the change' });
    } else if (kind === 8) {
      const other = EVENTS[(EVENTS.indexOf(id) + 1) % EVENTS.length]!;
      const promise = this.writes.write(id, () => {
        return sampleRecord(EVENTS.indexOf(other) + 1);
      });
      this.decidedFrom = this.refusal === undefined ? undefined : cloneState(this.queued);
      this.immediate(label, promise, false, { type: TypeError, message: `a change to event ${id} returned event ${other}` });
    } else {
      const promise = this.writes.write(id, () => {
        return { ...sampleRecord(EVENTS.indexOf(id) + 1), category: 'bogus' as EventRecord['category'] };
      });
      this.decidedFrom = this.refusal === undefined ? undefined : cloneState(this.queued);
      this.immediate(label, promise, false, { type: TypeError, message: /^the store cannot log event .*: its category "bogus" is unknown$/ });
    }
  }


  queueRegistration(): void {
    // Mostly on three events, so rosters fill, waitlists form and check-ins repeat.
    const id = EVENTS[this.below(4) === 0 ? this.below(EVENTS.length) : this.below(3)]!;
    const kind = this.below(7);
    const label = `registration #${this.ops.length} ${id} kind ${kind}`;
    const list = this.queued.rosters.get(id) ?? [];
    const event = this.queued.events.get(id);
    const atMs = this.clock;
    const at = new Date(atMs).toISOString();
    const person = this.below(9);
    const regId = `reg_${String(this.below(12)).padStart(22, '0')}`;
    const existingId = list.length > 0 && this.below(4) !== 0 ? list[this.below(list.length)]!.id : regId;
    const idem = this.idemTag();
    const change = (seenEvent: StoredEvent | undefined, roster: RosterView) => {
      this.checkSeen(label, id, seenEvent);
      this.checkRoster(label, id, roster);
      if (kind <= 2) return { op: 'register' as const, registration: { id: regId, name: `Person ${person}`, email: person % 2 === 0 ? `p${person}@x.edu` : `P${person}@X.EDU` } };
      if (kind <= 4) return { op: 'cancel' as const, id: existingId };
      if (kind === 5) return { op: 'checkIn' as const, id: existingId };
      return undefined;
    };
    const promise = this.writes.changeRegistrations(id, change, idem === undefined ? {} : { idem });
    this.decidedFrom = this.refusal === undefined ? undefined : cloneState(this.queued);
    const show = (v: unknown): unknown => {
      const result = v as { event: StoredEvent | undefined; registration: Registration | undefined };
      return { event: showEvent(result.event), registration: result.registration === undefined ? undefined : { ...result.registration } };
    };
    const answer = (event: ModelEvent | undefined, registration: Registration | undefined): unknown => ({ event: showModel(event), registration });
    if (kind === 6) return this.immediate(label, promise, true, answer(event, undefined), show);
    if (event === undefined) return this.immediate(label, promise, false, { type: TypeError, message: `a change to the registrations of event ${id}, which does not exist` });
    const confirmed = list.filter((r) => r.status === 'confirmed').length;
    const capacity = event.record.capacity;
    const seq = this.nextSeq;
    const withCount = (count: number, at: number): ModelEvent => ({ record: { ...event.record, registered_count: count }, seq: at, modifiedMs: atMs });
    if (kind <= 2) {
      const email = person % 2 === 0 ? `p${person}@x.edu` : `P${person}@X.EDU`;
      if (list.some((r) => r.id === regId || r.email.toLowerCase() === email.toLowerCase())) {
        return this.immediate(label, promise, false, { type: TypeError, message: `registration ${regId} (${email}) is already on event ${id}` });
      }
      const status = confirmed < capacity ? 'confirmed' : 'waitlisted';
      const registration: Registration = { id: regId, name: `Person ${person}`, email, eventId: id, status, createdAt: at, checkedInAt: null, seq };
      const lineSeq = status === 'confirmed' ? seq + 1 : seq;
      const after = status === 'confirmed' ? withCount(confirmed + 1, lineSeq) : event;
      this.queued.rosters.set(id, [...list, registration]);
      this.queued.events.set(id, after);
      const answers = idem === undefined ? [] : [{ tag: idem, entry: { ...idem, atMs, seq: lineSeq, answer: { kind: 'registration', registration } } }];
      return this.written(label, promise, [id], [lineSeq], answer(after, registration), show, answers);
    }
    const target = list.find((r) => r.id === existingId);
    if (target === undefined) return this.immediate(label, promise, false, { type: TypeError, message: `registration ${existingId} is not on event ${id}` });
    if (kind <= 4) {
      const promoted = target.status === 'confirmed' ? list.filter((r) => r.status === 'waitlisted').slice(0, Math.max(0, capacity + 1 - confirmed)).map((r) => r.id) : [];
      const confirmedAfter = confirmed - (target.status === 'confirmed' ? 1 : 0) + promoted.length;
      const after = confirmedAfter === confirmed ? event : withCount(confirmedAfter, seq);
      this.queued.rosters.set(id, list.filter((r) => r.id !== target.id).map((r) => (promoted.includes(r.id) ? { ...r, status: 'confirmed' } : r)));
      this.queued.events.set(id, after);
      return this.written(label, promise, [id], [seq], answer(after, target), show);
    }
    if (target.status !== 'confirmed') return this.immediate(label, promise, false, { type: TypeError, message: `registration ${target.id} is waitlisted: it cannot be checked in` });
    if (target.checkedInAt !== null) return this.immediate(label, promise, true, answer(event, target), show);
    const checked: Registration = { ...target, checkedInAt: at };
    this.queued.rosters.set(id, list.map((r) => (r.id === target.id ? checked : r)));
    this.written(label, promise, [id], [seq], answer(event, checked), show);
  }

  queueGroup(): void {
    const label = `group #${this.ops.length}`;
    const count = this.below(3);
    const picks = Array.from({ length: count }, () => EVENTS[this.below(EVENTS.length)]!);
    const plan = {
      events: picks.map((id) => ({ id, record: this.below(4) === 0 ? null : this.nextRecord(id) })),
      documents: Array.from({ length: this.below(3) }, () => {
        const roll = this.below(8);
        return { collection: COLLECTIONS[this.below(2)]!, id: `d${1 + this.below(3)}`, json: roll === 0 ? null : roll === 1 ? 'not json' : `{"v":${this.below(4)}}` };
      }),
    };
    const promise = this.writes.writeGroup((view) => {
      for (const id of EVENTS) {
        this.checkSeen(label, id, view.event(id));
        this.checkRoster(label, id, view.roster(id));
      }
      for (const c of COLLECTIONS) {
        for (const d of ['d1', 'd2', 'd3']) {
          const seen = view.document(c, d);
          const model = this.queued.documents.get(documentKey(c, d));
          if (!isDeepStrictEqual(seen === undefined ? undefined : { ...seen }, model)) this.problem(`${label}: the change saw document ${c}/${d} as ${JSON.stringify(seen)}`);
        }
      }
      return plan;
    });
    this.decidedFrom = this.refusal === undefined ? undefined : cloneState(this.queued);
    // The model of the whole group, on a copy of the queued state: any refusal leaves it as it was.
    const before = cloneState(this.queued);
    let seq = this.nextSeq;
    const seqs: number[] = [];
    const ids: string[] = [];
    const events = new Map<string, unknown>();
    const documents = new Map<string, unknown>();
    const pendingBefore = new Map(EVENTS.map((id) => [id, this.pending(id)]));
    const seen = new Set<string>();
    const refuse = (message: string): void => {
      this.queued = before;
      this.immediate(label, promise, false, { type: TypeError, message });
    };
    for (const { id, record } of plan.events) {
      if (seen.has(id)) return refuse(`a group write changes event ${id} twice`);
      seen.add(id);
      if (record === null) {
        if (!this.queued.events.has(id)) return refuse(`a group write deleted event ${id}, which does not exist`);
        this.applyDelete(id);
        events.set(id, null);
        ids.push(id);
        seqs.push(seq++);
        continue;
      }
      const put = this.expectPut(id, record, seq, pendingBefore.get(id)!);
      if (put === undefined) continue;
      this.applyPut(id, put);
      events.set(id, showModel(put.event));
      ids.push(id);
      seqs.push(seq++);
    }
    for (const { collection, id, json } of plan.documents) {
      const key = documentKey(collection, id);
      if (seen.has(key)) return refuse(`a group write changes document ${id} twice`);
      seen.add(key);
      if (json === 'not json') return refuse(`document ${id} must be a JSON object`);
      if (json === null) this.queued.documents.delete(key);
      else this.queued.documents.set(key, { collection, id, json, seq });
      documents.set(id, json === null ? null : { collection, id, json, seq });
      seqs.push(seq++);
    }
    const show = (v: unknown): unknown => {
      const result = v as { events: Map<string, StoredEvent | null>; documents: Map<string, { collection: string; id: string; json: string; seq: number } | null> };
      return { events: new Map([...result.events].map(([id, e]) => [id, showEvent(e)])), documents: new Map([...result.documents].map(([id, d]) => [id, d === null ? null : { ...d }])) };
    };
    if (seqs.length === 0) return this.immediate(label, promise, true, { events, documents }, show);
    this.written(label, promise, ids, seqs, { events, documents }, show);
  }

  // ---- the disk and the queue's controls ----

  diskOk(): void {
    const disk = this.disk!;
    const batch = this.inflight!;
    this.disk = undefined;
    this.inflight = undefined;
    for (const op of batch) {
      op.state = 'committed';
      this.committed = op.after;
      for (const answer of op.answers) this.answers.set(`${answer.tag.keyId} ${answer.tag.key}`, answer);
      for (const record of op.records ?? []) {
        applyRecord(this.replay, record, this.clock);
        this.lastSeq = Math.max(this.lastSeq, record.seq);
      }
    }
    this.expectCommitted.push(batch.length);
    // A batch in flight when writes were refused from outside still lands: with nothing else queued, what later
    // changes are decided on.
    if (this.unsent.length === 0) this.queued = cloneState(this.committed);
    if (this.unsent.length === 0 || this.paused) this.endRun();
    disk.resolve();
  }

  readonly expectCommitted: number[] = [];

  diskFail(): void {
    const disk = this.disk!;
    const batch = this.inflight!;
    this.disk = undefined;
    this.inflight = undefined;
    // Each kind of failure in turn, so every run sees them all.
    const choice = diskFailures++ % 6;
    const eio = Object.assign(new Error('EIO'), { code: 'EIO' });
    const errors: [unknown, string, boolean][] = [
      [Object.assign(new Error('full'), { code: 'ENOSPC' }), 'ENOSPC: no space left on the disk', false],
      [Object.assign(new Error('quota'), { code: 'EDQUOT' }), 'EDQUOT: disk quota exceeded', false],
      [Object.assign(new Error('big'), { code: 'EFBIG' }), 'EFBIG: the log reached the largest file size allowed', false],
      [Object.assign(new Error('ro'), { code: 'EROFS' }), 'EROFS: the file system is read-only', false],
      [Object.assign(new Error('denied'), { code: 'EACCES' }), 'EACCES', false],
      [new UncertainWriteError(eio, new Error('truncate failed')), 'EIO: input/output error on the disk', true],
    ];
    const [error, reason, uncertain] = errors[choice]!;
    const message = uncertain
      ? `The store cannot write (${reason}), and undoing a failed write failed too: whether the last writes were saved is uncertain until the server is restarted. Writes are refused until then.`
      : `The store cannot write (${reason}); nothing of this request was saved. Writes are refused until the server is restarted.`;
    this.failAll([...batch, ...this.unsent], message);
    this.endRun();
    disk.reject(error);
  }

  failAll(ops: Written[], message: string): void {
    for (const op of ops) {
      op.state = 'failed';
      op.failMessage = message;
    }
    this.unsent = [];
    this.refusal = message;
    this.failed = true;
    this.queued = cloneState(this.committed);
  }

  failFromOutside(): void {
    const message = 'The store cannot write (an unexpected write error); nothing of this request was saved. Writes are refused until the server is restarted.';
    this.failAll(this.unsent, message);
    this.writes.fail(new Error('compaction swap failed'));
    if (this.run === undefined) this.wake();
  }

  close(): void {
    this.refusal ??= 'The server is shutting down; nothing of this request was saved. Retry in a moment.';
    const done = { done: false };
    void this.writes.close().then(() => (done.done = true));
    this.drains.push({ promise: done, expected: this.run === undefined && this.unsent.length === 0 });
  }

  drain(): void {
    const done = { done: false };
    void this.writes.drain().then(() => (done.done = true));
    this.drains.push({ promise: done, expected: this.run === undefined && this.unsent.length === 0 });
  }

  pause(): void {
    this.paused = true;
    const done = { done: false };
    void this.writes.pause().then(() => (done.done = true));
    // A run still gathering its turn stops at once, writing nothing.
    if (this.run !== undefined && this.inflight === undefined) {
      this.run.ended = true;
      this.run = undefined;
    }
    this.pauses.push({ promise: done, run: this.run });
  }

  resume(): void {
    this.paused = false;
    this.writes.resume();
    if (this.unsent.length > 0) this.kick();
  }

  /** Everything the queue shows now against the model, after a turn of the event loop. */
  check(where: string): void {
    assert.deepEqual(this.problems, [], where);
    assert.deepEqual(showViews(this.index, this.rosters, (c, id) => this.writes.document(c, id), (c) => this.writes.documents(c)), showState(this.committed), `${where}: the committed state`);
    assert.deepEqual(showViews(this.replay.index, this.replay.rosters, (c, id) => this.replay.documents.get(c, id), (c) => this.replay.documents.list(c)), showState(this.committed), `${where}: the durable lines read back`);
    assert.equal(this.writes.nextSeq, this.nextSeq, `${where}: nextSeq`);
    assert.equal(this.writes.writable, this.refusal === undefined, `${where}: writable`);
    assert.equal(this.disk !== undefined, this.run !== undefined, `${where}: a batch is in flight exactly while a run is`);
    for (const entry of this.immediates.splice(0)) {
      assert.ok(entry.settled !== undefined, `${where}: ${entry.label} settles at once`);
      assert.equal(entry.settled.ok, entry.ok, `${where}: ${entry.label}: ${String(entry.settled.value)}`);
      if (entry.ok) assert.deepEqual(entry.show(entry.settled.value), entry.expected, `${where}: ${entry.label}`);
      else assertError(entry.settled.value, entry.expected as { type: new (...args: never[]) => Error; message: string | RegExp }, `${where}: ${entry.label}`);
    }
    let lastOrder = -1;
    for (const op of this.ops) {
      const settled = op.settled;
      if (op.state === 'committed') {
        assert.ok(settled?.ok === true, `${where}: ${op.label} resolves once durable (${String(settled?.value)})`);
        assert.deepEqual(op.show(settled.value), op.expected, `${where}: ${op.label}: its answer`);
        assert.ok(settled.order > lastOrder, `${where}: ${op.label} answered in order`);
        lastOrder = settled.order;
      } else if (op.state === 'failed') {
        assert.ok(settled?.ok === false, `${where}: ${op.label} is refused`);
        assertError(settled.value, { type: StoreUnavailable, message: op.failMessage! }, `${where}: ${op.label}`);
      } else assert.equal(settled, undefined, `${where}: ${op.label} waits for its batch`);
    }
    if (!this.without.has('idempotency')) this.checkAnswers(where);
    else assert.equal(this.idempotency.size, 0, `${where}: a table the queue was not given`);
    if (!this.without.has('changes')) this.checkChanges(where);
    else assert.equal(this.listened + this.changes.lastSeq, 0, `${where}: a change log the queue was not given`);
    assert.equal(this.commits, this.without.has('onCommit') ? 0 : this.expectCommitted.length, `${where}: onCommit once per durable batch`);
    if (this.history?.listened === true) assert.deepEqual(this.heard.map(showChange), this.replayHeard.map(showChange), `${where}: the history heard`);
    for (const drain of this.drains) assert.equal(drain.promise.done, drain.expected, `${where}: drain resolves exactly when the queue is idle`);
    for (const pause of this.pauses) assert.equal(pause.promise.done, pause.run === undefined || pause.run.ended, `${where}: pause resolves once the batch in flight is done`);
  }

  checkAnswers(where: string): void {
    for (const [key, answer] of this.answers) {
      assert.deepEqual(this.idempotency.find(answer.tag.keyId, answer.tag.key, this.clock), answer.entry, `${where}: the answer remembered for ${key}`);
    }
    assert.equal(this.idempotency.size, this.answers.size, `${where}: answers remembered only once durable`);
  }

  checkChanges(where: string): void {
    const page = (log: ChangeLog, since: number): string[] => log.after(since, 10_000).changes.map((c) => `${c.seq} ${c.id} ${c.event === null ? 'deleted' : c.event.seq}`);
    assert.deepEqual(page(this.changes, 0), page(this.replay.changes, 0), `${where}: the change feed`);
    assert.deepEqual(page(this.changes, 1), page(this.replay.changes, 1), `${where}: the change feed with deletions`);
    assert.equal(this.changes.lastSeq, this.lastSeq, `${where}: the newest durable seq`);
    assert.equal(this.listened, this.expectCommitted.length, `${where}: change listeners once per durable batch`);
  }
}

/** A record as plain data: what the queue tells listeners must equal what its line reads back as. */
function showRecord(record: LogRecord): unknown {
  if (record.op === 'put') return { ...record, stored: showEvent(record.stored) };
  if (record.op === 'reg' || record.op === 'regstate') return { ...record, registration: { ...record.registration } };
  return { ...record };
}

function showChange(change: CommittedChange): unknown {
  return { record: showRecord(change.record), before: showEvent(change.before), after: showEvent(change.after), touched: change.touched.map((r) => ({ ...r })), atMs: change.atMs };
}

function assertError(error: unknown, expected: { type: new (...args: never[]) => Error; message: string | RegExp }, where: string): void {
  assert.ok(error instanceof expected.type, `${where}: ${String(error)} is not a ${expected.type.name}`);
  if (typeof expected.message === 'string') assert.equal(error.message, expected.message, where);
  else assert.match(error.message, expected.message, where);
}

function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

let diskFailures = 0;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function round(seed: number, steps: number): Promise<void> {
  const h = new Harness(seed);
  // Most rounds end in a failure or a close, late enough for many batches to have gone through first.
  let failAt = h.below(4) === 0 ? steps : Math.floor(steps / 3) + h.below(Math.ceil((steps * 2) / 3));
  const failure = h.below(4);
  for (let step = 0; step < Math.min(steps, failAt + 6); step++) {
    const where = `WRITE_QUEUE_SEED=${SEED}, round seed ${seed}, step ${step}`;
    h.clock += h.below(3) * 1000 + h.below(7);
    const roll = h.below(100);
    // A failed batch needs a batch in flight: wait for one.
    if (step === failAt && failure <= 1 && h.disk === undefined) failAt++;
    if (step === failAt) {
      if (failure <= 1 && h.disk !== undefined) h.diskFail();
      else if (failure <= 2) h.failFromOutside();
      else h.close();
    } else if (roll < 40) {
      for (let k = h.below(4); k >= 0; k--) {
        const kind = h.below(10);
        if (kind < 4) h.queueWrite();
        else if (kind < 8) h.queueRegistration();
        else h.queueGroup();
      }
      if (h.below(12) === 0) h.pause();
    } else if (roll < 45 && h.refusal === undefined && h.run === undefined && !h.paused) {
      // Two writes a microtask apart: one batch when the queue gathers a turn, two when it does not.
      const a = h.ops.length;
      h.queueWrite();
      const wroteA = h.ops.length > a;
      await null;
      const b = h.ops.length;
      h.queueWrite();
      const opB = h.ops[b];
      await turn();
      if (wroteA && opB !== undefined && h.maxBatchChars === undefined) {
        assert.equal(opB.state === 'inflight', h.gatherTurn, `${where}: writes read in one turn go out together only when the queue gathers a turn`);
      }
    } else if (roll < 80) {
      if (h.disk !== undefined) h.diskOk();
    } else if (roll < 85) {
      if (!h.paused) h.pause();
    } else if (roll < 93) {
      if (h.paused) h.resume();
    } else {
      h.drain();
    }
    await turn();
    h.check(where);
  }
  // The end: resume, and let every batch through.
  if (h.paused) h.resume();
  await turn();
  for (let guard = 0; h.disk !== undefined && guard < 1000; guard++) {
    h.diskOk();
    await turn();
  }
  h.check(`WRITE_QUEUE_SEED=${SEED}, round seed ${seed}, the end`);
  assert.equal(h.unsent.length, 0);
}

test(`WriteQueue answers as the plain model of its events, rosters and documents does, batch by batch (WRITE_QUEUE_SEED=${SEED})`, async () => {
  const random = mulberry32(SEED);
  for (let r = 0; r < 20; r++) await round(Math.floor(random() * 2 ** 31), 60);
});
