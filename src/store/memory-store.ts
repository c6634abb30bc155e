// An event store that lives in memory only: for embedders' tests and unit tests, with the file store's write semantics.
import type { StoredEvent } from '../events/event.js';
import { EventIndex } from './event-index.js';
import type { EventChange, EventStore, ListQuery, ListResult } from './event-store.js';
import { WriteQueue } from './write-queue.js';

/** An EventStore without files: writes go through the same queue (overlay, group commit) as the file store's. */
export class MemoryStore implements EventStore {
  readonly #index = new EventIndex();
  readonly #queue = new WriteQueue({ index: this.#index, nextSeq: 1, persist: () => Promise.resolve() });

  get(id: string): StoredEvent | undefined {
    return this.#index.get(id);
  }

  list(query: ListQuery): ListResult {
    return this.#index.list(query);
  }

  write(id: string, change: EventChange): Promise<StoredEvent | null> {
    return this.#queue.write(id, change);
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
