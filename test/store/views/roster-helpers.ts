// Shared by the store's registration tests: registration ids, the whole visible state of a store, and §8's invariant.
import type { StoredEvent } from '../../../src/events/event.js';
import { seatsOf } from '../../../src/store/views/served-event.js';
import type { EventStore } from '../../../src/store/event-store.js';

/** A valid registration id for a number: `reg_` + 22 digits. */
export function registrationId(n: number): string {
  return `reg_${String(n).padStart(22, '0')}`;
}

/** One registration as stored: what a client sees, and its seq (its place in creation order, kept by compaction). */
export interface VisibleRegistration {
  id: string;
  seq: number;
  name: string;
  email: string;
  status: string;
  createdAt: string;
  checkedInAt: string | null;
}

/** One event as a client sees it: its view, ETag seq and time of last change, and its roster in creation order. */
export interface VisibleEvent {
  id: string;
  json: string;
  seq: number;
  modifiedMs: number;
  createdAt: string;
  registrations: VisibleRegistration[];
}

/** Every live event of a store with its roster, sorted by id: two stores that compare equal answer every request alike. */
export function visibleState(store: EventStore): VisibleEvent[] {
  const events: StoredEvent[] = store.list({ limit: Number.MAX_SAFE_INTEGER, page: 1 }).events;
  return events
    .map((event) => ({
      id: event.id,
      json: event.json,
      seq: event.seq,
      modifiedMs: event.modifiedMs,
      createdAt: event.createdAt,
      registrations: [...store.roster(event.id).values()].map(({ id, seq, name, email, status, createdAt, checkedInAt }) => ({ id, seq, name, email, status, createdAt, checkedInAt })),
    }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * API.md §8's invariant over a store's visible state: registered_count equals the confirmed registrations and never
 * exceeds capacity, nobody waits while a seat is free, and every confirmed registration is older than every waitlisted
 * one (the waitlist keeps creation order and promotion takes its head). Returns the problems found.
 */
export function invariantProblems(store: EventStore): string[] {
  const problems: string[] = [];
  for (const event of store.list({ limit: Number.MAX_SAFE_INTEGER, page: 1 }).events) {
    const { capacity, registered } = seatsOf(event);
    const roster = [...store.roster(event.id).values()];
    const confirmed = roster.filter((registration) => registration.status === 'confirmed').length;
    const waitlisted = roster.length - confirmed;
    if (registered !== confirmed) problems.push(`${event.id}: registered_count ${registered}, ${confirmed} confirmed`);
    if (registered > capacity) problems.push(`${event.id}: ${registered} registered for ${capacity} seats`);
    if (waitlisted > 0 && confirmed < capacity) problems.push(`${event.id}: ${waitlisted} waitlisted while ${capacity - confirmed} seats are free`);
    const firstWaitlisted = roster.findIndex((registration) => registration.status === 'waitlisted');
    if (firstWaitlisted >= 0 && roster.slice(firstWaitlisted).some((registration) => registration.status === 'confirmed')) {
      problems.push(`${event.id}: a confirmed registration is younger than a waitlisted one`);
    }
    if (store.roster(event.id).confirmed !== confirmed || store.roster(event.id).waitlisted !== waitlisted) problems.push(`${event.id}: the roster's counts disagree with its registrations`);
  }
  return problems;
}
