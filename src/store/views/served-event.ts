// The store's written form of a StoredEvent (its view held as a string), the functions that make one, and the
// measures (CRC-32, UTF-8 length) of its served bytes that a list page needs, each taken once per event, not per page.
import { crc32 } from '../../lib/crc32.js';
import { viewJson, type Category, type EventRecord, type EventStatus, type StoredEvent } from '../../events/event.js';

/**
 * What every event form of the store shares: the view (`json`), its seats, and the measures of its served
 * bytes, kept after the first use. Other StoredEvent objects (a test's literal) are measured on each call.
 */
export abstract class EventState implements StoredEvent {
  /** This state's slot in the search index, -1 for none (see SlotTable): private, so no copy or comparison of an event sees it. */
  #searchSlot = -1;
  abstract readonly id: string;
  abstract readonly startMs: number;
  abstract readonly endMs: number;
  abstract readonly category: Category;
  abstract readonly organizerEmail: string;
  abstract readonly createdAt: string;
  abstract readonly seq: number;
  abstract readonly modifiedMs: number;
  abstract readonly json: string;
  abstract readonly seriesId?: string | undefined;
  /** CRC-32 of the view's UTF-8 bytes. */
  abstract viewCrc(): number;
  /** Length of the view in UTF-8 bytes. */
  abstract viewBytes(): number;
  /** `capacity` and `registered_count` of the view. */
  abstract seats(): { capacity: number; registered: number };

  /** The slot SlotTable gave this state, -1 for none: a field read, where a Map by id cost 1,000,000 entries at start-up. */
  get searchSlot(): number {
    return this.#searchSlot;
  }
  set searchSlot(slot: number) {
    this.#searchSlot = slot;
  }
}

/** An event as a write (or a replayed line whose view has another layout) made it: every field held as is. */
export class ServedEvent extends EventState {
  #crc = -1;
  #bytes = -1;

  constructor(
    readonly id: string,
    readonly startMs: number,
    readonly endMs: number,
    readonly category: Category,
    readonly organizerEmail: string,
    readonly createdAt: string,
    readonly seq: number,
    readonly modifiedMs: number,
    readonly json: string,
    seriesId?: string,
    status?: EventStatus,
    hiddenAt?: number,
  ) {
    super();
    // An own property only for an occurrence of a series, as the plain objects before this class had it; and only
    // for an event not published (API.md §14), so a published one keeps the shape (and the speed) it always had.
    if (seriesId !== undefined) this.seriesId = seriesId;
    if (status !== undefined && status !== 'published') this.status = status;
    if (hiddenAt !== undefined) this.hiddenAt = hiddenAt;
  }

  declare readonly seriesId?: string;
  declare readonly status?: EventStatus;
  declare readonly hiddenAt?: number;

  viewCrc(): number {
    if (this.#crc === -1) this.#crc = crc32(this.json);
    return this.#crc;
  }

  viewBytes(): number {
    if (this.#bytes === -1) this.#bytes = Buffer.byteLength(this.json);
    return this.#bytes;
  }

  seats(): { capacity: number; registered: number } {
    return seatsInView(this.json);
  }
}

/**
 * The compact form of a record written at sequence `seq` at `modifiedMs` (default: its creation); `hiddenAt` for a
 * draft or pending event that was public before (see StoredEvent.hiddenAt).
 */
export function toStored(record: EventRecord, seq: number, json: string = viewJson(record), modifiedMs: number = Date.parse(record.created_at), hiddenAt?: number): StoredEvent {
  return new ServedEvent(record.id, Date.parse(record.start_time), Date.parse(record.end_time), record.category, record.organizer.email.toLowerCase(), record.created_at, seq, modifiedMs, json, record.series_id, record.status, hiddenAt);
}

/** The same event with another `registered_count`, as written at `seq` and `modifiedMs`. */
export function withRegisteredCount(stored: StoredEvent, registered: number, seq: number, modifiedMs: number): StoredEvent {
  const json = viewWithCount(stored.json, registered);
  return new ServedEvent(stored.id, stored.startMs, stored.endMs, stored.category, stored.organizerEmail, stored.createdAt, seq, modifiedMs, json, stored.seriesId, stored.status, stored.hiddenAt);
}

/** CRC-32 of the served bytes of any StoredEvent (kept by the store's own forms). */
export function viewCrc(stored: StoredEvent): number {
  return stored instanceof EventState ? stored.viewCrc() : crc32(stored.json);
}

/** UTF-8 length of the served bytes of any StoredEvent (kept by the store's own forms). */
export function viewBytes(stored: StoredEvent): number {
  return stored instanceof EventState ? stored.viewBytes() : Buffer.byteLength(stored.json);
}

/** The seats of any StoredEvent: from the store's packed columns, else read from the view without parsing it. */
export function seatsOf(stored: StoredEvent): { capacity: number; registered: number } {
  return stored instanceof EventState ? stored.seats() : seatsInView(stored.json);
}

/** `capacity` and `registered_count` read from a view's text. */
export function seatsInView(json: string): { capacity: number; registered: number } {
  const at = countAt(json);
  const capacityAt = json.lastIndexOf(CAPACITY_KEY, at);
  return {
    capacity: Number(json.slice(capacityAt + CAPACITY_KEY.length, at)),
    registered: Number(json.slice(at + COUNT_KEY.length, json.indexOf(',', at + COUNT_KEY.length))),
  };
}

/** The view with another `registered_count`. */
export function viewWithCount(json: string, registered: number): string {
  const at = countAt(json);
  const after = json.indexOf(',', at + COUNT_KEY.length);
  return `${json.slice(0, at + COUNT_KEY.length)}${registered}${json.slice(after)}`;
}

// Inside a JSON string a quote is always escaped, so these keys with their quotes occur once, as keys.
const CAPACITY_KEY = ',"capacity":';
const COUNT_KEY = ',"registered_count":';

function countAt(json: string): number {
  const at = json.indexOf(COUNT_KEY);
  if (at < 0) throw new TypeError('an event view without "registered_count"');
  return at;
}
