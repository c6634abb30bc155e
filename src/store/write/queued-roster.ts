// The write queue's working roster of one event: the committed roster seen through the registration changes queued
// but not yet durable, kept as each changed registration's queued state, so queuing a change copies nothing.
import type { LogRecord } from '../records/jsonl-record.js';
import { Roster, RosterError, type Registration, type RegistrationStatus, type RosterView } from '../views/roster.js';

/** What the write queue does to a working roster: Roster's changes, over a view. */
export interface WorkingRoster extends RosterView {
  add(registration: Registration): void;
  remove(id: string): Registration;
  confirm(ids: readonly string[]): void;
  checkIn(id: string, at: string): void;
}

/**
 * A registration a queued change touched: its state after the queued changes (null: removed), and how many are not
 * yet durable. `readdPending`: when it was added again after a removal, how many of those changes up to that addition
 * are not durable yet (0 once it is, or when it was not): until then it stands last, as in a Roster, not where the
 * committed roster still has it.
 */
interface Changed {
  state: Registration | null;
  notDurable: number;
  readdPending: number;
}

/**
 * A roster equal to the committed one with the queued changes applied. It holds only the queued state of each
 * registration a queued change touched and of each e-mail, never counts kept beside them: every answer is worked out
 * against the committed roster as it is when asked, so it stays true while commits bring that roster up to the queued
 * state. (A copy of the roster per batch cost registering for an event time in proportion to its roster, and most of a
 * registration's CPU when registrations go to many events.) Tell it of each durable change with `committed()`, so
 * what it holds stays as small as what is queued.
 */
export class QueuedRoster implements WorkingRoster {
  /** The committed roster, looked up on every use: the table replaces an event's roster when it empties and refills. */
  readonly #committed: () => RosterView;
  /** The registrations a queued change touched, in the order first touched. */
  readonly #changed = new Map<string, Changed>();
  /** Whether each e-mail (lower case) a queued change touched is taken in the queued state, and the registration that last took or freed it. */
  readonly #emails = new Map<string, { taken: boolean; by: string }>();

  constructor(committed: () => RosterView) {
    this.#committed = committed;
  }

