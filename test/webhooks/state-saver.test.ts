// StateSaver on a fake clock: lanes' changes saved in batches; a failing save tried again each period, and sending held
// once acknowledged progress has waited more than two periods; released when a save gets through. Then the same
// through WebhookService and a real receiver: a held lane sends nothing until its progress is saved.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { ChangeHistory, type CommittedChange } from '../../src/store/views/change-history.js';
import { toStored } from '../../src/store/views/served-event.js';
import { memoryWebhookState, type WebhookStateStore } from '../../src/store/webhook-state.js';
import { httpDeliveryClient } from '../../src/webhooks/delivery-client.js';
import { hostPolicy } from '../../src/webhooks/host-policy.js';
import { StateSaver } from '../../src/webhooks/state-saver.js';
import { WebhookService } from '../../src/webhooks/webhook-service.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { sampleRecord } from '../store/helpers.js';
import { eventually, FakeClock, startReceiver } from './support.js';

const START = Date.parse('2026-11-28T08:00:00Z');
const EVERY = 250;

/** A memory state store whose saves fail while `failing` is set; `saves` counts those that got through. */
function flakyStore(): WebhookStateStore & { failing: boolean; saves: number } {
  const inner = memoryWebhookState();
  const store = {
    failing: false,
    saves: 0,
    load: () => inner.load(),
    save: async (snapshot: Parameters<WebhookStateStore['save']>[0]) => {
      if (store.failing) throw new Error('the database cannot be reached');
      store.saves++;
      await inner.save(snapshot);
    },
  };
  return store;
}

/** Lets the promises a timer started run (saves resolve on the microtask queue). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('StateSaver holds sending once a change waited more than two periods for a failing save, and releases it when one gets through', async () => {
  const clock = new FakeClock(START);
  const store = flakyStore();
  let released = 0;
  const saver = new StateSaver({ stateStore: store, clock, logger: silentLogger, saveEveryMs: EVERY, snapshot: () => ({ webhooks: [], compactedThrough: 0, logId: 'log' }), released: () => released++ });
  store.failing = true;
  saver.changed(false);
  assert.equal(saver.holding(), false);
  clock.advanceTo(START + EVERY);
  await settle();
  assert.equal(saver.holding(), false, 'one failed save, 250 ms after the change: not yet');
  clock.advanceTo(START + 2 * EVERY + 1);
  await settle();
  assert.equal(saver.holding(), true, 'the change has waited more than two periods');
  store.failing = false;
  clock.advanceTo(START + 3 * EVERY + 1);
  await settle();
  assert.equal(store.saves, 1, 'the failed save is tried again a period later, with no new change to call for it');
  assert.equal(saver.holding(), false);
  assert.equal(released, 1);
  await saver.close();
});

test('StateSaver says once that saves fail, not at every try, and once that they go through again', async () => {
  // A read-only start keeps failing for as long as it runs: a warning a period would be 345,600 lines a day.
  const clock = new FakeClock(START);
  const store = flakyStore();
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', write: (text) => lines.push(text), schedule: (flush) => flush() });
  const saver = new StateSaver({ stateStore: store, clock, logger, saveEveryMs: EVERY, snapshot: () => ({ webhooks: [], compactedThrough: 0, logId: 'log' }), released: () => undefined });
  store.failing = true;
  saver.changed(true);
  for (let period = 1; period <= 40; period++) {
    clock.advanceTo(START + period * EVERY);
    await settle();
  }
  const said = (): string[] => lines.join('').split('\n').filter((line) => line !== '').map((line) => String((JSON.parse(line) as { msg: string }).msg));
  assert.deepEqual(said(), ['could not save the state of webhooks; sending is held until it is saved, tried again shortly']);
  store.failing = false;
  clock.advanceTo(START + 41 * EVERY);
  await settle();
  assert.equal(store.saves, 1);
  assert.deepEqual(said().slice(1), ['the state of webhooks is saved again; sending goes on']);
  saver.changed(true);
  await settle();
  assert.equal(said().length, 2, 'a save that goes through says nothing');
  await saver.close();
});

test('StateSaver: a change made while a save is under way stays unsaved after it', async () => {
  const clock = new FakeClock(START);
  let finish!: () => void;
  const store: WebhookStateStore = { load: () => Promise.reject(new Error('unused')), save: () => new Promise<void>((resolve) => (finish = resolve)) };
  const saver = new StateSaver({ stateStore: store, clock, logger: silentLogger, saveEveryMs: EVERY, snapshot: () => ({ webhooks: [], compactedThrough: 0, logId: 'log' }), released: () => undefined });
  saver.changed(false);
  clock.advanceTo(START + EVERY);
  await settle();
  saver.changed(false);
  finish();
  await settle();
  clock.advanceTo(START + EVERY + 2 * EVERY + 1);
  assert.equal(saver.holding(), true, 'the second change was not in the snapshot saved');
});

test('WebhookService: while the state cannot be saved, a lane holds its next message; it goes out once a save gets through', async () => {
  const receiver = await startReceiver({ verify: false });
  const clock = new FakeClock(START);
  const store = flakyStore();
  const history = new ChangeHistory();
  let lastSeq = 0;
  const service = await WebhookService.open({
    history: { subscribe: (listener) => history.subscribe(listener), onCompacted: (listener) => history.onCompacted(listener), holdCompaction: (hold) => history.holdCompaction(hold), readAfter: () => Promise.resolve({ changes: [], compactedThrough: 0 }) },
    lastSeq: () => lastSeq,
    stateStore: store,
    client: httpDeliveryClient(hostPolicy(['127.0.0.1'])),
    clock,
    randomBytes,
    logger: silentLogger,
    saveEveryMs: EVERY,
  });
  const commit = (): void => {
    lastSeq++;
    const stored = toStored(sampleRecord(lastSeq), lastSeq);
    history.committed([{ record: { seq: lastSeq, op: 'put', stored }, before: undefined, after: stored, touched: [], atMs: 0 } satisfies CommittedChange]);
  };
  try {
    const webhook = await service.create({ url: receiver.url, events: ['event.created'] });
    store.failing = true;
    commit();
    // Its acknowledgement recorded by the lane (the receiver has it a moment before the lane reads the answer).
    await eventually('the first message acknowledged', () => service.get(webhook.id)!.deliveries.length === 1);
    assert.equal(receiver.received.length, 1);
    // Its acknowledgement cannot be saved: two periods and more later, sending is held.
    clock.advanceTo(START + 2 * EVERY + 1);
    await settle();
    commit();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.received.length, 1, 'held: the second message waits for the first one\'s progress to be saved');
    store.failing = false;
    clock.advanceTo(START + 3 * EVERY + 1);
    await eventually('the second message, once the progress is saved', () => receiver.received.length === 2);
  } finally {
    await service.close();
    await receiver.close();
  }
});
