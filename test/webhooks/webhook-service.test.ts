// WebhookService and a store that takes in history past the changes it applied (a PostgreSQL instance that fell behind a
// checkpoint, whose rows were dropped): the changes between were never heard, so a webhook behind them reports a gap
// in its delivery log, as after a compaction, and receives everything after it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { toStored } from '../../src/store/views/served-event.js';
import { ChangeHistory, type ChangeHistorySource, type CommittedChange, type HistoryRead } from '../../src/store/views/change-history.js';
import { memoryWebhookState, type WebhookState } from '../../src/store/webhook-state.js';
import { webhookEtag } from '../../src/webhooks/webhook-routes.js';
import { checkIfMatch } from '../../src/http/conditional.js';
import { httpDeliveryClient } from '../../src/webhooks/delivery-client.js';
import { realClock } from '../../src/webhooks/delivery-lane.js';
import { hostPolicy } from '../../src/webhooks/host-policy.js';
import { WebhookService, type WebhookServiceDeps } from '../../src/webhooks/webhook-service.js';
import { eventId, sampleRecord } from '../store/helpers.js';
import { eventually, EVENT_FIELDS, harnessWithWebhook, reopen, startReceiver } from './support.js';
import { call } from '../helpers/harness.js';
import { rmSync } from 'node:fs';

/** The change a create at `seq` makes. */
function created(n: number, seq: number): CommittedChange {
  const stored = toStored(sampleRecord(n), seq);
  return { record: { seq, op: 'put', stored }, before: undefined, after: stored, touched: [], atMs: 0 };
}

/** `history` as a store offers it to webhooks, reading back `read(since)` from "storage". */
function sourceOf(history: ChangeHistory, read: (since: number) => Promise<HistoryRead> = () => Promise.resolve({ changes: [], compactedThrough: 0 })): ChangeHistorySource {
  return {
    subscribe: (listener) => history.subscribe(listener),
    onCompacted: (listener) => history.onCompacted(listener),
    holdCompaction: (hold, settle) => history.holdCompaction(hold, settle),
    readAfter: read,
  };
}

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as never;

/** A service reading `history`, delivering to 127.0.0.1 on the real clock, its state in memory; `deps` adds or overrides. */
function openService(history: ChangeHistorySource, lastSeq: () => number, deps: Partial<WebhookServiceDeps> = {}): Promise<WebhookService> {
  return WebhookService.open({ history, lastSeq, stateStore: memoryWebhookState(), client: httpDeliveryClient(hostPolicy(['127.0.0.1'])), clock: realClock, randomBytes, logger, ...deps });
}

test('a store that takes in history past what it applied: a webhook behind it reports the gap and gets what follows', async () => {
  const receiver = await startReceiver({ verify: false });
  const history = new ChangeHistory();
  // The durable log as the store would read it back after the checkpoint at seq 20: nothing before it survives.
  const durable: CommittedChange[] = [];
  let lastSeq = 2;
  const source = sourceOf(history, (since) => Promise.resolve({ changes: durable.filter((change) => change.record.seq > since), compactedThrough: lastSeq >= 20 ? 20 : 0 }));
  const service = await openService(source, () => lastSeq);
  try {
    const webhook = await service.create({ url: receiver.url });
    // Heard while the store followed the log: seqs 3 and 4.
    for (const seq of [3, 4]) {
      lastSeq = seq;
      history.committed([created(seq, seq)]);
    }
    await eventually('the two changes heard', () => receiver.received.length >= 2);
    await service.update(webhook.id, { status: 'paused' });
    lastSeq = 5;
    history.committed([created(5, 5)]);
    // The store fell behind a checkpoint at 20 (6 to 20 were never applied here) and takes it in; then 21 comes.
    history.compacted(20);
    lastSeq = 21;
    durable.push(created(21, 21));
    history.committed([created(21, 21)]);
    await service.update(webhook.id, { status: 'active' });
    await eventually('the change after the checkpoint', () => receiver.received.some((entry) => JSON.parse(entry.body).data.id === eventId(21)));
    const ids = receiver.received.map((entry) => (JSON.parse(entry.body) as { data: { id: string } }).data.id);
    assert.deepEqual(ids, [eventId(3), eventId(4), eventId(21)], 'what the checkpoint dropped (5 included, never acknowledged) is not sent out of a hole in memory');
    const gaps = service.get(webhook.id)!.deliveries.filter((entry) => entry.message_id === null);
    assert.equal(gaps.length, 1, JSON.stringify(service.get(webhook.id)!.deliveries));
    assert.match(gaps[0]!.error!, /up to seq 20 were compacted/);
  } finally {
    await service.close();
    await receiver.close();
  }
});

