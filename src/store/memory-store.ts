// An event store that lives in memory only: for embedders' tests and unit tests, with the file store's write semantics.
import type { StoredEvent } from '../events/event.js';
import { EventIndex } from './event-index.js';
import type { EventChange, EventStore, ListQuery, ListResult, RosterChange, RosterResult } from './event-store.js';
import type { RosterView } from './roster.js';
import { RosterTable } from './roster-table.js';
import { WriteQueue } from './write-queue.js';

/** An EventStore without files: writes go through the same queue (overlay, group commit) as the file store's. */
export class MemoryStore implements EventStore {
  readonly #index = new EventIndex();
  readonly #rosters = new RosterTable();
  readonly #queue: WriteQueue;

  constructor(options: { now?: () => number } = {}) {
    this.#queue = new WriteQueue({ index: this.#index, rosters: this.#rosters, now: options.now ?? Date.now, nextSeq: 1, persist: () => Promise.resolve() });
  }

  get(id: string): StoredEvent | undefined {
    return this.#index.get(id);
  }

  list(query: ListQuery): ListResult {
    return this.#index.list(query);
  }

  write(id: string, change: EventChange): Promise<StoredEvent | null> {
    return this.#queue.write(id, change);
  }

  roster(eventId: string): RosterView {
    return this.#rosters.get(eventId);
  }

  changeRegistrations(eventId: string, change: RosterChange): Promise<RosterResult> {
    return this.#queue.changeRegistrations(eventId, change);
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
