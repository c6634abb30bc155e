// Every event's roster, changed only by log records: replay and the write queue's commits apply the same records the same way.
import type { DeleteRecord, LogRecord, PutRecord, RosterRecord } from '../records/jsonl-record.js';
import { emptyRoster, Roster, RosterError, type RosterView } from './roster.js';

/** The registrations of every event, by event id. */
export class RosterTable {
  readonly #byEvent = new Map<string, Roster>();
  #registrations = 0;

  /** Live registrations over all events. */
  get registrations(): number {
    return this.#registrations;
  }

  /** The roster of an event; the empty one when nobody registered. */
  get(eventId: string): RosterView {
    return this.#byEvent.get(eventId) ?? emptyRoster();
  }

  /** Every event id that has a roster, with it. */
  entries(): IterableIterator<[string, RosterView]> {
    return this.#byEvent.entries();
  }

  /**
   * Applies what a log record does to registrations: a registration added, cancelled (with the waitlisted
   * ones confirmed in its place) or checked in, the confirmations of a capacity raised, the roster of a
   * deleted event dropped. Throws RosterError when the record does not fit the state.
   */
  apply(record: LogRecord): void {
    switch (record.op) {
      case 'put':
        this.#applyPut(record);
        return;
      case 'del':
        this.#applyDelete(record);
        return;
      default:
        this.#applyRoster(record);
    }
  }

  #applyPut(record: PutRecord): void {
    if (record.promoted === undefined || record.promoted.length === 0) return;
    this.#roster(record.stored.id).confirm(record.promoted);
  }

  #applyDelete(record: DeleteRecord): void {
    const roster = this.#byEvent.get(record.id);
    if (roster === undefined) return;
    this.#registrations -= roster.size;
    this.#byEvent.delete(record.id);
  }

  #applyRoster(record: RosterRecord): void {
    switch (record.op) {
      case 'reg':
      case 'regstate': {
        const eventId = record.registration.eventId;
        let roster = this.#byEvent.get(eventId);
        if (roster === undefined) this.#byEvent.set(eventId, (roster = new Roster()));
        roster.add(record.registration);
        this.#registrations++;
        return;
      }
      case 'cancel': {
        const roster = this.#roster(record.eventId);
        roster.remove(record.id);
        this.#registrations--;
        roster.confirm(record.promoted);
        if (roster.size === 0) this.#byEvent.delete(record.eventId);
        return;
      }
      case 'checkin':
        this.#roster(record.eventId).checkIn(record.id, record.at);
        return;
      default: {
        const unhandled: never = record;
        throw new Error(`no roster change for ${JSON.stringify(unhandled)}`);
      }
    }
  }

  #roster(eventId: string): Roster {
    const roster = this.#byEvent.get(eventId);
    if (roster === undefined) throw new RosterError(`event ${eventId} has no registrations`);
    return roster;
  }
}
