// The in-memory webhook state: what it loads is what was saved last, and a copy that changes nothing it holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EMPTY_WEBHOOK_STATE, memoryWebhookState, type WebhookStateSnapshot } from '../../src/store/webhook-state.js';

const webhook = (n: number): WebhookStateSnapshot['webhooks'][number] => ({
  id: `wh_${n}`,
  url: `http://127.0.0.1:9/${n}`,
  events: ['event.created'],
  description: `hook ${n}`,
  secret: `s${n}`,
  created_at: '2031-01-01T00:00:00.000Z',
  status: 'active',
  cursor: { seq: n, index: 0 },
  attempts: 0,
  firstFailureMs: null,
  deliveries: [],
});

test('memoryWebhookState() starts empty: no webhooks, nothing compacted, no log id', async () => {
  assert.deepEqual(EMPTY_WEBHOOK_STATE, { webhooks: [], compactedThrough: 0 });
  assert.deepEqual(await memoryWebhookState().load(), { webhooks: [], compactedThrough: 0 });
});

test('memoryWebhookState(): each load is the last save, as a copy that changes nothing kept', async () => {
  const state = memoryWebhookState();
  const first = await state.load();
  first.webhooks.push(webhook(9));
  first.compactedThrough = 99;
  assert.deepEqual(await state.load(), { webhooks: [], compactedThrough: 0 }, 'changing a loaded copy changes nothing kept');
  assert.deepEqual(EMPTY_WEBHOOK_STATE, { webhooks: [], compactedThrough: 0 }, 'nor the shared empty state');
  const saved: WebhookStateSnapshot = { webhooks: [webhook(1), webhook(2)], compactedThrough: 7, logId: 'log1' };
  await state.save(saved);
  saved.webhooks[0]!.url = 'changed after the save';
  const loaded = await state.load();
  assert.deepEqual(loaded, { webhooks: [webhook(1), webhook(2)], compactedThrough: 7, logId: 'log1' });
  assert.notEqual(loaded, await state.load(), 'a new copy each time');
  await state.save({ webhooks: [], compactedThrough: 8 });
  assert.deepEqual(await state.load(), { webhooks: [], compactedThrough: 8 }, 'a save replaces all of it');
  assert.deepEqual(await memoryWebhookState().load(), { webhooks: [], compactedThrough: 0 }, 'each state is its own');
});
