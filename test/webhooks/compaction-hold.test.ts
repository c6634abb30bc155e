// A webhook that may stay behind for long (paused, failing, retrying) holds the log's compaction back, so nothing it
// has not acknowledged is lost to a compaction and a restart (API.md §13); one delivering in good order does not.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { FileStore } from '../../src/store/file/file-store.js';
import type { WebhookState } from '../../src/store/webhook-state.js';
import { compactionHoldOf } from '../../src/webhooks/compaction-hold.js';
import { LINE_DONE } from '../../src/webhooks/message-backlog.js';
import { call } from '../helpers/harness.js';
import { EVENT_FIELDS as EVENT, eventually, harnessWithWebhook, reopen } from './support.js';

function webhook(id: string, status: WebhookState['status'], seq: number, attempts = 0): WebhookState {
  return { id, url: 'http://127.0.0.1/', events: [], description: '', secret: 'whsec_x', created_at: '2026-01-01T00:00:00.000Z', status, cursor: { seq, index: LINE_DONE }, attempts, firstFailureMs: attempts > 0 ? 1 : null, deliveries: [] };
}

test('compactionHoldOf() holds for any webhook behind the log: for long (lasting, named first) when paused, failing or retrying past its first retry', () => {
  assert.equal(compactionHoldOf([], 10), undefined);
  assert.equal(compactionHoldOf([webhook('whk_a', 'paused', 10), webhook('whk_b', 'failing', 12, 9)], 10), undefined, 'caught up with the log');
  assert.deepEqual(compactionHoldOf([webhook('whk_a', 'active', 3)], 10), { reason: 'webhook whk_a is delivering the changes after seq 3', lasting: false });
  assert.deepEqual(compactionHoldOf([webhook('whk_a', 'active', 3), webhook('whk_b', 'paused', 4)], 10), {
    reason: 'webhook whk_b is paused and has not acknowledged the changes after seq 4; set it active once its receiver answers, or delete it',
    lasting: true,
  });
  assert.match(compactionHoldOf([webhook('whk_c', 'failing', 9, 12)], 10)!.reason, /^webhook whk_c is failing and has not acknowledged the changes after seq 9;/);
  assert.deepEqual(compactionHoldOf([webhook('whk_d', 'active', 2, 2)], 10), {
    reason: 'webhook whk_d is retrying a message its receiver has not acknowledged (after seq 2); it goes on by itself once the receiver answers, or delete it',
    lasting: true,
  });
  // Its first retry comes 5 s after the failure, within a compaction's wait: a receiver failing now and then holds briefly.
  assert.deepEqual(compactionHoldOf([webhook('whk_d', 'active', 2, 1)], 10), { reason: 'webhook whk_d is delivering the changes after seq 2', lasting: false });
  // Halfway through the last line (its registration's message acknowledged, its event's not): not caught up.
  const halfway = { ...webhook('whk_e', 'active', 10), cursor: { seq: 10, index: 0 } };
  assert.deepEqual(compactionHoldOf([halfway], 10), { reason: 'webhook whk_e is delivering the changes after seq 10', lasting: false });
  assert.equal(compactionHoldOf([{ ...halfway, cursor: { seq: 10, index: LINE_DONE } }], 10), undefined);
});

test('a paused webhook holds compaction back: after a restart it gets every message in order, and released, the log compacts again', async () => {
  const compactMinBytes = 2000;
  const { h, receiver, webhook: { id: webhookId } } = await harnessWithWebhook({ compactMinBytes });
  let app = h.app;
  const admin = h.keys.admin;
  try {
    assert.equal((await call(app, 'PUT', `/webhooks/${webhookId}`, { key: admin, body: { status: 'paused' } })).status, 200);
    const id = (await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title: 'Title 0' } })).json.id;
    for (let n = 1; n <= 40; n++) assert.equal((await call(app, 'PUT', `/events/${id}`, { key: admin, body: { title: `Title ${n}` } })).status, 200);
    const store = app.store as FileStore;
    assert.ok(store.stats.bytes > compactMinBytes && store.stats.supersededLines * 2 > store.stats.lines, 'the log is due for compaction');
    assert.equal(store.stats.lines, 41, 'and was not compacted');
    await app.close();
    app = await reopen(h.dataDir, { compactMinBytes });
    assert.equal((await call(app, 'PUT', `/webhooks/${webhookId}`, { key: admin, body: { status: 'active' } })).status, 200);
    await eventually('the 41 messages held while paused', () => receiver.received.length >= 41);
    const titles = receiver.received.map((entry) => `${entry.message!.type} ${(entry.message!.data as { title: string }).title}`);
    assert.deepEqual(titles, ['event.created Title 0', ...Array.from({ length: 40 }, (_, n) => `event.updated Title ${n + 1}`)]);
    // Active again, it holds nothing: the next write's commit compacts the log (or the save of its position already did).
    const reopened = app.store as FileStore;
    assert.equal((await call(app, 'PUT', `/events/${id}`, { key: admin, body: { title: 'Title 41' } })).status, 200);
    await eventually('a compaction after the next write', () => reopened.stats.lines < 10);
  } finally {
    await app.close();
    await h.close();
    await receiver.close();
  }
});

