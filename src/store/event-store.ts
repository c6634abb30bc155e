// The interface every event store keeps: reads from memory, writes made durable before they are seen.
import type { Category, EventRecord, EventStatus, StoredEvent } from '../events/event.js';
import type { Registration, RosterView } from './views/roster.js';
import type { ChangeFeedSource } from './views/change-log.js';
import type { IdempotencyEntry, IdempotencyTag, IdempotencyUse } from './views/idempotency-table.js';
import type { StoredDocument } from './views/document-table.js';

export type { StoredDocument };
import type { ChangeHistorySource } from './views/change-history.js';
import type { SharedWebhookTable } from './webhook-state.js';

/** Options of a single write. */
export interface WriteOptions {
  /** The Idempotency-Key the request came with: the line carries it, and its answer is remembered once durable. */
  idem?: IdempotencyTag | undefined;
}

/** What a list request asks for, already validated (API.md §5). */
export interface ListQuery {
  category?: Category | undefined;
  /** Events of any of these categories (`category=academic,social`); when given, `category` is not looked at. */
  categories?: readonly Category[] | undefined;
  /** Folded query words (queryWords of `q`): events where each starts a word of the title, description, location or organizer name. */
  words?: readonly string[] | undefined;
  /** Events whose start is at or after this instant (ms since the epoch). */
  startFromMs?: number | undefined;
  /** Events whose end is at or before this instant (ms since the epoch). */
  endByMs?: number | undefined;
  /** Only the occurrences of this series (API.md §11). */
  seriesId?: string | undefined;
  /**
   * Only events of these statuses (API.md §14). Without it, the public list: published and cancelled events, never
   * a draft or a pending one.
   */
  statuses?: readonly EventStatus[] | undefined;
  /** With `statuses`: the drafts and pending events listed are those of this organizer (e-mail in lower case) only; all when undefined. */
  hiddenOwner?: string | undefined;
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
 * not yet durable). Returns the new record, `null` to delete, or throws to refuse. Its
 * `registered_count` is the store's to set: the roster's confirmed registrations.
 */
export type EventChange = (current: StoredEvent | undefined) => EventRecord | null;

/** What a change to an event's registrations asks the store to do; the store applies the seat rules. */
export type RosterDecision =
  /** Register a person: confirmed while a seat is free, else waitlisted. */
  | { op: 'register'; registration: { id: string; name: string; email: string } }
  /** Cancel a registration: a confirmed seat goes to the oldest waitlisted one. */
  | { op: 'cancel'; id: string }
  /** Check a confirmed registration in (a second check-in keeps the first time). */
  | { op: 'checkIn'; id: string };

/**
 * A change to the registrations of one event, decided against the latest state of the event and its
 * roster (queued changes included). Returns undefined to change nothing, or throws to refuse.
 */
export type RosterChange = (event: StoredEvent | undefined, roster: RosterView) => RosterDecision | undefined;

/** What a registration change did: the event after it, and the registration it made, cancelled or checked in. */
export interface RosterResult {
  event: StoredEvent | undefined;
  registration: Registration | undefined;
}

/** What a group change sees: the latest state (queued changes included) of events, rosters and documents. */
export interface GroupView {
  event(id: string): StoredEvent | undefined;
  roster(eventId: string): RosterView;
  document(collection: string, id: string): StoredDocument | undefined;
}

/** What a group change writes: events to put (or delete, `null`) and documents to put (JSON text) or delete. */
export interface GroupPlan {
  events: readonly { id: string; record: EventRecord | null }[];
  documents: readonly { collection: string; id: string; json: string | null }[];
}

/**
 * A change to several events and documents at once, decided against the latest state; throws to refuse.
 * Deleting an event deletes its registrations; a capacity raised confirms waitlisted ones, as in `write`.
 */
export type GroupChange = (view: GroupView) => GroupPlan;

/** What a group write did: each event's and document's new state (`null`: deleted), by id. */
export interface GroupResult {
  events: Map<string, StoredEvent | null>;
  documents: Map<string, StoredDocument | null>;
}

export interface EventStore {
  /** The committed state of one event, whatever its status (the caller decides who may see a draft). */
  get(id: string): StoredEvent | undefined;
  /** One page of events in (start_time, id) order, with the count of every match; published and cancelled only unless `statuses` says otherwise. */
  list(query: ListQuery): ListResult;
  /**
   * list() sharing the event loop: a search or a walk of a large window runs in slices of a few milliseconds, one
   * per turn of the loop, so other requests are answered meanwhile; the answer is still that of one state.
   */
  listInTurns(query: ListQuery): Promise<ListResult>;
  /**
   * Queues a change to event `id`. `change` runs synchronously, against the state including
   * every change queued before it, so two racing writes with the same If-Match cannot both pass.
   * Resolves with the new state (or null for a delete) once it is durable and visible; rejects
   * with StoreUnavailable when it could not be written, and then nothing of it remains.
   */
  write(id: string, change: EventChange, options?: WriteOptions): Promise<StoredEvent | null>;
  /**
   * Queues a change to several events and documents as one atomic write (one log line, one fsync): after a crash,
   * all of it or none. Resolves once durable and visible, like `write`. With `options.idem`, the group's first
   * document put carries the Idempotency-Key, and that document as written is the answer remembered.
   */
  writeGroup(change: GroupChange, options?: WriteOptions): Promise<GroupResult>;
  /** The committed document `id` of `collection`. */
  document(collection: string, id: string): StoredDocument | undefined;
  /** The committed documents of `collection`, in no promised order. */
  documents(collection: string): StoredDocument[];
  /** The committed registrations of an event (empty for an unknown one). */
  roster(eventId: string): RosterView;
  /**
   * Queues a change to the registrations of event `eventId`, in the same single writer as events: the
   * change and every confirmation it causes are one log line. Resolves once durable and visible.
   */
  changeRegistrations(eventId: string, change: RosterChange, options?: WriteOptions): Promise<RosterResult>;
  /** The change feed's view of the committed log (API.md §9.2). */
  readonly changes: ChangeFeedSource;
  /** Each durable line with its context, and the durable past read back: what webhooks derive messages from (API.md §13). Optional, so an engine may come without it. */
  readonly history?: ChangeHistorySource;
  /** Webhooks in a table several instances share, each delivered by the one holding its lease (a database); without it, webhooks.json in the data folder (or memory). */
  readonly webhookTable?: SharedWebhookTable;
  /** The answer remembered for an Idempotency-Key of an API key, if still within its TTL at `nowMs` (API.md §9.3). */
  rememberedAnswer(keyId: string, key: string, nowMs: number): IdempotencyEntry | undefined;
  /** How many answers an API key holds at `nowMs`, and when its oldest is forgotten: its Idempotency-Key quota's count. */
  idempotencyUse(keyId: string, nowMs: number): IdempotencyUse;
  /** False once a write has failed: reads still work, writes are refused until restart. */
  readonly writable: boolean;
  /** Why writes are refused (e.g. `started read-only: ENOSPC: no space left on the disk`), for /health; undefined while writable. */
  readonly unwritableReason?: string | undefined;
  /** Number of live events. */
  readonly size: number;
  /** Waits for queued writes, then releases files. */
  close(): Promise<void>;
}
