// Compaction and webhooks: a running server still sends what compaction rewrote (its backlog holds it); after a restart,
// what compaction took before a webhook acknowledged it is reported in the delivery log as a gap, never skipped silently.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { FileStore } from '../../src/store/file/file-store.js';
import { createLogger } from '../../src/log/logger.js';
import { call } from '../helpers/harness.js';
import { spawnServer, waitFor } from '../helpers/spawn.js';
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

test('a campus written to without a pause is still compacted while a webhook keeps up, and the webhook misses nothing', async (t) => {
  // As a user runs it: over HTTP, each write synced (in process, writes came slowly enough for the webhook to catch up).
  const dataDir = mkdtempSync(path.join(tmpdir(), 'campus-events-busy-'));
  const received = new Set<string>();
  const receiver = http.createServer((req, res) => {
    received.add(String(req.headers['webhook-id']));
    req.resume();
    req.on('end', () => res.end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const server = await spawnServer(['--data-dir', dataDir, '--port', '0', '--compact-min-bytes', '2000', '--rate-limit', '1000000', '--webhook-hosts', '127.0.0.1']);
  t.after(async () => {
    await server.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  });
  const key = /cek_[0-9A-Za-z]+/.exec(server.stderr())![0];
  const request = async (method: string, target: string, body?: unknown): Promise<{ status: number; json: { id: string } }> => {
    const response = await fetch(`${server.url}${target}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, json: (await response.json()) as { id: string } };
  };
  assert.equal((await request('POST', '/webhooks', { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` })).status, 201);
  const compacted = (): boolean => server.stderr().includes('"msg":"compacted the event log"');
  let writes = 0;
  // Four writers at once, so the webhook always has messages still to send when the server looks.
  const writer = async (lane: number): Promise<void> => {
    const { id } = (await request('POST', '/events', { ...EVENT, title: `Lane ${lane}` })).json;
    writes++;
    for (let n = 1; n <= 150 && !compacted(); n++) {
      assert.equal((await request('PUT', `/events/${id}`, { title: `Lane ${lane}, title ${n}` })).status, 200);
      writes++;
    }
  };
  await Promise.all([1, 2, 3, 4].map(writer));
  assert.ok(compacted(), 'a compaction ran while the writes went on');
  await eventually('every message', () => received.size === writes);
  assert.doesNotMatch(server.stderr(), /compacted out of the log/);
});

test('past a gap, the next message starts its own retry schedule: its first try is attempt 1, not the lost message\'s next', async () => {
  const { h, receiver, webhook } = await harnessWithWebhook();
  let app = h.app;
  const admin = h.keys.admin;
  try {
    receiver.behaviour = 'error';
    await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title: 'Lost, after one failed try' } });
    await receiver.until(1);
    await (app.store as FileStore).compact();
    const after = (await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title: 'After compaction' } })).json.id;
    await app.close();
    receiver.behaviour = 'ok';
    app = await reopen(h.dataDir);
    // The lost message's retry was due 5 s after its failure: the restart keeps that time, then finds the gap.
    await eventually('the message written after the compaction', () => receiver.received.length >= 2);
    assert.equal((receiver.received[1]!.message!.data as { id: string }).id, after);
    // The receiver holds the message before the server holds its answer: the success is on record a moment later.
    let log: { message_id: string | null; attempt: number; status: string }[] = [];
    const recorded = async (): Promise<boolean> => (log = (await call(app, 'GET', `/webhooks/${webhook.id}/deliveries`, { key: admin })).json.deliveries).length >= 3;
    assert.ok(await waitFor(recorded, 20_000), 'three entries in the delivery log');
    assert.deepEqual(log.map((entry) => [entry.message_id === null ? 'gap' : 'message', entry.attempt, entry.status]), [['message', 1, 'succeeded'], ['gap', 0, 'failed'], ['message', 1, 'failed']]);
  } finally {
    await app.close();
    await h.close();
    await receiver.close();
  }
});
