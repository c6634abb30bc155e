// An event store that lives in memory only: for embedders' tests and unit tests, with the file store's write semantics.
import type { StoredEvent } from '../../events/event.js';
import { EventIndex } from './event-index.js';
import type { EventChange, EventStore, GroupChange, GroupResult, ListQuery, ListResult, RosterChange, RosterResult, StoredDocument, WriteOptions } from '../event-store.js';
import type { RosterView } from './roster.js';
import { RosterTable } from './roster-table.js';
import { WriteQueue } from './write-queue.js';
import { ChangeLog } from './change-log.js';
import { IdempotencyTable, type IdempotencyEntry, type IdempotencyUse } from './idempotency-table.js';
import { ChangeHistory, type ChangeHistorySource } from './change-history.js';

/** An EventStore without files: writes go through the same queue (overlay, group commit) as the file store's. */
export class MemoryStore implements EventStore {
  readonly #index = new EventIndex();
  readonly #rosters = new RosterTable();
  readonly #queue: WriteQueue;
  readonly changes: ChangeLog;
  readonly #idempotency = new IdempotencyTable();
  readonly #history = new ChangeHistory();

  constructor(options: { now?: () => number } = {}) {
    this.changes = new ChangeLog((id) => this.#index.get(id));
    this.#queue = new WriteQueue({
      index: this.#index,
      rosters: this.#rosters,
      now: options.now ?? Date.now,
      nextSeq: 1,
      persist: () => Promise.resolve(),
      changes: this.changes,
      history: this.#history,
      idempotency: this.#idempotency,
    });
  }

  rememberedAnswer(keyId: string, key: string, nowMs: number): IdempotencyEntry | undefined {
    return this.#idempotency.find(keyId, key, nowMs);
  }

  idempotencyUse(keyId: string, nowMs: number): IdempotencyUse {
    return this.#idempotency.use(keyId, nowMs);
  }

  get(id: string): StoredEvent | undefined {
    return this.#index.get(id);
  }

  list(query: ListQuery): ListResult {
    return this.#index.list(query);
  }

  write(id: string, change: EventChange, options?: WriteOptions): Promise<StoredEvent | null> {
    return this.#queue.write(id, change, options);
  }

  roster(eventId: string): RosterView {
    return this.#rosters.get(eventId);
  }

  changeRegistrations(eventId: string, change: RosterChange, options?: WriteOptions): Promise<RosterResult> {
    return this.#queue.changeRegistrations(eventId, change, options);
  }

  writeGroup(change: GroupChange): Promise<GroupResult> {
    return this.#queue.writeGroup(change);
  }

  document(collection: string, id: string): StoredDocument | undefined {
    return this.#queue.document(collection, id);
  }

  documents(collection: string): StoredDocument[] {
    return this.#queue.documents(collection);
  }

  /** Each durable change for webhooks; nothing outlives the process, so a read of the past finds nothing. */
  get history(): ChangeHistorySource {
    return {
      subscribe: (listener) => this.#history.subscribe(listener),
      onCompacted: (listener) => this.#history.onCompacted(listener),
      readAfter: () => Promise.resolve({ changes: [], compactedThrough: 0 }),
    };
  }

  get writable(): boolean {
    return this.#queue.writable;
  }

  get size(): number {
    return this.#index.size;
  }

  close(): Promise<void> {
    return this.#queue.close();
  }
}
