// Every durable line as a change with its context (the event before and after, the registrations it touched): what webhooks derive their messages from.
import { withRegisteredCount } from './served-event.js';
import type { StoredEvent } from '../../events/event.js';
import type { LogRecord, MetaRecord } from '../records/jsonl-record.js';
import type { Registration, RosterView } from './roster.js';
import { RosterTable } from './roster-table.js';

/** One durable log line, with what a reader needs to say what it did. */
export interface CommittedChange {
  readonly record: LogRecord;
  /** The event before the line (undefined: it did not exist). */
  readonly before: StoredEvent | undefined;
  /** The event after it: null when deleted, undefined when the line left it as it was. */
  readonly after: StoredEvent | null | undefined;
  /** The registrations the line cancelled, checked in or confirmed from the waitlist, as they stood before it. */
  readonly touched: readonly Registration[];
  /** When the line was committed (or read back), ms since the epoch: the time of a deletion, which its line does not hold. */
  readonly atMs: number;
}

/** What a read of the history after a position found. */
export interface HistoryRead {
  /** The changes after the position, in seq order, up to the last durable line when the read began. */
  changes: CommittedChange[];
  /** The newest seq that a compaction may have dropped or rewritten (0: none): changes at or before it are not exact. */
  compactedThrough: number;
}

/** What the webhooks ask of a store: each durable batch as it commits, and the durable history after a position. */
export interface ChangeHistorySource {
  /** Calls `listener` with each durable batch's changes, after its fsync, in seq order; returns the unsubscribe. */
  subscribe(listener: (changes: readonly CommittedChange[]) => void): () => void;
  /** Reads the durable changes after `since` back from storage (the file's log; nothing for the memory store), at most `limit`. */
  readAfter(since: number, limit?: number): Promise<HistoryRead>;
  /** Calls `listener` with the last seq a compaction rewrote, as it swaps the log in; returns the unsubscribe. */
  onCompacted(listener: (throughSeq: number) => void): () => void;
  /**
   * Registers `hold`, asked before each compaction (a checkpoint on PostgreSQL) the store would start by itself: what
   * it returns holds that one back (a reader still needs the lines it would rewrite). `settle`, when given, is awaited
   * by a file store's compaction before the rewritten log becomes durable: it resolves once the reader no longer needs
   * the lines through `throughSeq` as they were (its position is saved past them), and rejects to call it off.
   * `forced`: the compaction was asked for by hand, past the holds (what a reader then misses is a gap it reports).
   */
  holdCompaction(hold: () => CompactionHold | undefined, settle?: (throughSeq: number, forced: boolean) => Promise<void>): CompactionHoldHandle;
}

/** A reader (a webhook) is still behind what a compaction rewrote when it must settle: the compaction is called off. */
export class ReaderBehind extends Error {
  override readonly name = 'ReaderBehind';

  /** `stopping`: the reader is stopping (a shutdown), not behind. */
  constructor(message: string, readonly stopping = false) {
    super(message);
  }
}

/** Why a compaction must wait; `lasting` when that may go on for hours (worth a warning), not for a reader seconds behind. */
export interface CompactionHold {
  reason: string;
  lasting: boolean;
}

/** A hold registered with ChangeHistorySource.holdCompaction. */
export interface CompactionHoldHandle {
  release(): void;
  /** The hold may have lifted (a reader caught up): the store looks again whether a compaction is due. */
  recheck(): void;
}

/** The ids of the registrations a line touches, looked up in the roster before it. */
export function touchedBy(record: LogRecord, roster: RosterView): Registration[] {
  const ids = record.op === 'cancel' ? [record.id, ...record.promoted] : record.op === 'checkin' ? [record.id] : record.op === 'put' ? (record.promoted ?? []) : [];
  const found: Registration[] = [];
  for (const id of ids) {
    const registration = roster.get(id);
    if (registration !== undefined) found.push(registration);
  }
  return found;
}

/** True for a record about an event (what webhooks derive messages from); false for marks, remembered answers and documents. */
export function isEventRecord(record: LogRecord | MetaRecord): record is LogRecord {
  return record.op === 'put' || record.op === 'del' || record.op === 'reg' || record.op === 'cancel' || record.op === 'checkin' || record.op === 'regstate';
}

/** The event a record is about. */
export function eventIdOf(record: LogRecord): string {
  return record.op === 'put' ? record.stored.id : record.op === 'del' ? record.id : record.op === 'reg' || record.op === 'regstate' ? record.registration.eventId : record.eventId;
}

/**
 * The state a history read rebuilds as it walks the log from its start (events and rosters), so each line after the
 * position comes with the event before and after it, as the write queue saw them when it committed the line.
 */
export class HistoryShadow {
  readonly #events = new Map<string, StoredEvent>();
  readonly #rosters = new RosterTable();

  /** Applies one line; returns it as a change. */
  apply(record: LogRecord, atMs: number): CommittedChange {
    const id = eventIdOf(record);
    const before = this.#events.get(id);
    const roster = this.#rosters.get(id);
    const touched = touchedBy(record, roster);
    const confirmedBefore = roster.confirmed;
    this.#rosters.apply(record);
    let after: StoredEvent | null | undefined;
    if (record.op === 'put') after = record.stored;
    else if (record.op === 'del') after = null;
    else if ((record.op === 'reg' || record.op === 'cancel') && before !== undefined) {
      // Only these move the count (a check-in never does; a registration state is a compacted line, with its event's own).
      const confirmed = this.#rosters.get(id).confirmed;
      if (confirmed !== confirmedBefore) after = withRegisteredCount(before, confirmed, record.seq, record.op === 'reg' ? Date.parse(record.registration.createdAt) : record.atMs);
    }
    if (after === null) this.#events.delete(id);
    else if (after !== undefined) this.#events.set(id, after);
    return { record, before, after, touched, atMs };
  }
}

