// The event as stored and as served: its full record, the shape of its compact in-memory form, and its JSON views.
// It needs no store: the store builds its own forms of a StoredEvent (store/views/served-event.ts).

export const CATEGORIES = ['academic', 'social', 'athletic', 'cultural'] as const;
export type Category = (typeof CATEGORIES)[number];

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
  readonly seriesId?: string;
}

/** The view JSON of a record: every field but `created_at`, in the contract's order. */
export function viewJson(record: EventRecord): string {
  return JSON.stringify({
    id: record.id,
    title: record.title,
    description: record.description,
    category: record.category,
    location: record.location,
    start_time: record.start_time,
    end_time: record.end_time,
    capacity: record.capacity,
    registered_count: record.registered_count,
    organizer: { name: record.organizer.name, email: record.organizer.email },
    ...(record.series_id === undefined ? {} : { series_id: record.series_id }),
  });
}

/** The create response: every field but `organizer` (SPEC.md shows it so). */
export function createdJson(record: EventRecord): string {
  return JSON.stringify({
    id: record.id,
    title: record.title,
    description: record.description,
    category: record.category,
    location: record.location,
    start_time: record.start_time,
    end_time: record.end_time,
    capacity: record.capacity,
    registered_count: record.registered_count,
    created_at: record.created_at,
    ...(record.series_id === undefined ? {} : { series_id: record.series_id }),
  });
}

/** The full record of a stored event, read back from its view. */
export function toRecord(stored: StoredEvent): EventRecord {
  const view = JSON.parse(stored.json) as Omit<EventRecord, 'created_at'>;
  return { ...view, created_at: stored.createdAt };
}

/** The strong ETag of a stored state: it changes with every write. */
export function etagOf(stored: StoredEvent): string {
  return `"${stored.seq.toString(36)}"`;
}
