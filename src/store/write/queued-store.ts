// What the memory and file stores answer alike: reads from the shared views, writes through the write queue.
import type { StoredEvent } from '../../events/event.js';
import type { EventChange, GroupChange, GroupResult, ListQuery, ListResult, RosterChange, RosterResult, StoredDocument, WriteOptions } from '../event-store.js';
import type { EventIndex } from '../views/event-index.js';
import type { IdempotencyEntry, IdempotencyTable, IdempotencyUse } from '../views/idempotency-table.js';
import type { RosterView } from '../views/roster.js';
import type { RosterTable } from '../views/roster-table.js';
import type { WriteQueue } from './write-queue.js';

/** The views a QueuedStore reads and the queue it writes through. */
export interface QueuedViews {
  index: EventIndex;
  rosters: RosterTable;
  idempotency: IdempotencyTable;
  queue: WriteQueue;
}

/**
 * The part of an EventStore that is the same for every engine whose writes go through one WriteQueue in this
 * process: each method forwards to the views or the queue. A subclass sets `queued` in its constructor and adds
 * what its engine does (history, closing, compaction).
 */
export abstract class QueuedStore {
  protected abstract readonly queued: QueuedViews;

  get(id: string): StoredEvent | undefined {
    return this.queued.index.get(id);
  }

  list(query: ListQuery): ListResult {
    return this.queued.index.list(query);
  }

  listInTurns(query: ListQuery): Promise<ListResult> {
    return this.queued.index.listInTurns(query);
  }

  write(id: string, change: EventChange, options?: WriteOptions): Promise<StoredEvent | null> {
    return this.queued.queue.write(id, change, options);
  }

  rememberedAnswer(keyId: string, key: string, nowMs: number): IdempotencyEntry | undefined {
    return this.queued.idempotency.find(keyId, key, nowMs);
  }

  idempotencyUse(keyId: string, nowMs: number): IdempotencyUse {
    return this.queued.idempotency.use(keyId, nowMs);
  }

  roster(eventId: string): RosterView {
    return this.queued.rosters.get(eventId);
  }

  changeRegistrations(eventId: string, change: RosterChange, options?: WriteOptions): Promise<RosterResult> {
    return this.queued.queue.changeRegistrations(eventId, change, options);
  }

  writeGroup(change: GroupChange, options: WriteOptions = {}): Promise<GroupResult> {
    return this.queued.queue.writeGroup(change, options);
  }

  document(collection: string, id: string): StoredDocument | undefined {
    return this.queued.queue.document(collection, id);
  }

  documents(collection: string): StoredDocument[] {
    return this.queued.queue.documents(collection);
  }

  get writable(): boolean {
    return this.queued.queue.writable;
  }

  get size(): number {
    return this.queued.index.size;
  }
}
