// A group write planned against the latest queued state: every event and document it changes, each line at a seq
// of its own, to go out as one group line (see encodeGroup), so that nothing of it counts until the whole line is durable.
import type { StoredEvent } from '../../events/event.js';
import type { GroupChange, GroupView, WriteOptions } from '../event-store.js';
import { encodeDelete, encodeDocument, encodeDocumentDelete } from '../records/encode-record.js';
import type { DocumentRecord, LogRecord } from '../records/jsonl-record.js';
import type { StoredDocument } from '../views/document-table.js';
import { planPut } from './event-write.js';
import { documentKey, type QueuedState } from './pending-changes.js';

/** An event a group write changes: the event after it (null: deleted), its record, and the registrations it confirms. */
export interface GroupMember {
  readonly id: string;
  readonly state: StoredEvent | null;
  readonly record: LogRecord;
  readonly promoted: readonly string[];
}

/** A document put (or deleted: null) by a group write. */
export interface DocumentMember {
  readonly collection: string;
  readonly id: string;
  readonly seq: number;
  readonly document: StoredDocument | null;
  /** The line as the views apply it: a put under an Idempotency-Key leaves its answer to remember. */
  readonly record: DocumentRecord | undefined;
}

/** A group write planned: the events and documents it changes, in order, and their lines. */
export interface PlannedGroup {
  readonly events: readonly GroupMember[];
  readonly documents: readonly DocumentMember[];
  /** One per change, in seq order; empty when the group changes nothing. */
  readonly lines: readonly string[];
  /** The seq after the group's last line. */
  readonly nextSeq: number;
}

/**
 * The group `change` makes, its first line at `seq` (see EventStore.writeGroup): `change` sees the latest queued
 * state. Throws when the change throws, changes one event or document twice, or deletes an event that does not exist.
 * With `options.idem`, the first document put carries it (its answer: that document as written).
 */
export function planGroupWrite(change: GroupChange, seq: number, queued: QueuedState, options: WriteOptions = {}): PlannedGroup {
  const view: GroupView = {
    event: (id) => queued.event(id),
    roster: (id) => queued.roster(id),
    document: (collection, id) => queued.document(collection, id),
  };
  const events: GroupMember[] = [];
  const documents: DocumentMember[] = [];
  const lines: string[] = [];
  const plan = change(view);
  const seen = new Set<string>();
  for (const { id, record: next } of plan.events) {
    if (seen.has(id)) throw new TypeError(`a group write changes event ${id} twice`);
    seen.add(id);
    const current = queued.event(id);
    if (next === null) {
      if (current === undefined) throw new TypeError(`a group write deleted event ${id}, which does not exist`);
      const atMs = queued.now();
      events.push({ id, state: null, record: { seq, op: 'del', id, atMs }, promoted: [] });
      lines.push(encodeDelete(seq++, id, atMs));
      continue;
    }
    const put = planPut(id, current, next, seq, queued, {});
    if (put === undefined) continue;
    events.push({ id, state: put.state, record: put.record, promoted: put.promoted });
    lines.push(put.line);
    seq++;
  }
  /** The Idempotency-Key, until the first document put takes it. */
  let idem = options.idem;
  for (const { collection, id, json } of plan.documents) {
    if (seen.has(documentKey(collection, id))) throw new TypeError(`a group write changes document ${id} twice`);
    seen.add(documentKey(collection, id));
    const document = json === null ? null : { collection, id, json, seq };
    let record: DocumentRecord | undefined;
    if (document === null) lines.push(encodeDocumentDelete(seq, collection, id));
    else {
      const answer = idem === undefined ? undefined : { idem, atMs: queued.now() };
      idem = undefined;
      record = answer === undefined ? { seq, op: 'doc', document } : { seq, op: 'doc', document, ...answer };
      lines.push(encodeDocument(document, 'doc', answer));
    }
    documents.push({ collection, id, seq, document, record });
    seq++;
  }
  return { events, documents, lines, nextSeq: seq };
}