test('with an active webhook the log is compacted once it has caught up, with no write after', async () => {
  const compactMinBytes = 2000;
  const { h, receiver, webhook: { id: webhookId } } = await harnessWithWebhook({ compactMinBytes });
  const admin = h.keys.admin;
  try {
    const id = (await call(h.app, 'POST', '/events', { key: admin, body: { ...EVENT, title: 'Title 0' } })).json.id;
    for (let n = 1; n <= 40; n++) assert.equal((await call(h.app, 'PUT', `/events/${id}`, { key: admin, body: { title: `Title ${n}` } })).status, 200);
    const store = h.app.store as FileStore;
    // A compaction through the 40th write may come while the 41st message is on its way: both are awaited.
    await eventually('the compaction once every message is acknowledged', () => store.stats.lines < 10 && receiver.received.length >= 41);
    const titles = receiver.received.map((entry) => (entry.message!.data as { title: string }).title);
    assert.deepEqual(titles, Array.from({ length: 41 }, (_, n) => `Title ${n}`), 'every message, in order');
    const webhook = (await call(h.app, 'GET', `/webhooks/${webhookId}`, { key: admin })).json;
    assert.equal(webhook.status, 'active');
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('a compaction makes its log durable only once the webhooks saved positions past what it rewrote: a restart reads no rewritten line as a message', async () => {
  const { h, receiver } = await harnessWithWebhook();
  const admin = h.keys.admin;
  try {
    const id = (await call(h.app, 'POST', '/events', { key: admin, body: { ...EVENT, title: 'Title 0' } })).json.id;
    for (let n = 0; n < 5; n++) assert.equal((await call(h.app, 'POST', `/events/${id}/registrations`, { key: admin, body: { name: `P ${n}`, email: `p${n}@campus.edu` } })).status, 201);
    const store = h.app.store as FileStore;
    const lastSeq = store.changes.lastSeq;
    await eventually('every message acknowledged', () => receiver.received.length >= 6);
    // At once: the batched save of the webhooks' positions (every second) has not come yet.
    assert.notEqual(await store.compact(), undefined);
    const saved = JSON.parse(readFileSync(path.join(h.dataDir, 'webhooks.json'), 'utf8')) as { webhooks: { cursor: { seq: number } }[] };
    assert.ok(saved.webhooks[0]!.cursor.seq >= lastSeq, `saved at seq ${saved.webhooks[0]!.cursor.seq}, the compaction rewrote through ${lastSeq}`);
  } finally {
    await h.close();
    await receiver.close();
  }
});


test('a webhook moves past a series\' own line, which makes no message: caught up, it holds no compaction back', async () => {
  const { h, receiver } = await harnessWithWebhook();
  const admin = h.keys.admin;
  try {
    const series = await call(h.app, 'POST', '/series', { key: admin, body: { ...EVENT, title: 'Seminar', start_time: '2031-03-04T10:00:00Z', end_time: '2031-03-04T11:00:00Z', recurrence: 'FREQ=WEEKLY;COUNT=3' } });
    assert.equal(series.status, 201);
    // Its delete is one line: the occurrences' deletions, then the series' own (the log's last seq), which makes no message.
    assert.equal((await call(h.app, 'DELETE', `/series/${series.json.id}`, { key: admin })).status, 204);
    const store = h.app.store as FileStore;
    const lastSeq = store.changes.lastSeq;
    await eventually('every message acknowledged', () => receiver.received.length >= 6);
    const savedSeq = (): number => (JSON.parse(readFileSync(path.join(h.dataDir, 'webhooks.json'), 'utf8')) as { webhooks: { cursor: { seq: number } }[] }).webhooks[0]!.cursor.seq;
    await eventually(`the saved position reaches the log's last seq, ${lastSeq}`, () => savedSeq() >= lastSeq);
  } finally {
    await h.close();
    await receiver.close();
  }
});
