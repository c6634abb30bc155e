// localProblems(): what the console checks before sending an event is what the server would refuse, in the server's
// own messages (the ones the sentence table turns into words), and nothing the server would take.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localProblems } from '../../../src/console/web/event-checks.js';
import { validateCreate, validateUpdate } from '../../../src/events/validate.js';
import { ApiError, type FieldProblem } from '../../../src/http/errors.js';
import type { Principal } from '../../../src/auth/principal.js';
import type { EventRecord } from '../../../src/events/event.js';

const ORGANIZER: Principal = { keyId: 'key_olga', name: 'Olga Organizer', email: 'olga@campus.edu', role: 'organizer' };
const ADMIN: Principal = { keyId: 'key_ada', name: 'Ada Admin', email: 'ada@campus.edu', role: 'admin' };
const GOOD = { title: 'Robotics night', category: 'academic', location: 'Hall B', start_time: '2027-09-01T17:00:00.000Z', end_time: '2027-09-01T19:00:00.000Z', capacity: 40, description: '' };
const STORED: EventRecord = { id: 'evt_0123456789abcdef', ...GOOD, category: 'academic', registered_count: 0, organizer: { name: 'Olga Organizer', email: 'olga@campus.edu' }, created_at: '2027-08-01T09:00:00.000Z' };

/** The server's problems for a body: its details, or none when it takes it. */
function serverProblems(run: () => unknown): FieldProblem[] {
  try {
    run();
    return [];
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return error.details ?? [];
  }
}

const sorted = (problems: FieldProblem[]): FieldProblem[] => [...problems].sort((a, b) => (a.field + a.message < b.field + b.message ? -1 : 1));

const CREATES: [string, Record<string, unknown>][] = [
  ['a good body', GOOD],
  ['an end before the start', { ...GOOD, end_time: '2027-09-01T16:00:00.000Z' }],
  ['an end equal to the start', { ...GOOD, end_time: GOOD.start_time }],
  ['a title of 201 characters', { ...GOOD, title: 'x'.repeat(201) }],
  ['a title of spaces', { ...GOOD, title: '   ' }],
  ['a title of 200 emoji (code points, not UTF-16 units)', { ...GOOD, title: '🎉'.repeat(200) }],
  ['a description of 5001 characters', { ...GOOD, description: 'd'.repeat(5001) }],
  ['capacity 0', { ...GOOD, capacity: 0 }],
  ['capacity 100001', { ...GOOD, capacity: 100_001 }],
  ['capacity 2.5', { ...GOOD, capacity: 2.5 }],
  ['no title, category or times', { location: 'Hall B', capacity: 3 }],
];

for (const [name, body] of CREATES) {
  test(`localProblems() on a create with ${name} finds what validateCreate() finds, word for word`, () => {
    assert.deepEqual(sorted(localProblems(body)), sorted(serverProblems(() => validateCreate(body, ORGANIZER))));
  });
}

const UPDATES: [string, Record<string, unknown>][] = [
  ['the whole form, good', GOOD],
  ['the whole form, ending before it starts', { ...GOOD, start_time: '2027-09-01T20:00:00.000Z' }],
  ['a start alone, after the stored end', { start_time: '2027-09-01T20:00:00.000Z' }],
  ['an end alone, before the stored start', { end_time: '2027-09-01T16:00:00.000Z' }],
  ['an empty title', { ...GOOD, title: '' }],
];

for (const [name, body] of UPDATES) {
  test(`localProblems() on an update with ${name} finds what validateUpdate() finds, word for word`, () => {
    assert.deepEqual(sorted(localProblems(body, STORED)), sorted(serverProblems(() => validateUpdate(body, { ...STORED }, ORGANIZER))));
  });
}

const ADMIN_CREATES: [string, Record<string, unknown>][] = [
  ['an organizer with a good address', { ...GOOD, organizer: { name: 'Student Life', email: 'life@campus.edu' } }],
  ['a blank title and an address with a space', { ...GOOD, title: ' ', organizer: { name: 'Student Life', email: 'bad address' } }],
  ['an address without a dot in its domain', { ...GOOD, organizer: { name: 'Student Life', email: 'life@campus' } }],
  ['an address holding a zero-width space', { ...GOOD, organizer: { name: 'Student Life', email: 'li\u200bfe@campus.edu' } }],
  ['an address of 255 characters', { ...GOOD, organizer: { name: 'Student Life', email: `${'a'.repeat(244)}@campus.edu` } }],
];

for (const [name, body] of ADMIN_CREATES) {
  test(`localProblems() on an admin's create with ${name} finds what validateCreate() finds, word for word`, () => {
    assert.deepEqual(sorted(localProblems(body)), sorted(serverProblems(() => validateCreate(body, ADMIN))));
  });
}