/**
 * A history read as it walks the records from the log's start (either engine's): the changes after `since`, at most
 * `limit`, and how far a compaction rewrote history (its mark and registration-state records say so).
 */
export class HistoryWalk {
  readonly #shadow = new HistoryShadow();
  readonly #changes: CommittedChange[] = [];
  #compactedThrough = 0;
  readonly #since: number;
  readonly #limit: number;
  readonly #nowMs: number;

  constructor(since: number, limit: number, nowMs: number) {
    this.#since = since;
    this.#limit = limit;
    this.#nowMs = nowMs;
  }

  /** Takes the next record; false once the read has what it asked for. */
  take(record: LogRecord | MetaRecord): boolean {
    // Documents (series) are no webhook message: their occurrences' own lines are.
    if (record.op === 'idem' || record.op === 'docdel' || 'document' in record) return true;
    if (record.op === 'mark' || record.op === 'regstate') this.#compactedThrough = Math.max(this.#compactedThrough, record.seq);
    if (record.op === 'mark') return true;
    const change = this.#shadow.apply(record, this.#nowMs);
    if (record.seq > this.#since) this.#changes.push(change);
    return this.#changes.length < this.#limit;
  }

  /** A compaction rewrote history through `seq` (known without walking its records). */
  compacted(seq: number): void {
    this.#compactedThrough = Math.max(this.#compactedThrough, seq);
  }

  get result(): HistoryRead {
    return { changes: this.#changes, compactedThrough: this.#compactedThrough };
  }
}

/** How often a lasting compaction hold is warned of again while it lasts. */
const WARN_AGAIN_MS = 24 * 60 * 60 * 1000;

/** Holds the listeners of a store's history and hands each durable batch to them. */
export class ChangeHistory {
  readonly #listeners = new Set<(changes: readonly CommittedChange[]) => void>();
  readonly #compactionListeners = new Set<(throughSeq: number) => void>();
  readonly #holds = new Set<() => CompactionHold | undefined>();
  readonly #settles = new Set<(throughSeq: number, forced: boolean) => Promise<void>>();
  readonly #rechecks = new Set<() => void>();
  /** The lasting hold's reason last warned of, and when (performance.now()). */
  #warned: string | undefined;
  #warnedAt = 0;

  /** True when someone listens: the write queue gathers changes only then. */
  get listened(): boolean {
    return this.#listeners.size > 0;
  }

  subscribe(listener: (changes: readonly CommittedChange[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  onCompacted(listener: (throughSeq: number) => void): () => void {
    this.#compactionListeners.add(listener);
    return () => this.#compactionListeners.delete(listener);
  }

  holdCompaction(hold: () => CompactionHold | undefined, settle?: (throughSeq: number, forced: boolean) => Promise<void>): CompactionHoldHandle {
    this.#holds.add(hold);
    if (settle !== undefined) this.#settles.add(settle);
    return {
      release: () => {
        this.#holds.delete(hold);
        if (settle !== undefined) this.#settles.delete(settle);
      },
      recheck: () => {
        for (const listener of [...this.#rechecks]) listener();
      },
    };
  }

  /** Resolves once every reader has settled for a compaction through `throughSeq` (see holdCompaction); rejects when one cannot. */
  async settleCompaction(throughSeq: number, forced: boolean): Promise<void> {
    await Promise.all([...this.#settles].map((settle) => settle(throughSeq, forced)));
  }

  /** Calls `listener` when a hold may have lifted (the store's own: see CompactionHoldHandle.recheck); returns the unsubscribe. */
  onCompactionRecheck(listener: () => void): () => void {
    this.#rechecks.add(listener);
    return () => this.#rechecks.delete(listener);
  }

  /**
   * What holds a compaction the store would start now back (a lasting hold first), or undefined when nothing does;
   * `warn` hears a lasting hold's reason when it begins, and again each day it lasts (a webhook left failing for
   * months grows the log all that time, and a warning a year old is in no one's view), until another reason (or
   * none) takes its place. `nowMs` is on a clock that never steps.
   */
  compactionHeld(warn: (reason: string) => void, nowMs: number = performance.now()): CompactionHold | undefined {
    let held: CompactionHold | undefined;
    for (const hold of this.#holds) {
      const each = hold();
      if (each?.lasting === true) {
        held = each;
        break;
      }
      held ??= each;
    }
    const lasting = held?.lasting === true ? held.reason : undefined;
    if (lasting !== undefined && (lasting !== this.#warned || nowMs - this.#warnedAt >= WARN_AGAIN_MS)) {
      warn(lasting);
      this.#warnedAt = nowMs;
    }
    this.#warned = lasting;
    return held;
  }

  /** A durable batch committed. */
  committed(changes: readonly CommittedChange[]): void {
    for (const listener of [...this.#listeners]) listener(changes);
  }

  /** A compaction swapped in a log rewritten through `throughSeq`. */
  compacted(throughSeq: number): void {
    for (const listener of [...this.#compactionListeners]) listener(throughSeq);
  }
}
