// An event store that lives in memory only: for embedders' tests and unit tests, with the file store's write semantics.
import { EventIndex } from '../views/event-index.js';
import type { EventStore } from '../event-store.js';
import { RosterTable } from '../views/roster-table.js';
import { WriteQueue } from '../write/write-queue.js';
import { ChangeLog } from '../views/change-log.js';
import { IdempotencyTable } from '../views/idempotency-table.js';
import { ChangeHistory, type ChangeHistorySource } from '../views/change-history.js';
import { QueuedStore, type QueuedViews } from '../write/queued-store.js';

/** An EventStore without files: writes go through the same queue (overlay, group commit) as the file store's. */
export class MemoryStore extends QueuedStore implements EventStore {
  readonly #index = new EventIndex();
  readonly #rosters = new RosterTable();
  readonly #queue: WriteQueue;
  readonly changes: ChangeLog;
  readonly #idempotency = new IdempotencyTable();
  readonly #history = new ChangeHistory();
  protected override readonly queued: QueuedViews;

  constructor(options: { now?: () => number } = {}) {
    super();
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
    this.queued = { index: this.#index, rosters: this.#rosters, idempotency: this.#idempotency, queue: this.#queue };
  }

  /** Each durable change for webhooks; nothing outlives the process, so a read of the past finds nothing. */
  get history(): ChangeHistorySource {
    return {
      subscribe: (listener) => this.#history.subscribe(listener),
      onCompacted: (listener) => this.#history.onCompacted(listener),
      holdCompaction: (hold) => this.#history.holdCompaction(hold),
      readAfter: () => Promise.resolve({ changes: [], compactedThrough: 0 }),
    };
  }

  close(): Promise<void> {
    return this.#queue.close();
  }
}
