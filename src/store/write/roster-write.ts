// A change to an event's registrations planned against the latest queued state, with the seat rules of API.md §8
// applied here, in the one writer: confirmed while a seat is free, a freed seat to the oldest waitlisted, check-in
// for the confirmed only. The write queue queues what is planned here.
import type { StoredEvent } from '../../events/event.js';
import type { RosterChange, RosterResult, WriteOptions } from '../event-store.js';
import { encodeCancel, encodeCheckIn, encodeRegister } from '../records/encode-record.js';
import type { CancelRecord, CheckInRecord, RegisterRecord } from '../records/jsonl-record.js';
import type { QueuedState } from './pending-changes.js';
import type { WorkingRoster } from './queued-roster.js';
import type { Registration, RosterView } from '../views/roster.js';
import { seatsOf, withRegisteredCount } from '../views/served-event.js';

/** A registration change to write: its line and record, the registration it made or changed, and its event before and after. */
export interface RosterWrite {
  readonly record: RegisterRecord | CancelRecord | CheckInRecord;
  readonly line: string;
  readonly registration: Registration;
  /** The event in the latest queued state. */
  readonly event: StoredEvent;
  /** The event after the change: undefined when its registered_count stays (then it keeps its ETag and makes no change-feed entry). */
  readonly state: StoredEvent | undefined;
}

/** A registration change planned: a line to write, or the answer at once when there is nothing to write. */
export type PlannedRosterChange = RosterWrite | { readonly answer: RosterResult };

/**
 * The change `change` decides for the registrations of event `id`, its line at `seq` (or `seq + 1` when a registration
 * confirmed also changes the event). Throws when the change throws or breaks a seat rule.
 */
export function planRosterChange(id: string, change: RosterChange, seq: number, queued: QueuedState, options: WriteOptions): PlannedRosterChange {
  const event = queued.event(id);
  const roster = queued.roster(id);
  const atMs = queued.now();
  const at = new Date(atMs).toISOString();
  const decision = change(event, roster);
  if (decision === undefined) return { answer: { event, registration: undefined } };
  if (event === undefined) throw new TypeError(`a change to the registrations of event ${id}, which does not exist`);
  const { capacity } = seatsOf(event);
  let record: RegisterRecord | CancelRecord | CheckInRecord;
  let line: string;
  let registration: Registration;
  let confirmedAfter: number;
  switch (decision.op) {
    case 'register': {
      // Checked here too, so a working roster is never left half changed by a refused add.
      if (roster.get(decision.registration.id) !== undefined || roster.hasEmail(decision.registration.email)) {
        throw new TypeError(`registration ${decision.registration.id} (${decision.registration.email}) is already on event ${id}`);
      }
      const status = roster.confirmed < capacity ? 'confirmed' : 'waitlisted';
      // A confirmation also changes the event, whose new state needs a seq of its own: compaction writes
      // the registration at its seq and the event at the event's, and two lines never share one.
      const registrationSeq = seq;
      if (status === 'confirmed') seq++;
      // Written out, not spread: on Node 20, `{ ...object, newField }` gives every object a hidden class of its own, and
      // rosters kept one per registration (about 300 bytes each, and every read of a registration went megamorphic).
      const added = decision.registration;
      registration = { id: added.id, name: added.name, email: added.email, eventId: event.id, status, createdAt: at, checkedInAt: null, seq: registrationSeq };
      record = options.idem === undefined ? { seq, op: 'reg', registration } : { seq, op: 'reg', registration, idem: options.idem };
      line = encodeRegister(registration, seq, options.idem);
      confirmedAfter = roster.confirmed + (status === 'confirmed' ? 1 : 0);
      break;
    }
    case 'cancel': {
      registration = existing(roster, decision.id, id);
      // A confirmed seat freed goes to the oldest waitlisted registration.
      const promoted = registration.status === 'confirmed' ? roster.nextToConfirm(capacity + 1) : [];
      record = { seq, op: 'cancel', eventId: event.id, id: registration.id, atMs, promoted };
      line = encodeCancel(record);
      confirmedAfter = roster.confirmed - (registration.status === 'confirmed' ? 1 : 0) + promoted.length;
      break;
    }
    case 'checkIn': {
      const before = existing(roster, decision.id, id);
      if (before.status !== 'confirmed') throw new TypeError(`registration ${before.id} is waitlisted: it cannot be checked in`);
      if (before.checkedInAt !== null) return { answer: { event, registration: before } };
      registration = { ...before, checkedInAt: at };
      record = { seq, op: 'checkin', eventId: event.id, id: before.id, at };
      line = encodeCheckIn(record);
      confirmedAfter = roster.confirmed;
      break;
    }
    default: {
      const unknown: never = decision;
      throw new TypeError(`unknown registration change ${JSON.stringify(unknown)}`);
    }
  }
  // The event changes (a new ETag, a change-feed entry) only when its registered_count does.
  const state = confirmedAfter === roster.confirmed ? undefined : withRegisteredCount(event, confirmedAfter, seq, atMs);
  return { record, line, registration, event, state };
}

/** Applies a planned registration change to the event's working roster, as the queued state after it. */
export function applyToRoster(working: WorkingRoster, planned: RosterWrite): void {
  const { record } = planned;
  if (record.op === 'reg') working.add(planned.registration);
  else if (record.op === 'cancel') {
    working.remove(record.id);
    working.confirm(record.promoted);
  } else working.checkIn(record.id, record.at);
}

function existing(roster: RosterView, registrationId: string, eventId: string): Registration {
  const registration = roster.get(registrationId);
  if (registration === undefined) throw new TypeError(`registration ${registrationId} is not on event ${eventId}`);
  return registration;
}
