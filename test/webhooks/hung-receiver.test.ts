// A receiver that never answers delays no request and no other webhook (API.md §13), nor the shutdown.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startHarness } from '../helpers/harness.js';
import { eventually, FakeClock, startReceiver } from './support.js';

const WRITES = 200;

test('a hung receiver holds one request open while every POST /events is answered and another webhook gets every message', async () => {
  // The fake clock never moves, so the hung attempt never times out: it stays in flight for the whole test.
  const clock = new FakeClock(Date.now());
  const h = await startHarness({ webhookHosts: ['127.0.0.1'], rateLimit: 1_000_000 }, { webhooks: { clock } });
  const hung = await startReceiver();
  const healthy = await startReceiver();
  hung.behaviour = 'hang';
  let closed = false;
  try {
    for (const receiver of [hung, healthy]) {
      const created = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: receiver.url, events: ['event.created'] } });
      receiver.secret = created.json.secret;
    }
    const answered: number[] = [];
    for (let batch = 0; batch < WRITES / 20; batch++) {
      const responses = await Promise.all(Array.from({ length: 20 }, (_, n) => h.request('POST', '/events', { key: h.keys.admin, body: { title: `Busy ${batch}.${n}`, category: 'social', location: 'Quad', start_time: '2027-05-01T10:00:00Z', end_time: '2027-05-01T12:00:00Z', capacity: 5 } })));
      answered.push(...responses.map((response) => response.status));
    }
    assert.equal(answered.filter((status) => status === 201).length, WRITES, 'every write answered while the receiver hangs');
    await eventually(`${WRITES} messages at the healthy receiver`, () => healthy.received.length >= WRITES);
    assert.equal(hung.received.length, 1, 'the hung receiver got its first message only: one in flight per webhook');
    const log = (await h.request('GET', `/webhooks/${(await h.request('GET', '/webhooks', { key: h.keys.admin })).json.webhooks[0].id}/deliveries`, { key: h.keys.admin })).json;
    assert.deepEqual(log.deliveries, [], 'the hung attempt has no outcome yet');
    // Shutdown does not wait for it either: close() resolves although the attempt is still open.
    await h.close();
    closed = true;
    assert.equal(hung.received.length, 1);
  } finally {
    if (!closed) await h.close();
    await hung.close();
    await healthy.close();
  }
});
