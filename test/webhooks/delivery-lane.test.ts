// DeliveryLane's one deadline timer: each attempt is given up 10 s after it was sent, not 10 s after the attempt that
// armed the timer (API.md §13: a 2xx within 10 s acknowledges); and a stop abandons the attempt in flight without counting it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rmSync } from 'node:fs';
import type { App } from '../../src/app.js';
import { call, startHarness } from '../helpers/harness.js';
import { eventually, EVENT_FIELDS, FakeClock, reopen, startReceiver } from './support.js';

const START = Date.parse('2026-11-25T08:00:00Z');

type Delivery = { status: string; error: string | null; at: string };

/** An app on a fake clock at START with one webhook for event.created to a receiver; `deliveries` reads its log, `logOf` polls it. */
async function fakeClockWebhook() {
  const clock = new FakeClock(START);
  const h = await startHarness({ webhookHosts: ['127.0.0.1'] }, { webhooks: { clock } });
  const receiver = await startReceiver({ verify: false });
  const webhook = (await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: receiver.url, events: ['event.created'] } })).json;
  const deliveries = async (): Promise<Delivery[]> => (await h.request('GET', `/webhooks/${webhook.id}/deliveries`, { key: h.keys.admin })).json.deliveries;
  /** Polls the delivery log until it holds `count` entries; returns it. */
  const logOf = async (count: number): Promise<Delivery[]> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const log = await deliveries();
      if (log.length >= count) return log;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} delivery log entries`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const close = async (): Promise<void> => {
    await receiver.close();
    await h.close();
  };
  return { clock, h, receiver, deliveries, logOf, close };
}

test('DeliveryLane gives up an attempt 10 s after it was sent, though its deadline timer was armed by an earlier one', { timeout: 60_000 }, async () => {
  const { clock, h, receiver, deliveries, logOf, close } = await fakeClockWebhook();
  try {
    // The first message is sent at START (arming the timer for START + 10 s) and acknowledged at once.
    await h.request('POST', '/events', { key: h.keys.admin, body: { ...EVENT_FIELDS, title: 'First' } });
    await eventually('the first acknowledgement', () => receiver.received.length === 1);
    await logOf(1);
    // The second is sent at START + 6 s to a receiver that now hangs: due to be given up at START + 16 s.
    receiver.behaviour = 'hang';
    clock.advanceTo(START + 6_000);
    await h.request('POST', '/events', { key: h.keys.admin, body: { ...EVENT_FIELDS, title: 'Second' } });
    await eventually('the second attempt', () => receiver.received.length === 2);
    clock.advanceTo(START + 10_000);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await deliveries()).length, 1, 'not given up when the timer armed by the first attempt fires');
    clock.advanceTo(START + 15_999);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await deliveries()).length, 1, 'not given up before its 10 s');
    clock.advanceTo(START + 16_000);
    const log = await logOf(2);
    assert.equal(log[0]!.status, 'failed');
    assert.equal(log[0]!.error, 'no answer within 10 s');
    assert.equal(log[0]!.at, new Date(START + 16_000).toISOString());
  } finally {
    await close();
  }
});

test('DeliveryLane gives up an attempt 10 s after it was sent on time that never steps, though the wall clock is set back an hour meanwhile', { timeout: 60_000 }, async () => {
  const { clock, h, receiver, deliveries, logOf, close } = await fakeClockWebhook();
  try {
    receiver.behaviour = 'hang';
    await h.request('POST', '/events', { key: h.keys.admin, body: { ...EVENT_FIELDS, title: 'Hung' } });
    await eventually('the attempt', () => receiver.received.length === 1);
    // NTP sets the clock back an hour 2 s into the attempt; 8 s later (10 s after sending) it is given up all the same.
    clock.advanceTo(START + 2_000);
    clock.stepWall(-3_600_000);
    clock.advanceTo(clock.now() + 7_999);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await deliveries()).length, 0, 'not given up before its 10 s');
    clock.advanceTo(clock.now() + 1);
    const log = await logOf(1);
    assert.equal(log[0]!.error, 'no answer within 10 s');
    assert.equal(log[0]!.at, new Date(START + 10_000 - 3_600_000).toISOString());
  } finally {
    await close();
  }
});

test('DeliveryLane.stop() with an attempt in flight records no attempt: after a restart it is sent at once as attempt 1', { timeout: 60_000 }, async () => {
  const clock = new FakeClock(START);
  const h = await startHarness({ webhookHosts: ['127.0.0.1'] }, { webhooks: { clock } });
  const receiver = await startReceiver({ verify: false });
  let reopened: App | undefined;
  try {
    const webhook = (await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: receiver.url, events: ['event.created'] } })).json;
    receiver.behaviour = 'hang';
    await h.request('POST', '/events', { key: h.keys.admin, body: { ...EVENT_FIELDS, title: 'In flight at the stop' } });
    await eventually('the attempt in flight', () => receiver.received.length === 1);
    // The service stops with the attempt unanswered; the client reports the abort at once. Before, the lane still
    // counted it (attempt 1 "failed: the service stopped") and saved a retry 5 s later, a delay a restart must not add.
    await h.app.close();
    receiver.behaviour = 'ok';
    reopened = await reopen(h.dataDir);
    await eventually('the message sent again after the restart', () => receiver.received.length === 2);
    // The receiver has the message before its answer reaches the lane, which then writes the delivery log.
    type Logged = { attempt: number; status: string; error: string | null };
    let log: Logged[] = [];
    for (const started = Date.now(); log.length === 0 && Date.now() - started < 10_000; await new Promise((resolve) => setTimeout(resolve, 5))) {
      log = (await call(reopened, 'GET', `/webhooks/${webhook.id}/deliveries`, { key: h.keys.admin })).json.deliveries as Logged[];
    }
    assert.deepEqual(log.map(({ attempt, status, error }) => ({ attempt, status, error })), [{ attempt: 1, status: 'succeeded', error: null }]);
  } finally {
    await reopened?.close();
    await receiver.close();
    rmSync(h.dataDir, { recursive: true, force: true });
  }
});
