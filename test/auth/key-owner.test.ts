// A new key's owner, checked alike for the CLI's keys create and an embedding's createKey.
import assert from 'node:assert/strict';
import test from 'node:test';
import { checkKeyOwner } from '../../src/auth/key-owner.js';
import { Problem } from '../../src/lib/checks.js';

test('checkKeyOwner: a trimmed name, an e-mail address and a role, organizer by default', () => {
  assert.deepEqual(checkKeyOwner({ name: '  Ada  ', email: 'ada@campus.edu' }), { name: 'Ada', email: 'ada@campus.edu', role: 'organizer' });
  assert.deepEqual(checkKeyOwner({ name: 'Ada', email: 'ada@campus.edu', role: 'feed' }), { name: 'Ada', email: 'ada@campus.edu', role: 'feed' });
});

test('checkKeyOwner: the first wrong field, named as the caller names it', () => {
  const flags = { name: '--name', email: '--email', role: '--role' };
  const blank = checkKeyOwner({ name: '   ', email: 'nope' }, flags);
  assert.ok(blank instanceof Problem);
  assert.equal(blank.field, '--name');
  const address = checkKeyOwner({ name: 'Ada', email: 'nope' }, flags);
  assert.ok(address instanceof Problem);
  assert.equal(address.field, '--email');
  const role = checkKeyOwner({ name: 'Ada', email: 'ada@campus.edu', role: 'root' }, flags);
  assert.ok(role instanceof Problem);
  assert.equal(role.message, '--role must be one of admin, organizer, reader, feed, got "root"');
  assert.equal((checkKeyOwner({ name: 'x'.repeat(201), email: 'ada@campus.edu' }) as Problem).field, 'name');
});
