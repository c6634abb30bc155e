// canCreate(), canManage(), canRegister(), canRead(): the console offers only what the role table of API.md §2 allows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canCreate, canManage, canRead, canRegister, type Me } from '../../../src/console/web/roles.js';

const person = (role: Me['role'], email = 'olivia@campus.edu'): Me => ({ key_id: 'key_1', name: 'Someone', email, role });
const event = { organizer: { name: 'Olivia', email: 'Olivia@Campus.edu' } };

test('canManage() is true for an admin and for the organizer of the event (e-mail without regard to case), only', () => {
  assert.equal(canManage(person('admin', 'ada@campus.edu'), event), true);
  assert.equal(canManage(person('organizer'), event), true);
  assert.equal(canManage(person('organizer', 'oscar@campus.edu'), event), false);
  assert.equal(canManage(person('reader'), event), false, 'a reader never, even with the same e-mail');
  assert.equal(canManage(person('feed'), event), false);
});

test('canCreate(), canRegister() and canRead() follow the role table', () => {
  assert.deepEqual((['admin', 'organizer', 'reader', 'feed'] as const).map((role) => [canCreate(person(role)), canRegister(person(role)), canRead(person(role))]), [
    [true, true, true],
    [true, true, true],
    [false, true, true],
    [false, false, false],
  ]);
});
