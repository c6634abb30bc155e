// moveLabel(): the words of each publishing move's button, by role and the campus's approval setting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { moveLabel } from '../../../src/console/web/publishing-actions.js';
import type { Me } from '../../../src/console/web/roles.js';

const me = (role: Me['role']): Me => ({ key_id: 'key_1', name: 'Someone', email: 'someone@campus.edu', role });

test('moveLabel() words a submit by who asks and whether approval is required, and a cancel by what it cancels', () => {
  assert.equal(moveLabel({ me: me('organizer'), approval: 'required' }, 'submit', 'event'), 'Submit for approval');
  assert.equal(moveLabel({ me: me('organizer'), approval: 'off' }, 'submit', 'event'), 'Publish');
  assert.equal(moveLabel({ me: me('admin'), approval: 'required' }, 'submit', 'event'), 'Publish');
  assert.equal(moveLabel({ me: me('organizer'), approval: 'off' }, 'cancel', 'event'), 'Cancel event');
  assert.equal(moveLabel({ me: me('organizer'), approval: 'off' }, 'cancel', 'series'), 'Cancel series');
  assert.deepEqual((['withdraw', 'restore', 'approve', 'reject'] as const).map((move) => moveLabel({ me: me('admin'), approval: 'off' }, move, 'event')), ['Withdraw', 'Restore', 'Approve', 'Reject']);
});
