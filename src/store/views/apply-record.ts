// Applies records another instance committed to this instance's views, as the writer that made them did to its own.
import { withRegisteredCount } from './served-event.js';
import type { StoredEvent } from '../../events/event.js';
import { publicChange, type ChangeLog } from './change-log.js';
import type { EventIndex } from './event-index.js';
import type { IdempotencyTable } from './idempotency-table.js';
import { rememberAnswer } from './remember-answer.js';
import type { LogRecord, MetaRecord } from '../records/jsonl-record.js';
import type { RosterTable } from './roster-table.js';
import type { DocumentTable } from './document-table.js';
import { eventIdOf, isEventRecord, touchedBy, type ChangeHistory } from './change-history.js';

/** The in-memory views both engines feed. */
export interface Views {
  index: EventIndex;
  rosters: RosterTable;
  changes: ChangeLog;
  idempotency: IdempotencyTable;
  documents: DocumentTable;
  /** Told of each event record applied, with its context, while someone listens (webhooks). */
  history?: ChangeHistory | undefined;
}

/** What applying records needs of the event index: the EventIndex, or a plain map while a start-up replays (see EventMap). */
export interface IndexWrites {
  get(id: string): StoredEvent | undefined;
  put(stored: StoredEvent): void;
  delete(id: string): boolean;
  /** Every live event in the order of its latest seq. */
  values(): IterableIterator<StoredEvent>;
  readonly size: number;
}

/** The views applyRecord changes: as Views, with any IndexWrites for the index. */
export type AppliedViews = Omit<Views, 'index'> & { index: IndexWrites };

/**
 * Applies one committed record: the index, the rosters, the change log and the remembered answers end as the
 * write queue's commit leaves them (a registration that changes the count gives the event the record's seq and time).
 */
export function applyRecord(views: AppliedViews, record: LogRecord | MetaRecord, nowMs: number): void {
  const { history } = views;
  if (history?.listened !== true || !isEventRecord(record)) {
    applyToViews(views, record, nowMs);
    // A series' own line makes no message, but a webhook waiting at the log's end moves past it (else it is never caught up).
    if (history?.listened === true && (record.op === 'doc' || record.op === 'docdel')) history.committed([]);
    return;
  }
  // With its context, as the writer's queue told its own listeners: the event before and after, the registrations touched.
  const id = eventIdOf(record);
  const before = views.index.get(id);
  const touched = touchedBy(record, views.rosters.get(id));
  applyToViews(views, record, nowMs);
  const now = views.index.get(id);
  // A put leaves its own event in the index, a deletion none; a registration line a new state only when the count moved.
  const after = record.op === 'del' ? null : now !== before ? now : undefined;
  history.committed([{ record, before, after, touched, atMs: nowMs }]);
}

function applyToViews(views: AppliedViews, record: LogRecord | MetaRecord, nowMs: number): void {
  switch (record.op) {
    case 'put': {
      // The change feed shows the public view (API.md §14): a draft's changes are nobody else's.
      const before = views.index.get(record.stored.id);
      views.index.put(record.stored);
      views.rosters.apply(record);
      const { hiddenAt } = record.stored;
      // A draft once public, met with no state before it (a compacted log): its tombstone where its line says.
      if (before === undefined && hiddenAt !== undefined) views.changes.hiddenAt(hiddenAt, record.stored.id);
      views.changes.committed(record.seq, record.stored.id, publicChange(before, record.stored));
      rememberAnswer(views.idempotency, record, nowMs);
      return;
    }
    case 'del': {
      const before = views.index.get(record.id);
      // A draft's deletion is nobody else's; an unknown event's, a deletion as ever.
      views.changes.committed(record.seq, record.id, before === undefined ? null : publicChange(before, null));
      views.index.delete(record.id);
      views.rosters.apply(record);
      return;
    }
    case 'regstate':
      // A compacted log (migrated from a data folder): the event's own line says its count.
      views.rosters.apply(record);
      views.changes.committed(record.seq, record.registration.eventId, undefined);
      return;
    case 'mark':
      views.changes.markDropped(record.gone);
      return;
    case 'idem':
      views.idempotency.remember(record.entry, nowMs);
      return;
    case 'doc':
    case 'docstate':
    case 'docdel':
      views.documents.apply(record);
      if (record.op === 'doc') rememberAnswer(views.idempotency, record, nowMs);
      // Not a change-feed entry, but the newest durable write as the writer counts it: its next_since may name this seq.
      views.changes.committed(record.seq, record.op === 'docdel' ? record.id : record.document.id, undefined);
      return;
    case 'checkin':
      // A check-in never changes the count: the event stays as it was.
      views.rosters.apply(record);
      views.changes.committed(record.seq, record.eventId, undefined);
      return;
    case 'reg':
    case 'cancel': {
      const eventId = record.op === 'reg' ? record.registration.eventId : record.eventId;
      const before = views.rosters.get(eventId).confirmed;
      views.rosters.apply(record);
      rememberAnswer(views.idempotency, record, nowMs);
      const after = views.rosters.get(eventId).confirmed;
      const event = views.index.get(eventId);
      let state: StoredEvent | undefined;
      if (after !== before && event !== undefined) {
        state = withRegisteredCount(event, after, record.seq, record.op === 'reg' ? Date.parse(record.registration.createdAt) : record.atMs);
        views.index.put(state);
      }
      views.changes.committed(record.seq, eventId, state);
      return;
    }
    default: {
      const unknown: never = record;
      throw new Error(`cannot apply the record ${JSON.stringify(unknown)}`);
    }
  }
}
