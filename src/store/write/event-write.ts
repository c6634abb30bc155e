// A change to one event planned against the latest queued state: the event after it, its line, and the waitlisted
// registrations a raised capacity confirms in the same line. The write queue queues what is planned here.
import { isHidden, isHiddenStatus, viewJson } from '../../events/event.js';
import type { EventRecord, StoredEvent } from '../../events/event.js';
import type { EventChange, WriteOptions } from '../event-store.js';
import { encodeDelete, encodeStored } from '../records/encode-record.js';
import type { LogRecord } from '../records/jsonl-record.js';
import { unloggableReason } from '../records/record-checks.js';
import type { QueuedState } from './pending-changes.js';
import { emptyRoster } from '../views/roster.js';
import { toStored } from '../views/served-event.js';

/** A write planned for one event: the event after it (null: deleted), its line and record, and the registrations it confirms. */
export interface PlannedEventWrite {
  readonly state: StoredEvent | null;
  readonly line: string;
  readonly record: LogRecord;
  readonly promoted: string[];
}

/** A planned put: the event after it is never null. */
export interface PlannedPut extends PlannedEventWrite {
  readonly state: StoredEvent;
}

/**
 * The write of `change` to event `id`, now `current` in the latest queued state, at `seq` (see EventStore.write);
 * undefined when it changes nothing of a committed event. Throws when the change throws or is refused.
 */
export function planEventWrite(id: string, current: StoredEvent | undefined, change: EventChange, seq: number, queued: QueuedState, options: WriteOptions): PlannedEventWrite | undefined {
  const next = change(current);
  if (next === null) {
    if (current === undefined) throw new TypeError(`a change deleted event ${id}, which does not exist`);
    const atMs = queued.now();
    return { state: null, line: encodeDelete(seq, id, atMs), record: { seq, op: 'del', id, atMs }, promoted: [] };
  }
  return planPut(id, current, next, seq, queued, options);
}

/** The put of `next` over `current` at `seq`, its count set from the roster; undefined when it would change nothing of a committed event. */
export function planPut(id: string, current: StoredEvent | undefined, next: EventRecord, seq: number, queued: QueuedState, options: WriteOptions): PlannedPut | undefined {
  if (next.id !== id) throw new TypeError(`a change to event ${id} returned event ${next.id}`);
  const roster = current === undefined ? emptyRoster() : queued.roster(id);
  const promoted = roster.nextToConfirm(next.capacity);
  // The roster is the truth of registered_count: the confirmed ones, and those a raised capacity confirms now.
  const record_ = { ...next, registered_count: roster.confirmed + promoted.length };
  const unloggable = unloggableReason(record_);
  if (unloggable !== undefined) throw new TypeError(`the store cannot log event ${id}: ${unloggable}`);
  const view = viewJson(record_);
  if (!queued.isQueued(id) && current !== undefined && view === current.json && record_.created_at === current.createdAt) return undefined;
  const state = toStored(record_, seq, view, queued.now(), hiddenAtAfter(current, record_, seq));
  const line = encodeStored(state, promoted, options.idem);
  const record: LogRecord = promoted.length === 0 ? { seq, op: 'put', stored: state } : { seq, op: 'put', stored: state, promoted };
  if (options.idem !== undefined) record.idem = options.idem;
  return { state, line, record, promoted };
}

/**
 * When the change feed's tombstone of `next` lies, if it is a draft or pending event that was public before (see
 * StoredEvent.hiddenAt): this write's seq when it takes a public event out of view, else where it already was.
 */
function hiddenAtAfter(current: StoredEvent | undefined, next: EventRecord, seq: number): number | undefined {
  if (!isHiddenStatus(next.status) || current === undefined) return undefined;
  return isHidden(current) ? current.hiddenAt : seq;
}
