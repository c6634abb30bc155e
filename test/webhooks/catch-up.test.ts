// A webhook behind the messages held in memory (paused while more than maxBacklog were written) reads them back
// from the log: all arrive, in order, with no gap; what compaction rewrote meanwhile is reported as a gap instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FileStore } from '../../src/store/file/file-store.js';
import { call, startHarness } from '../helpers/harness.js';
import { EVENT_FIELDS, eventually, startReceiver } from './support.js';

async function setup(): Promise<{ h: Awaited<ReturnType<typeof startHarness>>; receiver: Awaited<ReturnType<typeof startReceiver>>; id: string }> {
  const h = await startHarness({ webhookHosts: ['127.0.0.1'] }, { webhooks: { maxBacklog: 10 } });
  const receiver = await startReceiver();
  const webhook = (await call(h.app, 'POST', '/webhooks', { key: h.keys.admin, body: { url: receiver.url, events: ['event.created'] } })).json;
  receiver.secret = webhook.secret;
  await call(h.app, 'PUT', `/webhooks/${webhook.id}`, { key: h.keys.admin, body: { status: 'paused' } });
  return { h, receiver, id: webhook.id };
}

/** Sets the webhook active, waits for a message per id and checks they are about `ids`, in order; returns the gaps its delivery log reports. */
async function activateAndReceive(s: Awaited<ReturnType<typeof setup>>, ids: readonly string[]): Promise<{ error: string }[]> {
  await call(s.h.app, 'PUT', `/webhooks/${s.id}`, { key: s.h.keys.admin, body: { status: 'active' } });
  await eventually(`${ids.length} messages`, () => s.receiver.received.length >= ids.length);
  assert.deepEqual(s.receiver.received.map((entry) => (entry.message!.data as { id: string }).id), ids);
  const deliveries = (await call(s.h.app, 'GET', `/webhooks/${s.id}/deliveries`, { key: s.h.keys.admin })).json.deliveries;
  return deliveries.filter((entry: { message_id: string | null }) => entry.message_id === null);
}

test('a paused webhook 35 messages behind a backlog of 10 gets all 35 in order once active, read back from the log', async () => {
  const s = await setup();
  const { h, receiver } = s;
  try {
    const created: string[] = [];
    for (let n = 0; n < 35; n++) created.push((await call(h.app, 'POST', '/events', { key: h.keys.admin, body: { ...EVENT_FIELDS, title: `Held ${n}` } })).json.id);
    assert.deepEqual(await activateAndReceive(s, created), [], 'no gap');
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('behind the backlog and behind a compaction: the rewritten stretch is one gap in the delivery log, the rest arrives', async () => {
  const s = await setup();
  const { h, receiver } = s;
  try {
    for (let n = 0; n < 15; n++) {
      const event = (await call(h.app, 'POST', '/events', { key: h.keys.admin, body: { ...EVENT_FIELDS, title: `Early ${n}` } })).json.id;
      await call(h.app, 'DELETE', `/events/${event}`, { key: h.keys.admin });
    }
    await (h.app.store as FileStore).compact();
    const later: string[] = [];
    for (let n = 0; n < 12; n++) later.push((await call(h.app, 'POST', '/events', { key: h.keys.admin, body: { ...EVENT_FIELDS, title: `Later ${n}` } })).json.id);
    const gaps = await activateAndReceive(s, later);
    assert.equal(gaps.length, 1);
    assert.match(gaps[0]!.error, /compacted/);
  } finally {
    await h.close();
    await receiver.close();
  }
});
