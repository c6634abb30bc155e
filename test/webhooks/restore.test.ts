// A data folder restored from an older backup: the log ends before the webhooks' positions. New writes must still be
// sent (not skipped as already acknowledged), under message ids a receiver has never seen, and the delivery log says why.
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { call } from '../helpers/harness.js';
import { EVENT_FIELDS as EVENT, eventually, harnessWithWebhook, reopen } from './support.js';

test('a log older than the cursors: the next writes are delivered with a new log name in webhook-id, and the rewind is in the delivery log', async () => {
  const { h, receiver, webhook } = await harnessWithWebhook();
  let app = h.app;
  const admin = h.keys.admin;
  const log = path.join(h.dataDir, 'events.jsonl');
  try {
    await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title: 'Before the backup' } });
    await eventually('the first message', () => receiver.received.length >= 1);
    await app.close();
    copyFileSync(log, `${log}.backup`);
    app = await reopen(h.dataDir);
    for (const title of ['After A', 'After B']) await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title } });
    await eventually('three messages', () => receiver.unique().length >= 3);
    // Acknowledged, not just received: the cursor a stop saves is what tells the next start the log went back.
    const acknowledged = async (): Promise<number> => (await call(app, 'GET', `/webhooks/${webhook.id}/deliveries`, { key: admin })).json.deliveries.length;
    while ((await acknowledged()) < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    await app.close();
    copyFileSync(`${log}.backup`, log);
    app = await reopen(h.dataDir);
    const restored = (await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title: 'After the restore' } })).json.id;
    const about = (id: string) => (entry: { message: { data: unknown } | undefined }): boolean => (entry.message!.data as { id: string }).id === id;
    await eventually('the message after the restore', () => receiver.received.some(about(restored)));
    const last = receiver.received.find(about(restored))!;
    const before = receiver.received.filter((entry) => !about(restored)(entry));
    assert.ok(!before.some((entry) => entry.id === last.id), `a new webhook-id: ${last.id}`);
    assert.notEqual(last.id.split('_')[1], before[0]!.id.split('_')[1], 'a new log name');
    const deliveries = (await call(app, 'GET', `/webhooks/${webhook.id}/deliveries`, { key: admin })).json.deliveries;
    assert.ok(deliveries.some((entry: { message_id: string | null; error: string | null }) => entry.message_id === null && /restored from a backup/.test(entry.error ?? '')));
  } finally {
    await app.close();
    await h.close();
    await receiver.close();
  }
});
