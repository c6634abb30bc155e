// Memory after disk: what a durable batch of the write queue does to the views (the index, rosters, documents, the
// change log, the remembered answers, webhooks' history), change by change in log order; then its writers hear back.
import type { StoredEvent } from '../../events/event.js';
import type { LogRecord } from '../records/jsonl-record.js';
import { touchedBy, type ChangeHistory, type CommittedChange } from '../views/change-history.js';
import { publicChange, type ChangeLog } from '../views/change-log.js';
import type { DocumentTable } from '../views/document-table.js';
import type { EventIndex } from '../views/event-index.js';
import type { DocumentMember } from './group-write.js';
import type { IdempotencyTable } from '../views/idempotency-table.js';
import type { PendingChanges } from './pending-changes.js';
import { rememberAnswer } from '../views/remember-answer.js';
import type { RosterTable } from '../views/roster-table.js';

/** A change to one event inside a queued write. */
export interface EventMember {
  /** The event the change is to. */
  readonly id: string;
  /** The event after the change: null when deleted, undefined when the change leaves it as it was. */
  readonly state: StoredEvent | null | undefined;
  /** What the line says, applied to the committed rosters once it is durable. */
  readonly record: LogRecord;
}

/** One queued write: a single change, or a group. */
export interface QueuedChange {
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

/** The views a durable batch changes, and the queued state it settles. */
export interface CommitTargets {
  readonly index: EventIndex;
  readonly rosters: RosterTable;
  readonly documents: DocumentTable;
  readonly changes: ChangeLog | undefined;
  readonly idempotency: IdempotencyTable | undefined;
  readonly history: ChangeHistory | undefined;
  /** The clock, ms since the epoch. */
  readonly now: () => number;
  readonly pending: PendingChanges<QueuedChange>;
}

/** Applies `batch`, now durable, to the views (the index changes only now), then tells its writers. */
export function commitBatch(batch: readonly QueuedChange[], targets: CommitTargets): void {
  const history: CommittedChange[] | undefined = targets.history?.listened === true ? [] : undefined;
  const atMs = targets.now();
  for (const entry of batch) {
    for (const member of entry.members) {
      if (history !== undefined) {
        history.push({ record: member.record, before: targets.index.get(member.id), after: member.state, touched: touchedBy(member.record, targets.rosters.get(member.id)), atMs });
      }
      commitMember(entry, member, targets);
    }
    for (const member of entry.documents) {
      targets.documents.set(member.collection, member.id, member.document);
      if (targets.idempotency !== undefined && member.record !== undefined) rememberAnswer(targets.idempotency, member.record, targets.now());
      // Not a change-feed entry (API.md §11), but the newest durable write: next_since and compaction's mark count it.
      targets.changes?.committed(member.seq, member.id, undefined);
      targets.pending.committedDocument(member.collection, member.id, entry);
    }
  }
  targets.changes?.batchCommitted(targets.index.values(), targets.index.size);
  if (history !== undefined) targets.history!.committed(history);
  for (const entry of batch) entry.settle();
}

function commitMember(entry: QueuedChange, member: EventMember, targets: CommitTargets): void {
  // The change feed shows the public view (API.md §14): a draft's changes are nobody else's.
  const shown = targets.changes === undefined || member.state === undefined ? undefined : publicChange(targets.index.get(member.id), member.state);
  if (member.state === null) targets.index.delete(member.id);
  else if (member.state !== undefined) targets.index.put(member.state);
  targets.rosters.apply(member.record);
  targets.changes?.committed(member.record.seq, member.id, shown);
  if (targets.idempotency !== undefined) rememberAnswer(targets.idempotency, member.record, targets.now());
  targets.pending.committed(member.id, entry, member.record);
}
