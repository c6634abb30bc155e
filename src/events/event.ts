// The event as stored and as served: its full record, its compact in-memory form, and its JSON views.

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
  /** The view served by list, single read and update: every field but `created_at`. */
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

/** The compact form of a record written at sequence `seq` at `modifiedMs` (default: its creation). */
export function toStored(record: EventRecord, seq: number, json: string = viewJson(record), modifiedMs: number = Date.parse(record.created_at)): StoredEvent {
  const stored = {
    id: record.id,
    startMs: Date.parse(record.start_time),
    endMs: Date.parse(record.end_time),
    category: record.category,
    organizerEmail: record.organizer.email.toLowerCase(),
    createdAt: record.created_at,
    seq,
    modifiedMs,
    json,
  };
  return record.series_id === undefined ? stored : { ...stored, seriesId: record.series_id };
}

/** The seats of a stored event, read from its view without parsing it. */
export function seatsOf(stored: StoredEvent): { capacity: number; registered: number } {
  const at = countAt(stored.json);
  const capacityAt = stored.json.lastIndexOf(CAPACITY_KEY, at);
  return {
    capacity: Number(stored.json.slice(capacityAt + CAPACITY_KEY.length, at)),
    registered: Number(stored.json.slice(at + COUNT_KEY.length, stored.json.indexOf(',', at + COUNT_KEY.length))),
  };
}

/** The same event with another `registered_count`, as written at `seq` and `modifiedMs`. */
export function withRegisteredCount(stored: StoredEvent, registered: number, seq: number, modifiedMs: number): StoredEvent {
  const at = countAt(stored.json);
  const after = stored.json.indexOf(',', at + COUNT_KEY.length);
  const json = `${stored.json.slice(0, at + COUNT_KEY.length)}${registered}${stored.json.slice(after)}`;
  return { ...stored, seq, modifiedMs, json };
}

// Inside a JSON string a quote is always escaped, so these keys with their quotes occur once, as keys.
const CAPACITY_KEY = ',"capacity":';
const COUNT_KEY = ',"registered_count":';

function countAt(json: string): number {
  const at = json.indexOf(COUNT_KEY);
  if (at < 0) throw new TypeError('an event view without "registered_count"');
  return at;
}

/** The strong ETag of a stored state: it changes with every write. */
export function etagOf(stored: StoredEvent): string {
  return `"${stored.seq.toString(36)}"`;
}
