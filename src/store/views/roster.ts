// The registrations of one event in memory: in creation order, with the waitlist and the e-mails taken kept beside them.

export type RegistrationStatus = 'confirmed' | 'waitlisted';

/** `reg_` + 22 or more letters and digits (API.md §8). */
export const REGISTRATION_ID_PATTERN = /^reg_[0-9A-Za-z]{22,64}$/;

/** One registration as stored. Never changed in place: a promotion or a check-in replaces it. */
export interface Registration {
  readonly id: string;
  readonly eventId: string;
  readonly name: string;
  readonly email: string;
  readonly status: RegistrationStatus;
  /** `YYYY-MM-DDTHH:MM:SS.sssZ`. */
  readonly createdAt: string;
  readonly checkedInAt: string | null;
  /** The seq of the line that created it: creation order, and where compaction writes it. */
  readonly seq: number;
}

/** What readers of a roster may do; the store hands out only this view. */
export interface RosterView {
  readonly confirmed: number;
  readonly waitlisted: number;
  /** Every registration, confirmed and waitlisted. */
  readonly size: number;
  get(id: string): Registration | undefined;
  /** True when an active registration has this e-mail, compared without regard to case. */
  hasEmail(email: string): boolean;
  /** The registrations with `status` (any when undefined), in creation order, from `offset`, at most `limit`, and how many there are. */
  page(status: RegistrationStatus | undefined, offset: number, limit: number): { registrations: Registration[]; total: number };
  /** Every registration, in creation order. */
  values(): IterableIterator<Registration>;
  /** The oldest waitlisted registrations that `capacity` has seats for, oldest first. */
  nextToConfirm(capacity: number): string[];
}

/** Registrations `page()` has looked at, over every roster: a test holds it to what a page must walk (no work counted per roster, to keep rosters small). */
export const pageWork = { visited: 0 };

/** The active registrations of one event. Its methods keep the counts true; the seat rules are the caller's. */
export class Roster implements RosterView {
  /** Every registration, in creation order (a replaced one keeps its place). */
  readonly #byId: Map<string, Registration>;
  /** The waitlisted ones, in creation order: the first is the next to be confirmed. */
  readonly #waitlist: Map<string, Registration>;
  readonly #emails: Set<string>;
  #confirmed: number;

  constructor() {
    this.#byId = new Map();
    this.#waitlist = new Map();
    this.#emails = new Set();
    this.#confirmed = 0;
  }

  get confirmed(): number {
    return this.#confirmed;
  }

  get waitlisted(): number {
    return this.#waitlist.size;
  }

  get size(): number {
    return this.#byId.size;
  }

  get(id: string): Registration | undefined {
    return this.#byId.get(id);
  }

  hasEmail(email: string): boolean {
    return this.#emails.has(email.toLowerCase());
  }

  values(): IterableIterator<Registration> {
    return this.#byId.values();
  }

  page(status: RegistrationStatus | undefined, offset: number, limit: number): { registrations: Registration[]; total: number } {
    const total = status === undefined ? this.#byId.size : status === 'waitlisted' ? this.#waitlist.size : this.#confirmed;
    const registrations: Registration[] = [];
    if (offset >= total) return { registrations, total };
    const source = status === 'waitlisted' ? this.#waitlist : this.#byId;
    let skipped = 0;
    for (const registration of source.values()) {
      pageWork.visited++;
      if (status !== undefined && registration.status !== status) continue;
      if (skipped++ < offset) continue;
      registrations.push(registration);
      if (registrations.length === limit) break;
    }
    return { registrations, total };
  }

  /** The oldest waitlisted registrations that `capacity` has seats for, oldest first. */
  nextToConfirm(capacity: number): string[] {
    const ids: string[] = [];
    let seats = capacity - this.#confirmed;
    for (const id of this.#waitlist.keys()) {
      if (seats-- <= 0) break;
      ids.push(id);
    }
    return ids;
  }

  /** Adds a registration with the status it carries. Throws when its id or e-mail is taken. */
  add(registration: Registration): void {
    const email = registration.email.toLowerCase();
    if (this.#byId.has(registration.id)) throw new RosterError(`registration ${registration.id} is already on event ${registration.eventId}`);
    if (this.#emails.has(email)) throw new RosterError(`e-mail ${registration.email} is already registered for event ${registration.eventId}`);
    this.#byId.set(registration.id, registration);
    this.#emails.add(email);
    if (registration.status === 'confirmed') this.#confirmed++;
    else this.#waitlist.set(registration.id, registration);
  }

  /** Removes a registration; returns it. Throws when it is not here. */
  remove(id: string): Registration {
    const registration = this.#existing(id);
    this.#byId.delete(id);
    this.#emails.delete(registration.email.toLowerCase());
    if (registration.status === 'confirmed') this.#confirmed--;
    else this.#waitlist.delete(id);
    return registration;
  }

  /** Confirms waitlisted registrations. Throws when one is not waitlisted here. */
  confirm(ids: readonly string[]): void {
    for (const id of ids) {
      const registration = this.#existing(id);
      if (registration.status !== 'waitlisted') throw new RosterError(`registration ${id} is not waitlisted, so it cannot be confirmed`);
      this.#waitlist.delete(id);
      this.#byId.set(id, { ...registration, status: 'confirmed' });
      this.#confirmed++;
    }
  }

  /** Sets the check-in time of a confirmed registration (kept if it has one). Throws when it is not confirmed here. */
  checkIn(id: string, at: string): void {
    const registration = this.#existing(id);
    if (registration.status !== 'confirmed') throw new RosterError(`registration ${id} is waitlisted, so it cannot be checked in`);
    if (registration.checkedInAt === null) this.#byId.set(id, { ...registration, checkedInAt: at });
  }

  #existing(id: string): Registration {
    const registration = this.#byId.get(id);
    if (registration === undefined) throw new RosterError(`registration ${id} is not on this event`);
    return registration;
  }
}

/** A change that does not fit the roster: in replay, damage; in a write, a bug. */
export class RosterError extends Error {
  override readonly name = 'RosterError';
}

const EMPTY = new Roster();

/** The empty roster, for events nobody registered for. Read-only by convention: never change it. */
export function emptyRoster(): RosterView {
  return EMPTY;
}
