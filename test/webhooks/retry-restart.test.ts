// A restart neither hurries nor delays a message (API.md §13, issue 33.5): the next attempt is made when it was due
// (at once if overdue), and the schedule goes on from there. Before, a restarted server tried at once, then waited
// 5 minutes. On a fake clock across a reopen of the app, then with real restarts of a spawned server (file store and
// PostgreSQL) and a real receiver on 127.0.0.1.
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { openApp, type App } from '../../src/app.js';
import { rmSync } from 'node:fs';
import { call, startHarness, tempDir } from '../helpers/harness.js';
import { runCli, spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { skip, usePostgres } from '../helpers/postgres-fixture.js';
import { eventually, EVENT_FIELDS, FakeClock, startReceiver, type Receiver } from './support.js';

const START = Date.parse('2027-03-01T08:00:00Z');
const S = 1000;
const MIN = 60 * S;

interface Delivery {
  attempt: number;
  status: string;
  at: string;
}

/** An app on a fake clock whose receiver answers 500, with one webhook and one event: attempt 1 fails at START. */
async function failingOnce(): Promise<{ app: App; dataDir: string; remove: () => void; receiver: Receiver; webhookId: string; adminKey: string }> {
  const clock = new FakeClock(START);
  const h = await startHarness({ webhookHosts: ['127.0.0.1'] }, { webhooks: { clock } });
  const receiver = await startReceiver({ verify: false });
  receiver.behaviour = 'error';
  const webhook = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: receiver.url, events: ['event.created'] } });
  assert.equal(webhook.status, 201);
  assert.equal((await h.request('POST', '/events', { key: h.keys.admin, body: { title: 'Restart', ...EVENT_FIELDS } })).status, 201);
  await eventually('attempt 1', () => receiver.received.length === 1);
  await logged(h.app, webhook.json.id, h.keys.admin, 1);
  // The test closes the app (it saves the webhooks' state) and keeps the folder for the reopen.
  return { app: h.app, dataDir: h.dataDir, remove: () => rmSync(h.dataDir, { recursive: true, force: true }), receiver, webhookId: webhook.json.id, adminKey: h.keys.admin };
}