  get #base(): RosterView {
    return this.#committed();
  }

  get confirmed(): number {
    return this.#base.confirmed + this.#difference((registration) => registration?.status === 'confirmed');
  }

  get waitlisted(): number {
    return this.#base.waitlisted + this.#difference((registration) => registration?.status === 'waitlisted');
  }

  get size(): number {
    return this.#base.size + this.#difference((registration) => registration !== undefined);
  }

  /** Registrations and e-mails held apart from the committed roster (for tests: zero once every change is durable). */
  get held(): number {
    return this.#changed.size + this.#emails.size;
  }

  get(id: string): Registration | undefined {
    const changed = this.#changed.get(id);
    return changed === undefined ? this.#base.get(id) : (changed.state ?? undefined);
  }

  hasEmail(email: string): boolean {
    return this.#emails.get(email.toLowerCase())?.taken ?? this.#base.hasEmail(email);
  }

  /** Lists are read from committed rosters; a queued one builds the whole roster for it (rare: tests and checks). */
  page(status: RegistrationStatus | undefined, offset: number, limit: number): { registrations: Registration[]; total: number } {
    return this.#materialised().page(status, offset, limit);
  }

  values(): IterableIterator<Registration> {
    return this.#materialised().values();
  }

  nextToConfirm(capacity: number): string[] {
    const ids: string[] = [];
    let seats = capacity - this.confirmed;
    if (seats <= 0) return ids;
    // The committed waitlist in its order, less the ones a queued change confirmed or removed (at most #changed.size of
    // them, so no more are asked for), then those queued waitlisted.
    const base = this.#base;
    for (const id of base.nextToConfirm(base.confirmed + seats + this.#changed.size)) {
      if (this.get(id)?.status !== 'waitlisted' || this.#readded(id)) continue;
      ids.push(id);
      if (--seats === 0) return ids;
    }
    for (const [id, { state, readdPending }] of this.#changed) {
      if (state?.status !== 'waitlisted' || (base.get(id)?.status === 'waitlisted' && readdPending === 0)) continue;
      ids.push(id);
      if (--seats === 0) return ids;
    }
    return ids;
  }

  add(registration: Registration): void {
    if (this.get(registration.id) !== undefined) throw new RosterError(`registration ${registration.id} is already on event ${registration.eventId}`);
    if (this.hasEmail(registration.email)) throw new RosterError(`e-mail ${registration.email} is already registered for event ${registration.eventId}`);
    this.#change(registration.id, registration);
    this.#emails.set(registration.email.toLowerCase(), { taken: true, by: registration.id });
  }

  remove(id: string): Registration {
    const registration = this.#existing(id);
    this.#change(id, null);
    this.#emails.set(registration.email.toLowerCase(), { taken: false, by: id });
    return registration;
  }

  confirm(ids: readonly string[]): void {
    for (const id of ids) {
      const registration = this.#existing(id);
      if (registration.status !== 'waitlisted') throw new RosterError(`registration ${id} is not waitlisted, so it cannot be confirmed`);
      this.#change(id, { ...registration, status: 'confirmed' });
    }
  }

  checkIn(id: string, at: string): void {
    const registration = this.#existing(id);
    if (registration.status !== 'confirmed') throw new RosterError(`registration ${id} is waitlisted, so it cannot be checked in`);
    if (registration.checkedInAt === null) this.#change(id, { ...registration, checkedInAt: at });
  }

  /**
   * One queued change to each of `ids` is durable (the committed roster holds it): a registration whose every change
   * is durable is read from the committed roster again, and so is an e-mail once the registration that last took or
   * freed it is (every change to the e-mail before that one was queued, and so made durable, earlier).
   */
  committed(ids: readonly string[]): void {
    for (const id of ids) {
      const changed = this.#changed.get(id);
      if (changed === undefined) continue;
      if (changed.readdPending > 0) changed.readdPending--;
      if (--changed.notDurable === 0) this.#changed.delete(id);
    }
    for (const [email, { by }] of this.#emails) if (!this.#changed.has(by)) this.#emails.delete(email);
  }

  #change(id: string, state: Registration | null): void {
    const changed = this.#changed.get(id);
    if (changed === undefined) this.#changed.set(id, { state, notDurable: 1, readdPending: 0 });
    else if (changed.state === null && state !== null) {
      // Added again after a queued removal: it goes last, as the newest registration.
      this.#changed.delete(id);
      this.#changed.set(id, { state, notDurable: changed.notDurable + 1, readdPending: changed.notDurable + 1 });
    } else {
      changed.state = state;
      changed.notDurable++;
    }
  }

  /** How many more of the registrations a queued change touched are `counted` in the queued state than in `base`. */
  #difference(counted: (registration: Registration | undefined) => boolean): number {
    let difference = 0;
    const base = this.#base;
    for (const [id, { state }] of this.#changed) difference += Number(counted(state ?? undefined)) - Number(counted(base.get(id)));
    return difference;
  }

  /** Added again after a removal, and that addition not durable yet: the committed roster's place for it is the old one. */
  #readded(id: string): boolean {
    return (this.#changed.get(id)?.readdPending ?? 0) > 0;
  }

  #existing(id: string): Registration {
    const registration = this.get(id);
    if (registration === undefined) throw new RosterError(`registration ${id} is not on this event`);
    return registration;
  }

  /** The queued state as a Roster of its own: the committed registrations in order, each as queued, then the new ones (and those added again after a removal). */
  #materialised(): Roster {
    const roster = new Roster();
    for (const registration of this.#base.values()) {
      const queued = this.get(registration.id);
      if (queued !== undefined && !this.#readded(registration.id)) roster.add(queued);
    }
    for (const [id, { state, readdPending }] of this.#changed) if (state !== null && (readdPending > 0 || this.#base.get(id) === undefined)) roster.add(state);
    return roster;
  }
}

/** The registrations a log line changes, one change each: what a working roster is told when the line is durable. */
export function registrationsChangedBy(record: LogRecord): readonly string[] {
  switch (record.op) {
    case 'reg':
      return [record.registration.id];
    case 'cancel':
      return [record.id, ...record.promoted];
    case 'checkin':
      return [record.id];
    case 'put':
      return record.promoted ?? [];
    default:
      return [];
  }
}
