// API.md §8's invariant between a replayed log's events and its registrations, which a start holds the log to.
import type { StoredEvent } from '../../events/event.js';
import { seatsOf } from '../views/served-event.js';
import type { RosterTable } from '../views/roster-table.js';

/** The log is whole, but its registrations contradict its events (API.md §8's invariant): the store refuses to start. */
export class RosterInvariantError extends Error {
  override readonly name = 'RosterInvariantError';
  readonly file: string;

  constructor(file: string, problem: string) {
    super(`${file}: the registrations contradict the events: ${problem}. The store will not start; restore the file from a backup.`);
    this.file = file;
  }
}

/**
 * Checks API.md §8's invariant for every event: registered_count equals the confirmed registrations and
 * never exceeds capacity, and nobody waits while a seat is free; every roster belongs to a live event.
 * Returns the first problem, or undefined.
 */
export function rosterInvariantProblem(events: ReadonlyMap<string, StoredEvent>, rosters: RosterTable): string | undefined {
  for (const [eventId] of rosters.entries()) {
    if (!events.has(eventId)) return `event ${eventId} has registrations but is not live`;
  }
  for (const event of events.values()) {
    const { capacity, registered } = seatsOf(event);
    const roster = rosters.get(event.id);
    if (registered !== roster.confirmed) return `event ${event.id} says registered_count ${registered}, but ${roster.confirmed} registrations are confirmed`;
    if (registered > capacity) return `event ${event.id} has ${registered} confirmed registrations for ${capacity} seats`;
    if (roster.waitlisted > 0 && registered < capacity) return `event ${event.id} has ${roster.waitlisted} waitlisted while ${capacity - registered} seats are free`;
  }
  return undefined;
}
