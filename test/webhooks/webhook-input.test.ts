// The checks of a webhook's body (API.md §13) that the routes' tests cannot reach with one server's --webhook-hosts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostPolicy } from '../../src/webhooks/host-policy.js';
import { validateWebhook } from '../../src/webhooks/webhook-input.js';

const stored = { id: 'whk_2sR4gfJSZR7FZHYiYAXPDy', url: 'https://old.campus.edu/in', events: ['event.created'], description: 'Signage', created_at: '2026-11-02T09:00:00.000Z', status: 'active' };
const now = hostPolicy(['hooks.campus.edu']);

test('a PUT of what GET gave goes through after --webhook-hosts changed: the url sent back as read is no change, and is not judged again', () => {
  assert.deepEqual(validateWebhook({ ...stored, description: 'Hall screens' }, now, 'update', stored), { events: ['event.created'], description: 'Hall screens' });
});

test('a url that is a change is judged against --webhook-hosts as it is now, named in the message', () => {
  assert.throws(
    () => validateWebhook({ ...stored, url: 'https://old.campus.edu/other' }, now, 'update', stored),
    (error: Error & { details?: { field: string; message: string }[] }) => error.details?.[0]?.field === 'url' && /old\.campus\.edu.*not allowed by --webhook-hosts/.test(error.details[0].message),
  );
  assert.deepEqual(validateWebhook({ url: 'https://hooks.campus.edu/new' }, now, 'update', stored), { url: 'https://hooks.campus.edu/new' });
});
