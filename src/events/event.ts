// The event as stored and as served: its full record, the shape of its compact in-memory form, and its JSON views.
// It needs no store: the store builds its own forms of a StoredEvent (store/views/served-event.ts).

export const CATEGORIES = ['academic', 'social', 'athletic', 'cultural'] as const;
export type Category = (typeof CATEGORIES)[number];

/** Where an event or a series stands in publishing (API.md §14). Data made before it holds none: `published`. */
export const EVENT_STATUSES = ['draft', 'pending', 'published', 'cancelled'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/** True for `draft` and `pending`: seen only by the organizer and admins, in no public list, count or feed (API.md §14). */
export function isHiddenStatus(status: EventStatus | undefined): boolean {
  return status === 'draft' || status === 'pending';
}

/** A person: the organizer of an event, the owner of a key. */
export interface Person {
  name: string;
  email: string;
}

/** Every field of an event, as written in the log (times already normalised to `YYYY-MM-DDTHH:MM:SS.sssZ`). */
export interface EventRecord {
  id: string;
  title: string;
  description: string;
  category: Category;
  location: string;
  start_time: string;
  end_time: string;
  capacity: number;
  registered_count: number;
  organizer: Person;
  created_at: string;
  /** Only on an occurrence of a series (API.md §11): the series' id. */
  series_id?: string;
  /** API.md §14; absent means `published` (and a published record holds none). */
  status?: EventStatus;
  /** Why a reviewer sent it back to `draft`, until its next change. */
  review_note?: string;
  /** Why it was called off: only on a cancelled event given one. */
  cancellation_reason?: string;
}

/**
 * The compact form kept in memory for each live event: its served JSON once, plus the few
 * fields that the index, the filters and the role checks need, so nothing is serialised per request.
 * Read it through these fields only, and never copy one by spreading it: an event replayed at start-up
 * is a PackedEvent whose fields are getters, so `{ ...stored }` keeps nothing but its id. Make a new
 * state with toStored or withRegisteredCount (store/views/served-event.ts). (A new field of the view:
 * extend ViewLayout and PackedEvents too, or replayed events with it are kept as strings, correct but larger.)
 */
export interface StoredEvent {
  readonly id: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly category: Category;
  /** The organizer's e-mail in lower case, for ownership checks. */
  readonly organizerEmail: string;
  readonly createdAt: string;
  /** Sequence number of the log line that wrote this state; the ETag derives from it. */
  readonly seq: number;
  /** When this state was written (ms since the epoch): the event's last change, registrations included. */
  readonly modifiedMs: number;
  /**
   * The view served by list, single read and update: every field but `created_at`. The one accessor of an
   * event's served JSON: an event replayed at start-up may hold it packed and build the string on demand.
   */
  readonly json: string;
  /** The series this event is an occurrence of, if any (API.md §11). */
  readonly seriesId?: string | undefined;
  /** Its status when not `published` (API.md §14); absent for a published event. */
  readonly status?: EventStatus;
  /**
   * Only on a draft or pending event that was public (published or cancelled) before: the seq of the write that
   * took it out of public view. The change feed keeps a deletion there for it (its tombstone), across restarts and
   * compactions, so followers who had it know it is gone.
   */
  readonly hiddenAt?: number;
}

/** True when an event is seen only by its organizer and admins (a draft or pending one). */
export function isHidden(stored: StoredEvent): boolean {
  return isHiddenStatus(stored.status);
}

/** The view JSON of a record: every field but `created_at`, in the contract's order. */
export function viewJson(record: EventRecord): string {
  const view = commonFields(record);
  view['organizer'] = { name: record.organizer.name, email: record.organizer.email };
  return JSON.stringify(addLastFields(view, record));
}

/** The create response: every field but `organizer` (SPEC.md shows it so). */
export function createdJson(record: EventRecord): string {
  const created = commonFields(record);
  created['created_at'] = record.created_at;
  return JSON.stringify(addLastFields(created, record));
}

/** The fields both forms open with, in the contract's order, written out one by one (every write makes both forms). */
function commonFields(record: EventRecord): Record<string, unknown> {
  return {
    id: record.id,
    title: record.title,
    description: record.description,
    category: record.category,
    location: record.location,
    start_time: record.start_time,
    end_time: record.end_time,
    capacity: record.capacity,
    registered_count: record.registered_count,
  };
}

/**
 * Adds `series_id` (when in one), then `status` (when not published), `review_note` and `cancellation_reason` (when
 * present), in the contract's order: to the object being built, since every write makes both forms (objects spread
 * in for them were garbage of every write).
 */
function addLastFields(form: Record<string, unknown>, record: EventRecord): Record<string, unknown> {
  if (record.series_id !== undefined) form['series_id'] = record.series_id;
  if (record.status === undefined || record.status === 'published') return form;
  form['status'] = record.status;
  if (record.review_note !== undefined) form['review_note'] = record.review_note;
  if (record.cancellation_reason !== undefined) form['cancellation_reason'] = record.cancellation_reason;
  return form;
}

/** The full record of a stored event, read back from its view. */
export function toRecord(stored: StoredEvent): EventRecord {
  // Set on the parsed object, not spread into a new one: on Node 20, `{ ...object, newField }` makes a hidden class per object.
  const record = JSON.parse(stored.json) as EventRecord;
  record.created_at = stored.createdAt;
  return record;
}
