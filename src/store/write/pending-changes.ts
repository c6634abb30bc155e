// The write queue's latest queued state: for each event and document with changes not yet durable, its state after
// them (and the event's working roster), which the next change sees; the committed views change only at commit.
import type { StoredEvent } from '../../events/event.js';
import type { DocumentTable, StoredDocument } from '../views/document-table.js';
import type { EventIndex } from '../views/event-index.js';
import type { LogRecord } from '../records/jsonl-record.js';
import { QueuedRoster, registrationsChangedBy, type WorkingRoster } from './queued-roster.js';
import { Roster, type RosterView } from '../views/roster.js';
import type { RosterTable } from '../views/roster-table.js';

/** What planning a write reads: the latest queued state of events, rosters and documents (else the committed one), and the clock. */
export interface QueuedState {
  /** The latest queued state of event `id`, else its committed one. */
  event(id: string): StoredEvent | undefined;
  /** Whether event `id` has changes queued that are not yet durable. */
  isQueued(id: string): boolean;
  /** The latest queued roster of event `id` (a working copy when changes are queued), else the committed one. */
  roster(id: string): RosterView;
  /** The latest queued document `id` of `collection`, else the committed one. */
  document(collection: string, id: string): StoredDocument | undefined;
  /** The clock, ms since the epoch: when a change happens. */
  now(): number;
}

/** The latest queued state of one event and its roster, and the queued change that last touched them. */
export interface PendingEvent<Change> {
  event: StoredEvent | undefined;
  /** The working roster (the committed one seen through the queued changes), made when a queued change first touches it. */
  roster: WorkingRoster | undefined;
  last: Change;
}

/** The committed views the queued state falls back on. */
export interface CommittedViews {
  readonly index: EventIndex;
  readonly rosters: RosterTable;
  readonly documents: DocumentTable;
  readonly now: () => number;
}

/** The key of a document among the queued ones (and beside event ids in a group write: an event id has no `/`). */
export function documentKey(collection: string, id: string): string {
  return `${collection}/${id}`;
}

/**
 * Events and documents with queued (not yet durable) changes, each with its state after them; `Change` is the
 * queue's entry, which each remembers as the last to touch it, so a commit knows whether a later change is still queued.
 */
export class PendingChanges<Change> implements QueuedState {
  readonly #committed: CommittedViews;
  readonly #events = new Map<string, PendingEvent<Change>>();
  readonly #documents = new Map<string, { document: StoredDocument | null; last: Change }>();

  constructor(committed: CommittedViews) {
    this.#committed = committed;
  }

  event(id: string): StoredEvent | undefined {
    const pending = this.#events.get(id);
    return pending === undefined ? this.#committed.index.get(id) : pending.event;
  }

  isQueued(id: string): boolean {
    return this.#events.has(id);
  }

  roster(id: string): RosterView {
    return this.#events.get(id)?.roster ?? this.#committed.rosters.get(id);
  }

  document(collection: string, id: string): StoredDocument | undefined {
    const pending = this.#documents.get(documentKey(collection, id));
    return pending === undefined ? this.#committed.documents.get(collection, id) : (pending.document ?? undefined);
  }

  now(): number {
    return this.#committed.now();
  }

  /**
   * Event `id` is now last changed by `change`, to `state` (deleted: null; unchanged: undefined). A deleted event's
   * roster is empty from now on. Returns its pending state, whose working roster `working` gives.
   */
  queue(id: string, change: Change, state: StoredEvent | null | undefined): PendingEvent<Change> {
    let entry = this.#events.get(id);
    if (entry === undefined) {
      entry = { event: this.#committed.index.get(id), roster: undefined, last: change };
      this.#events.set(id, entry);
    }
    entry.last = change;
    if (state !== undefined) entry.event = state ?? undefined;
    // A deleted event's roster is empty, whatever the committed one holds until the deletion commits.
    if (state === null) entry.roster = new Roster();
    return entry;
  }

  /** The working roster of an event, made on first use: it copies nothing of the committed one. */
  working(id: string, entry: PendingEvent<Change>): WorkingRoster {
    entry.roster ??= new QueuedRoster(() => this.#committed.rosters.get(id));
    return entry.roster;
  }

  /** Document `id` of `collection` is now last changed by `change`, to `document` (deleted: null). */
  queueDocument(collection: string, id: string, document: StoredDocument | null, change: Change): void {
    this.#documents.set(documentKey(collection, id), { document, last: change });
  }

  /**
   * `change` to event `id`, whose line is `record`, is durable (the committed views hold it): unless a later change is
   * queued, the event is no longer pending; if one is, its working roster is told which registrations the line changed.
   */
  committed(id: string, change: Change, record?: LogRecord): void {
    const pending = this.#events.get(id);
    if (pending === undefined) return;
    if (pending.last === change) this.#events.delete(id);
    else if (pending.roster instanceof QueuedRoster && record !== undefined) pending.roster.committed(registrationsChangedBy(record));
  }

  /** `change` to a document is durable: unless a later change is queued, the document is no longer pending. */
  committedDocument(collection: string, id: string, change: Change): void {
    const key = documentKey(collection, id);
    if (this.#documents.get(key)?.last === change) this.#documents.delete(key);
  }

  /** Forgets every queued change (a failed batch fails them all). */
  clear(): void {
    this.#events.clear();
    this.#documents.clear();
  }
}
