// The interface every event store keeps: reads from memory, writes made durable before they are seen.
import type { Category, EventRecord, StoredEvent } from '../events/event.js';

/** What a list request asks for, already validated (API.md §5). */
export interface ListQuery {
  category?: Category | undefined;
  /** Events whose start is at or after this instant (ms since the epoch). */
  startFromMs?: number | undefined;
  /** Events whose end is at or before this instant (ms since the epoch). */
  endByMs?: number | undefined;
  limit: number;
  page: number;
}

export interface ListResult {
  events: StoredEvent[];
  /** Every match on all pages. */
  total: number;
}

/**
 * A change to one event, computed against its latest state (including changes queued but
 * not yet durable). Returns the new record, `null` to delete, or throws an ApiError to refuse.
 */
export type EventChange = (current: StoredEvent | undefined) => EventRecord | null;

export interface EventStore {
  /** The committed state of one event. */
  get(id: string): StoredEvent | undefined;
  /** One page of events in (start_time, id) order, with the count of every match. */
  list(query: ListQuery): ListResult;
  /**
   * Queues a change to event `id`. `change` runs synchronously, against the state including
   * every change queued before it, so two racing writes with the same If-Match cannot both pass.
   * Resolves with the new state (or null for a delete) once it is durable and visible; rejects
   * with ApiError('unavailable') when it could not be written, and then nothing of it remains.
   */
  write(id: string, change: EventChange): Promise<StoredEvent | null>;
  /** False once a write has failed: reads still work, writes are refused until restart. */
  readonly writable: boolean;
  /** Why writes are refused (e.g. `started read-only: ENOSPC: no space left on the disk`), for /health; undefined while writable. */
  readonly unwritableReason?: string | undefined;
  /** Number of live events. */
  readonly size: number;
  /** Waits for queued writes, then releases files. */
  close(): Promise<void>;
}