/** Waits until the delivery log of webhook `id` holds `count` attempts (the outcome of the last one is known). */
async function logged(app: App, id: string, adminKey: string, count: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const log = (await call(app, 'GET', `/webhooks/${id}/deliveries`, { key: adminKey })).json.deliveries as Delivery[];
    if (log.length >= count) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} attempts in the delivery log (${log.length})`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function reopenAt(dataDir: string, clock: FakeClock): Promise<App> {
  return openApp({ dataDir, keyPollMs: 0, webhookHosts: ['127.0.0.1'] }, { unsafeNoSync: true, webhooks: { clock } });
}

const attemptTimes = (receiver: Receiver): number[] => receiver.received.map((entry) => Number(entry.timestamp) * S - START);

test('a restart 2 s after the first failure waits for the attempt due at 5 s, and the schedule goes on with 5 min after it (issue 33.5)', async () => {
  const first = await failingOnce();
  await first.app.close();
  const clock = new FakeClock(START + 2 * S);
  const app = await reopenAt(first.dataDir, clock);
  try {
    // Before: the reopened app sent at once (at 2 s) and then set its next attempt 5 min away.
    await eventually('the retry timer of the attempt due at 5 s', () => clock.nextTimer === START + 5 * S, 5_000);
    assert.equal(first.receiver.received.length, 1, 'nothing sent on start');
    clock.advanceTo(START + 5 * S);
    await eventually('attempt 2', () => first.receiver.received.length === 2);
    await logged(app, first.webhookId, first.adminKey, 2);
    // Attempt 2 failed at 5 s: the third is 5 min after it, the fourth 30 min after that.
    clock.advanceTo(START + 5 * S + 5 * MIN - 1);
    assert.equal(first.receiver.received.length, 2, 'not before 5 min');
    clock.advanceTo(START + 5 * S + 5 * MIN);
    await eventually('attempt 3', () => first.receiver.received.length === 3);
    assert.deepEqual(attemptTimes(first.receiver), [0, 5 * S, 5 * S + 5 * MIN]);
  } finally {
    await app.close();
    await first.receiver.close();
    first.remove();
  }
});

test('a restart on a clock an hour behind, put right just after: the attempt due at 5 s comes within 10 s of it, not an hour late', async () => {
  const first = await failingOnce();
  await first.app.close();
  // The machine's clock is an hour behind when the server starts (a clock not yet set at boot); NTP then steps it.
  const clock = new FakeClock(START + 2 * S - 60 * MIN);
  const app = await reopenAt(first.dataDir, clock);
  try {
    await eventually('a retry timer', () => clock.nextTimer !== undefined, 5_000);
    clock.stepWall(60 * MIN);
    clock.advanceTo(START + 11 * S);
    // Before: the one timer waited out the hour the wrong clock said was left (due at START + 1 h + 5 s).
    assert.equal(clock.nextTimer, START + 12 * S, 'the clock is looked at again 10 s after the start');
    assert.equal(first.receiver.received.length, 1);
    clock.advanceTo(START + 12 * S);
    await eventually('attempt 2', () => first.receiver.received.length === 2);
    assert.deepEqual(attemptTimes(first.receiver), [0, 12 * S]);
  } finally {
    await app.close();
    await first.receiver.close();
    first.remove();
  }
});

test('a restart after the attempt was due makes it at once, and one in the middle of a 30-minute wait keeps to it (issue 33.5)', async () => {
  const first = await failingOnce();
  await first.app.close();
  const late = new FakeClock(START + 40 * S);
  let app = await reopenAt(first.dataDir, late);
  try {
    await eventually('the overdue attempt 2, at once', () => first.receiver.received.length === 2);
    await logged(app, first.webhookId, first.adminKey, 2);
    late.advanceTo(START + 40 * S + 5 * MIN);
    await eventually('attempt 3, 5 min after attempt 2', () => first.receiver.received.length === 3);
    await logged(app, first.webhookId, first.adminKey, 3);
    assert.deepEqual(attemptTimes(first.receiver), [0, 40 * S, 40 * S + 5 * MIN]);
    await app.close();
    // Attempt 3 failed at 40 s + 5 min: the fourth is due 30 min later. A restart 10 min into that wait changes nothing.
    const middle = new FakeClock(START + 40 * S + 15 * MIN);
    app = await reopenAt(first.dataDir, middle);
    await eventually('a retry timer', () => middle.nextTimer !== undefined, 5_000);
    middle.advanceTo(START + 40 * S + 35 * MIN - 1);
    assert.equal(middle.nextTimer, START + 40 * S + 35 * MIN, 'the clock looked at every 10 s, the last wait to the due time');
    assert.equal(first.receiver.received.length, 3);
    middle.advanceTo(START + 40 * S + 35 * MIN);
    await eventually('attempt 4', () => first.receiver.received.length === 4);
    assert.deepEqual(attemptTimes(first.receiver), [0, 40 * S, 40 * S + 5 * MIN, 40 * S + 35 * MIN]);
    // Its outcome is logged once the receiver's answer is read.
    await logged(app, first.webhookId, first.adminKey, 4);
    const log = (await call(app, 'GET', `/webhooks/${first.webhookId}/deliveries`, { key: first.adminKey })).json.deliveries as Delivery[];
    assert.deepEqual(log.map((entry) => entry.attempt), [4, 3, 2, 1]);
  } finally {
    await app.close();
    await first.receiver.close();
    first.remove();
  }
});

/**
 * The case with a real server: the receiver is down during 20 writes, the server restarts at once and the
 * receiver is back before it is up. The first attempt failed at t0; the second must come at t0 + 5 s (not on start,
 * not 5 minutes later), and succeed.
 */
async function restartScenario(start: () => Promise<SpawnedServer>, adminKey: () => string, stop: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
  const receiver = await startReceiver();
  await receiver.close();
  let server = await start();
  const send = (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${adminKey()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  try {
    const created = await send('POST', '/webhooks', { url: receiver.url, events: ['event.created'] });
    assert.equal(created.status, 201, await created.clone().text());
    const webhook = (await created.json()) as { id: string; secret: string };
    receiver.secret = webhook.secret;
    for (let n = 0; n < 20; n++) assert.equal((await send('POST', '/events', { title: `Write ${n}`, ...EVENT_FIELDS })).status, 201);
    const deliveries = async (): Promise<Delivery[]> => ((await (await send('GET', `/webhooks/${webhook.id}/deliveries`)).json()) as { deliveries: Delivery[] }).deliveries;
    let log: Delivery[] = [];
    await eventually('the first attempt failed', () => {
      // A read still on its way when the server is killed fails: the next poll asks again.
      void deliveries().then((found) => (log = found), () => undefined);
      return log.length >= 1;
    });
    assert.equal(await server.stop(stop), stop === 'SIGTERM' ? 0 : 'SIGKILL');
    await receiver.reopen();
    server = await start();
    await eventually('the first message delivered after the restart', () => receiver.received.length >= 1, 30_000);
    await eventually('all 20 delivered', () => receiver.unique().length >= 20, 30_000);
    log = await deliveries();
    const attempts = log.filter((entry) => entry.attempt > 0).reverse();
    const [failed, retried] = attempts;
    assert.equal(failed?.status, 'failed', JSON.stringify(attempts.slice(0, 3)));
    assert.equal(retried?.status, 'succeeded', JSON.stringify(attempts.slice(0, 3)));
    const waitedMs = Date.parse(retried.at) - Date.parse(failed.at);
    // Not hurried (before: at once on start, about 1 s after the failure), nor delayed (before: 5 minutes).
    assert.ok(waitedMs >= 5 * S, `the second attempt came ${waitedMs} ms after the first failed, before the 5 s it was due`);
    assert.ok(waitedMs < 60 * S, `the second attempt came ${waitedMs} ms after the first failed`);
  } finally {
    await server.stop();
    await receiver.close();
  }
}

test('a real restart of the server (file store) neither hurries nor delays the retry of a message whose receiver was down (issue 33.5)', { timeout: 90_000 }, async () => {
  const { dir, remove } = tempDir('campus-retry-restart-');
  try {
    const made = runCli(['keys', 'create', '--name', 'Ada Admin', '--email', 'ada@campus.edu', '--role', 'admin', '--data-dir', dir]);
    assert.equal(made.status, 0, made.stderr);
    const key = made.stdout.trim();
    await restartScenario(() => spawnServer(['--port', '0', '--data-dir', dir, '--webhook-hosts', '127.0.0.1', '--log-level', 'warn']), () => key);
  } finally {
    remove();
  }
});

test('a crash (kill -9) right after a failed attempt neither hurries the retry nor loses the attempt from the log', { timeout: 90_000 }, async () => {
  // Before: the state of webhooks was saved at most once a second, so a crash within that second forgot the failed
  // attempt; the restarted server sent the message again at once (about 1 s after the failure), as attempt 1.
  const { dir, remove } = tempDir('campus-retry-crash-');
  try {
    const made = runCli(['keys', 'create', '--name', 'Ada Admin', '--email', 'ada@campus.edu', '--role', 'admin', '--data-dir', dir]);
    assert.equal(made.status, 0, made.stderr);
    const key = made.stdout.trim();
    await restartScenario(() => spawnServer(['--port', '0', '--data-dir', dir, '--webhook-hosts', '127.0.0.1', '--log-level', 'warn']), () => key, 'SIGKILL');
  } finally {
    remove();
  }
});

describe('on PostgreSQL', { skip, timeout: 90_000 }, () => {
  const pg = usePostgres();
  it('a real restart of the only instance neither hurries nor delays the retry: the due time comes from the saved attempts and delivery log (issue 33.5)', async () => {
    const url = await pg.database('retry_restart');
    let key = '';
    await restartScenario(async () => {
      const server = await spawnServer(['--port', '0', '--store', url, '--webhook-hosts', '127.0.0.1', '--log-level', 'warn', '--console', 'off']);
      key ||= /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(server.stderr())?.[1] ?? '';
      return server;
    }, () => key);
  });
});

test('a deletion retried after a restart is the same message, byte for byte: its time is the deletion\'s, kept in its log line', async () => {
  const clock = new FakeClock(START);
  const h = await startHarness({ webhookHosts: ['127.0.0.1'] }, { webhooks: { clock } });
  const receiver = await startReceiver({ verify: false });
  receiver.behaviour = 'error';
  let app: App | undefined;
  try {
    const webhook = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: receiver.url, events: ['event.deleted'] } });
    const created = await h.request('POST', '/events', { key: h.keys.admin, body: { title: 'Called off', ...EVENT_FIELDS } });
    assert.equal((await h.request('DELETE', `/events/${created.json.id}`, { key: h.keys.admin })).status, 204);
    await eventually('attempt 1', () => receiver.received.length === 1);
    await logged(h.app, webhook.json.id, h.keys.admin, 1);
    await h.app.close();
    // Read back from the log after the restart (its retry overdue): before, its time was the reading's.
    app = await reopenAt(h.dataDir, new FakeClock(START + 60 * S));
    await eventually('attempt 2, after the restart', () => receiver.received.length === 2);
    const [first, second] = receiver.received;
    assert.equal(second!.id, first!.id);
    assert.equal(second!.body, first!.body);
    assert.match(first!.body, /^\{"type":"event\.deleted","timestamp":"[^"]+","data":\{"id":"evt_/);
  } finally {
    await app?.close();
    await receiver.close();
    rmSync(h.dataDir, { recursive: true, force: true });
  }
});
