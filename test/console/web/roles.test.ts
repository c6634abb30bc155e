// canCreate(), canManage(), canRegister(), canRead(), movesFor(), canReview(): the console offers only what the role table of API.md §2 and the moves of §14 allow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canCreate, canManage, canRead, canRegister, canReview, movesFor, type Me } from '../../../src/console/web/roles.js';

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

test('movesFor() offers each status its moves (API.md §14), approve and reject to admins only, nothing to who may not manage it', () => {
  const at = (status?: string): typeof event & { status?: string } => ({ ...event, ...(status === undefined ? {} : { status }) });
  const statuses = ['draft', 'pending', undefined, 'cancelled'];
  assert.deepEqual(statuses.map((status) => movesFor(person('organizer'), at(status))), [['submit'], ['withdraw'], ['cancel'], ['restore']]);
  assert.deepEqual(statuses.map((status) => movesFor(person('admin', 'ada@campus.edu'), at(status))), [['submit'], ['approve', 'reject'], ['cancel'], ['restore']]);
  assert.deepEqual(statuses.map((status) => movesFor(person('organizer', 'oscar@campus.edu'), at(status))), [[], [], [], []], "not another organizer's");
  assert.deepEqual(statuses.map((status) => movesFor(person('reader'), at(status))), [[], [], [], []], 'never a reader');
  assert.deepEqual(movesFor(person('admin'), at('archived')), [], 'an unknown status offers nothing');
});

test('canReview() (the approval queue) is for admins alone', () => {
  assert.deepEqual((['admin', 'organizer', 'reader', 'feed'] as const).map((role) => canReview(person(role))), [true, false, false, false]);
});