test('an active webhook holds no compaction once its receiver acknowledged everything, saved or not; the compaction then waits for the save', async () => {
  const receiver = await startReceiver({ verify: false });
  const history = new ChangeHistory();
  let lastSeq = 2;
  const source = sourceOf(history);
  // Saves go through until `blocked`; then each waits for `unblock` (a slow disk).
  const state = memoryWebhookState();
  let blocked = false;
  const waiting: (() => void)[] = [];
  const unblock = (): void => {
    blocked = false;
    for (const resolve of waiting.splice(0)) resolve();
  };
  const stateStore = {
    load: () => state.load(),
    save: async (snapshot: Parameters<typeof state.save>[0]) => {
      if (blocked) await new Promise<void>((resolve) => waiting.push(resolve));
      await state.save(snapshot);
    },
  };
  const service = await openService(source, () => lastSeq, { stateStore, saveEveryMs: 60_000 });
  try {
    await service.create({ url: receiver.url });
    blocked = true;
    for (const seq of [3, 4]) {
      lastSeq = seq;
      history.committed([created(seq, seq)]);
    }
    // On the service's record, not the receiver's: the receiver holds a message before the service has read its answer.
    await eventually('both messages acknowledged', () => service.list()[0]!.deliveries.length >= 2);
    // Held by unsaved positions, a log under steady writes was never compacted: the save always lagged the last write.
    assert.equal(history.compactionHeld(() => undefined), undefined, 'caught up: nothing held');
    let settled = false;
    const settling = history.settleCompaction(4, false).then(() => (settled = true));
    await eventually('the save the compaction asked for', () => waiting.length > 0);
    assert.equal(settled, false, 'no compaction is made durable before the positions past it are');
    unblock();
    await settling;
    assert.equal((await state.load()).webhooks[0]!.cursor.seq, 4);
  } finally {
    unblock();
    await service.close();
    await receiver.close();
  }
});

test('a compaction waits for a webhook behind what it rewrote: the one the store started is called off at the deadline, one forced by hand goes ahead', async () => {
  const receiver = await startReceiver({ verify: false });
  const history = new ChangeHistory();
  let lastSeq = 2;
  const source = sourceOf(history);
  const service = await openService(source, () => lastSeq, { settleMs: 200 });
  try {
    const webhook = await service.create({ url: receiver.url });
    // Committed after the compaction's check, before its snapshot; its receiver does not answer.
    receiver.behaviour = 'hang';
    lastSeq = 3;
    history.committed([created(3, 3)]);
    await receiver.until(1);
    await assert.rejects(history.settleCompaction(3, false), new RegExp(`^ReaderBehind: webhook ${webhook.id} has not acknowledged the changes through seq 3`));
    await history.settleCompaction(3, true);
  } finally {
    await service.close();
    await receiver.close();
  }
});

