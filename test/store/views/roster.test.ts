// Roster: the registrations of one event in creation order, with counts, waitlist order and e-mails kept true.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Roster, RosterError, type Registration } from '../../../src/store/views/roster.js';

function registration(n: number, status: Registration['status'], overrides: Partial<Registration> = {}): Registration {
  return {
    id: `reg_${String(n).padStart(22, '0')}`,
    eventId: 'evt_0000000000000001',
    name: `Person ${n}`,
    email: `P${n}@Campus.edu`,
    status,
    createdAt: '2030-01-01T00:00:00.000Z',
    checkedInAt: null,
    seq: n,
    ...overrides,
  };
}

test('add() counts confirmed and waitlisted, and refuses a taken id or e-mail (ignoring case)', () => {
  const roster = new Roster();
  roster.add(registration(1, 'confirmed'));
  roster.add(registration(2, 'waitlisted'));
  assert.equal(roster.confirmed, 1);
  assert.equal(roster.waitlisted, 1);
  assert.equal(roster.hasEmail('p1@campus.EDU'), true);
  assert.throws(() => roster.add(registration(1, 'confirmed', { email: 'other@x.edu' })), RosterError);
  assert.throws(() => roster.add(registration(3, 'confirmed', { email: 'p2@campus.edu' })), RosterError);
  assert.equal(roster.size, 2);
});

test('nextToConfirm() names the oldest waitlisted ones the capacity has seats for, in order', () => {
  const roster = new Roster();
  roster.add(registration(1, 'confirmed'));
  for (const n of [2, 3, 4]) roster.add(registration(n, 'waitlisted'));
  assert.deepEqual(roster.nextToConfirm(1), []);
  assert.deepEqual(roster.nextToConfirm(3), [registration(2, 'waitlisted').id, registration(3, 'waitlisted').id]);
  assert.deepEqual(roster.nextToConfirm(10).length, 3);
});

test('remove() and confirm() keep counts, e-mails and creation order', () => {
  const roster = new Roster();
  for (const n of [1, 2]) roster.add(registration(n, 'confirmed'));
  for (const n of [3, 4]) roster.add(registration(n, 'waitlisted'));
  roster.remove(registration(1, 'confirmed').id);
  roster.confirm([registration(3, 'waitlisted').id]);
  assert.equal(roster.confirmed, 2);
  assert.equal(roster.waitlisted, 1);
  assert.equal(roster.hasEmail('p1@campus.edu'), false);
  assert.deepEqual([...roster.values()].map((r) => `${r.seq}:${r.status}`), ['2:confirmed', '3:confirmed', '4:waitlisted']);
  assert.throws(() => roster.confirm([registration(2, 'confirmed').id]), RosterError, 'a confirmed one cannot be confirmed again');
  assert.throws(() => roster.remove(registration(1, 'confirmed').id), RosterError);
});

test('checkIn() sets the time once and refuses a waitlisted registration', () => {
  const roster = new Roster();
  roster.add(registration(1, 'confirmed'));
  roster.add(registration(2, 'waitlisted'));
  roster.checkIn(registration(1, 'confirmed').id, '2030-01-02T00:00:00.000Z');
  roster.checkIn(registration(1, 'confirmed').id, '2030-01-03T00:00:00.000Z');
  assert.equal(roster.get(registration(1, 'confirmed').id)!.checkedInAt, '2030-01-02T00:00:00.000Z');
  assert.throws(() => roster.checkIn(registration(2, 'waitlisted').id, '2030-01-02T00:00:00.000Z'), RosterError);
});

test('page() walks creation order with a status filter, offset and limit, and counts every match', () => {
  const roster = new Roster();
  for (let n = 1; n <= 10; n++) roster.add(registration(n, n % 3 === 0 ? 'waitlisted' : 'confirmed'));
  assert.deepEqual(roster.page(undefined, 8, 5).registrations.map((r) => r.seq), [9, 10]);
  assert.deepEqual(roster.page('waitlisted', 1, 5), { registrations: [registration(6, 'waitlisted'), registration(9, 'waitlisted')], total: 3 });
  assert.deepEqual(roster.page('confirmed', 2, 2).registrations.map((r) => r.seq), [4, 5]);
  assert.equal(roster.page('confirmed', 0, 1).total, 7);
  assert.deepEqual(roster.page(undefined, 10, 5).registrations, []);
});
