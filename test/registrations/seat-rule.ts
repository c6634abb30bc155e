// What API.md §8 allows an event's attendee list to be, whatever the interleaving of the changes that made it.
import assert from 'node:assert/strict';

/** A registration as the attendee list serves it. */
export interface Attendee {
  id: string;
  email: string;
  status: 'confirmed' | 'waitlisted';
  created_at: string;
  checked_in_at: string | null;
}

/**
 * What §8 makes the only possible outcome, whatever the interleaving: of the registrations still active, in creation
 * order, the first min(capacity, n) are confirmed and the rest wait, in creation order.
 */
export function assertSeatRule(list: Attendee[], capacity: number, registeredCount: number, context: string): void {
  const confirmed = list.filter((attendee) => attendee.status === 'confirmed');
  const waitlisted = list.filter((attendee) => attendee.status === 'waitlisted');
  assert.equal(registeredCount, confirmed.length, `${context}: registered_count equals the confirmed registrations in the list`);
  assert.ok(confirmed.length <= capacity, `${context}: ${confirmed.length} confirmed for ${capacity} seats`);
  assert.equal(confirmed.length, Math.min(capacity, list.length), `${context}: nobody waits while a seat is free`);
  assert.deepEqual(
    list.map((attendee) => attendee.status),
    [...confirmed.map(() => 'confirmed'), ...waitlisted.map(() => 'waitlisted')],
    `${context}: every confirmed registration is older than every waitlisted one (promotion takes the head of the waitlist)`,
  );
  for (let k = 1; k < waitlisted.length; k++) {
    assert.ok(waitlisted[k - 1]!.created_at <= waitlisted[k]!.created_at, `${context}: the waitlist keeps creation order (${waitlisted[k - 1]!.id} before ${waitlisted[k]!.id})`);
  }
}