test('opened behind a long log, webhooks read back at once only its last changes, the rest in pieces, and get every message in order', async () => {
  const receiver = await startReceiver({ verify: false });
  const history = new ChangeHistory();
  const durable: CommittedChange[] = [];
  const reads: { since: number; limit: number | undefined }[] = [];
  const source: ChangeHistorySource = {
    ...sourceOf(history),
    readAfter(since, limit) {
      reads.push({ since, limit });
      return Promise.resolve({ changes: durable.filter((change) => change.record.seq > since).slice(0, limit), compactedThrough: 0 });
    },
  };
  const stateStore = memoryWebhookState();
  let lastSeq = 0;
  const open = () => openService(source, () => lastSeq, { stateStore, maxBacklog: 10, startReadBack: 10 });
  const first = await open();
  const webhook = await first.create({ url: receiver.url });
  await first.update(webhook.id, { status: 'paused' });
  await first.close();
  // Written while the server was down (or while the paused webhook's messages left memory): 35 creates.
  for (let seq = 1; seq <= 35; seq++) durable.push(created(seq, seq));
  lastSeq = 35;
  const second = await open();
  try {
    await second.update(webhook.id, { status: 'active' });
    await eventually('35 messages', () => receiver.received.length >= 35);
    const ids = receiver.received.map((entry) => (JSON.parse(entry.body) as { data: { id: string } }).data.id);
    assert.deepEqual(ids, durable.map((change) => eventId(change.record.seq)));
    // The start reads back the last 10 changes (since 25); the webhook, behind them, reads the rest in a piece of its own.
    assert.deepEqual(reads.filter((read) => read.limit === undefined), [{ since: 25, limit: undefined }], JSON.stringify(reads));
    assert.ok(reads.some((read) => read.since === 0 && read.limit !== undefined), JSON.stringify(reads));
  } finally {
    await second.close();
    await receiver.close();
  }
});

test('a webhook whose events select nothing saves its position as changes pass it, so a start does not read them back again', async () => {
  const history = new ChangeHistory();
  let lastSeq = 0;
  const stateStore = memoryWebhookState();
  const service = await openService(sourceOf(history), () => lastSeq, { stateStore });
  try {
    await service.create({ url: 'http://127.0.0.1:9/never', events: ['registration.checked_in'] });
    for (let seq = 1; seq <= 3; seq++) {
      lastSeq = seq;
      history.committed([created(seq, seq)]);
    }
    const savedSeq = async (): Promise<number> => (await stateStore.load()).webhooks[0]?.cursor.seq ?? -1;
    for (const started = Date.now(); (await savedSeq()) < 3 && Date.now() - started < 10_000; ) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await savedSeq(), 3);
  } finally {
    await service.close();
  }
});

test('a webhook whose delete could not be saved stays, and misses nothing the others were sent meanwhile', async () => {
  const kept = await startReceiver({ verify: false });
  const deleted = await startReceiver({ verify: false });
  const history = new ChangeHistory();
  let lastSeq = 2;
  // Saves go through, but for the one held by `gate`, which the test then refuses (a full disk, say).
  const memory = memoryWebhookState();
  let gate: { promise: Promise<void>; reject: (error: Error) => void } | undefined;
  const stateStore = {
    load: () => memory.load(),
    save: async (snapshot: Parameters<typeof memory.save>[0]) => {
      if (gate !== undefined) await gate.promise;
      return memory.save(snapshot);
    },
  };
  const service = await openService(sourceOf(history), () => lastSeq, { stateStore });
  try {
    const a = await service.create({ url: kept.url });
    const b = await service.create({ url: deleted.url });
    await service.update(b.id, { status: 'paused' });
    for (const seq of [3, 4]) {
      lastSeq = seq;
      history.committed([created(seq, seq)]);
    }
    await eventually('the kept webhook got 3 and 4', () => kept.received.length === 2);
    let refuse!: (error: Error) => void;
    gate = { promise: new Promise<void>((_, reject) => (refuse = reject)), reject: (error) => refuse(error) };
    const removal = service.remove(b.id);
    // While the delete is being saved, the kept webhook is sent 5: the messages the other still needs must stay.
    lastSeq = 5;
    history.committed([created(5, 5)]);
    await eventually('the kept webhook got 5', () => kept.received.length === 3);
    const settled = removal.then(() => 'saved', () => 'refused');
    gate.reject(new Error('no room'));
    gate = undefined;
    assert.equal(await settled, 'refused');
    assert.deepEqual(service.list().map((webhook) => webhook.id), [a.id, b.id], 'the delete was not saved: the webhook stays');
    await service.update(b.id, { status: 'active' });
    await eventually('the webhook that stayed got its three messages', () => deleted.received.length >= 3);
    const ids = deleted.received.map((entry) => (JSON.parse(entry.body) as { data: { id: string } }).data.id);
    assert.deepEqual(ids, [eventId(3), eventId(4), eventId(5)]);
    assert.deepEqual(service.get(b.id)!.deliveries.filter((entry) => entry.message_id === null), [], 'no gap');
  } finally {
    await service.close();
    await kept.close();
    await deleted.close();
  }
});

