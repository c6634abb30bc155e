// Compaction and webhooks: a running server still sends what compaction rewrote (its backlog holds it); after a restart,
// what compaction took before a webhook acknowledged it is reported in the delivery log as a gap, never skipped silently.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FileStore } from '../../src/store/file/file-store.js';
import { createLogger } from '../../src/log/logger.js';
import { call } from '../helpers/harness.js';
import { EVENT_FIELDS as EVENT, eventually, harnessWithWebhook, reopen } from './support.js';

test('messages a compaction rewrote are sent by the running server, and reported as a gap after a restart', async () => {
  const { h, receiver, webhook } = await harnessWithWebhook();
  let app = h.app;
  const admin = h.keys.admin;
  try {
    const setStatus = async (status: string): Promise<void> => {
      assert.equal((await call(app, 'PUT', `/webhooks/${webhook.id}`, { key: admin, body: { status } })).status, 200);
    };
    const createAndRename = async (title: string): Promise<void> => {
      const id = (await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title } })).json.id;
      await call(app, 'PUT', `/events/${id}`, { key: admin, body: { title: `${title}, renamed` } });
    };

    await setStatus('paused');
    await createAndRename('Live A');
    await createAndRename('Live B');
    assert.notEqual(await (app.store as FileStore).compact(), undefined);
    await setStatus('active');
    await eventually('the four messages held while paused', () => receiver.received.length >= 4);
    assert.deepEqual(receiver.received.map((entry) => entry.message!.type), ['event.created', 'event.updated', 'event.created', 'event.updated']);

    await setStatus('paused');
    await createAndRename('Lost C');
    await createAndRename('Lost D');
    await (app.store as FileStore).compact();
    const after = (await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title: 'After compaction' } })).json.id;
    await app.close();
    const logged: string[] = [];
    app = await reopen(h.dataDir, { logger: createLogger({ level: 'warn', write: (text) => logged.push(text), schedule: (flush) => queueMicrotask(flush) }) });
    await setStatus('active');
    await eventually('the message written after the compaction', () => receiver.received.length >= 5);
    assert.equal(receiver.received[4]!.message!.type, 'event.created');
    assert.equal((receiver.received[4]!.message!.data as { id: string }).id, after);
    const log = (await call(app, 'GET', `/webhooks/${webhook.id}/deliveries`, { key: admin })).json.deliveries;
    const gap = log.find((entry: { message_id: string | null }) => entry.message_id === null);
    assert.ok(gap !== undefined, 'the gap is in the delivery log');
    assert.equal(gap.status, 'failed');
    assert.match(gap.error, /compacted/);
    // And where the operator looks: the server's log names the webhook and what it lost.
    const warning = logged.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line['webhook'] === webhook.id);
    assert.match(String(warning?.['msg']), /compacted out of the log before delivery/);
    assert.ok(Number(warning?.['through_seq']) > Number(warning?.['after_seq']));
    assert.equal(receiver.received.length, 5);
  } finally {
    await app.close();
    await h.close();
    await receiver.close();
  }
});

test('a campus written to without a pause is still compacted while a webhook keeps up, and the webhook misses nothing', async () => {
  const { h, receiver, webhook } = await harnessWithWebhook({ compactMinBytes: 4000 });
  const admin = h.keys.admin;
  const store = h.app.store as FileStore;
  let compacted = false;
  try {
    // Four writers at once: whenever the store looks, the webhook has messages still to send.
    const writer = async (lane: number): Promise<void> => {
      const id = (await call(h.app, 'POST', '/events', { key: admin, body: { ...EVENT, title: `Lane ${lane}` } })).json.id;
      for (let n = 1; n <= 150 && !compacted; n++) {
        assert.equal((await call(h.app, 'PUT', `/events/${id}`, { key: admin, body: { title: `Lane ${lane}, title ${n}` } })).status, 200);
        compacted ||= store.stats.lines < store.stats.lastSeq;
      }
    };
    await Promise.all([1, 2, 3, 4].map(writer));
    assert.ok(compacted, 'a compaction ran while the writes went on');
    await eventually('every message', () => receiver.unique().length === store.stats.lastSeq);
    const deliveries = (await call(h.app, 'GET', `/webhooks/${webhook.id}/deliveries`, { key: admin })).json.deliveries;
    assert.deepEqual(deliveries.filter((entry: { message_id: string | null }) => entry.message_id === null), [], 'no gap');
  } finally {
    await h.close();
    await receiver.close();
  }
});