test('a second delete of a webhook whose delete is being saved waits for that save: refused, the second deletes it', async () => {
  const receiver = await startReceiver({ verify: false });
  const memory = memoryWebhookState();
  // While `holding`, a save waits to be refused (a full disk, say) by `refuse`, which it sets; the rest go through.
  let holding = false;
  let refuse: ((error: Error) => void) | undefined;
  const stateStore = {
    load: () => memory.load(),
    save: async (snapshot: Parameters<typeof memory.save>[0]) => {
      if (!holding) return memory.save(snapshot);
      await new Promise<void>((_, reject) => (refuse = reject));
    },
  };
  const history = new ChangeHistory();
  const service = await openService(sourceOf(history), () => 2, { stateStore });
  try {
    const webhook = await service.create({ url: receiver.url });
    holding = true;
    const first = service.remove(webhook.id).then(() => 'deleted', () => 'refused');
    const second = service.remove(webhook.id);
    await eventually('the first save under way', () => refuse !== undefined);
    holding = false;
    refuse!(new Error('no room'));
    assert.equal(await first, 'refused');
    assert.equal(await second, true, 'the second delete found the webhook back, and deleted it');
    assert.equal(service.get(webhook.id), undefined);
    assert.deepEqual((await memory.load()).webhooks, []);
  } finally {
    await service.close();
    await receiver.close();
  }
});

test("an admin's If-Match is judged on the webhook as it is at the change: of two changes made on one read, the second is refused", async () => {
  const receiver = await startReceiver({ verify: false });
  const service = await openService(sourceOf(new ChangeHistory()), () => 0);
  try {
    const webhook = await service.create({ url: receiver.url, description: 'Read' });
    const read = webhookEtag(webhook);
    const ifMatch = (current: WebhookState): void => checkIfMatch(read, webhookEtag(current), `webhook "${current.id}"`);
    // Both passed the route's check on the same read; the second reaches the service after the first changed it.
    const first = service.update(webhook.id, { description: 'One' }, ifMatch);
    const second = service.update(webhook.id, { description: 'Two' }, ifMatch);
    assert.equal((await first)?.description, 'One');
    await assert.rejects(second, (error: Error & { code?: string }) => error.code === 'precondition_failed');
    await assert.rejects(service.remove(webhook.id, ifMatch), (error: Error & { code?: string }) => error.code === 'precondition_failed');
    assert.equal(service.get(webhook.id)?.description, 'One', 'refused: neither the second change nor the delete was made');
  } finally {
    await service.close();
    await receiver.close();
  }
});

test('a stop while an attempt is on the wire waits a moment for its answer: the message it acknowledged is not sent again after the start', async () => {
  const { h, receiver } = await harnessWithWebhook();
  try {
    receiver.behaviour = 'slow';
    assert.equal((await call(h.app, 'POST', '/events', { key: h.keys.admin, body: { title: 'On the wire', ...EVENT_FIELDS } })).status, 201);
    await receiver.until(1);
    // The receiver has the message and answers 204 in 400 ms; the app stops meanwhile.
    await h.app.close();
    receiver.behaviour = 'ok';
    const again = await reopen(h.dataDir);
    try {
      assert.equal((await call(again, 'POST', '/events', { key: h.keys.admin, body: { title: 'After the start', ...EVENT_FIELDS } })).status, 201);
      await receiver.until(2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(receiver.received.map((entry) => (entry.message?.data as { title?: string } | undefined)?.title), ['On the wire', 'After the start'], 'each message once');
    } finally {
      await again.close();
    }
  } finally {
    await receiver.close();
    rmSync(h.dataDir, { recursive: true, force: true });
  }
});
