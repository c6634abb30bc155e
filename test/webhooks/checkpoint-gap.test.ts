// Checkpoints and webhooks on PostgreSQL, as compaction and webhooks on a data folder (compaction-gap.test.ts): a running
// instance still sends what a checkpoint replaced (its backlog holds it); after a restart, what the checkpoint dropped
// before a webhook acknowledged it is reported in the delivery log as a gap, never skipped silently.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { openApp, type App } from '../../src/app.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { connect } from '../../src/store/postgres/client.js';
import { createLogger } from '../../src/log/logger.js';
import { call } from '../helpers/harness.js';
import { skip, usePostgres } from '../helpers/postgres-fixture.js';
import { EVENT_FIELDS as EVENT, eventually, startReceiver } from './support.js';

const pg = usePostgres();

function appOn(url: string): Promise<App> {
  return openApp({ store: url, console: false, webhookHosts: ['127.0.0.1'], compactMinBytes: Number.MAX_SAFE_INTEGER }, {});
}

describe('webhooks across a checkpoint', { skip, timeout: 180_000 }, () => {
  it('messages a checkpoint replaced are sent by the running instance, and reported as a gap by the next one', async () => {
    const url = await pg.database('webhook_checkpoint');
    let app = await appOn(url);
    const admin = app.initialAdminKey!;
    const receiver = await startReceiver();
    try {
      const webhook = (await call(app, 'POST', '/webhooks', { key: admin, body: { url: receiver.url } })).json;
      receiver.secret = webhook.secret;
      const setStatus = async (status: string): Promise<void> => {
        assert.equal((await call(app, 'PUT', `/webhooks/${webhook.id}`, { key: admin, body: { status } })).status, 200);
      };
      const createAndRename = async (title: string): Promise<void> => {
        const id = (await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title } })).json.id;
        await call(app, 'PUT', `/events/${id}`, { key: admin, body: { title: `${title}, renamed` } });
      };
      const checkpoint = async (): Promise<void> => assert.ok('written' in (await (app.store as PostgresStore).checkpoint()));

      await setStatus('paused');
      await createAndRename('Live A');
      await createAndRename('Live B');
      await checkpoint();
      await setStatus('active');
      await eventually('the four messages held while paused', () => receiver.received.length >= 4);
      assert.deepEqual(receiver.received.map((entry) => entry.message!.type), ['event.created', 'event.updated', 'event.created', 'event.updated']);

      await setStatus('paused');
      await createAndRename('Lost C');
      await createAndRename('Lost D');
      await checkpoint();
      const after = (await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title: 'After the checkpoint' } })).json.id;
      await app.close();
      app = await appOn(url);
      await setStatus('active');
      await eventually('the message written after the checkpoint', () => receiver.received.length >= 5);
      assert.equal(receiver.received[4]!.message!.type, 'event.created');
      assert.equal((receiver.received[4]!.message!.data as { id: string }).id, after);
      const log = (await call(app, 'GET', `/webhooks/${webhook.id}/deliveries`, { key: admin })).json.deliveries;
      const gap = log.find((entry: { message_id: string | null }) => entry.message_id === null);
      assert.ok(gap !== undefined, 'the gap is in the delivery log');
      assert.equal(gap.status, 'failed');
      assert.match(gap.error, /compacted/);
      assert.equal(receiver.received.length, 5);
    } finally {
      await app.close();
      await receiver.close();
    }
  });

  it('a checkpoint waits for a webhook delivering in good order to acknowledge the rows it drops, on whichever instance delivers it', async () => {
    const url = await pg.database('webhook_checkpoint_wait');
    const first = await appOn(url);
    const second = await appOn(url);
    const admin = first.initialAdminKey!;
    // A receiver that holds its answers until told, then answers every one at once with 200.
    const held: (() => void)[] = [];
    let answered = 0;
    let holding = true;
    const slow = http.createServer((req, res) => {
      req.resume();
      const answer = (): void => {
        answered++;
        res.end();
      };
      if (holding) held.push(answer);
      else answer();
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const address = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook`;
      assert.equal((await call(first, 'POST', '/webhooks', { key: admin, body: { url: address } })).status, 201);
      for (const title of ['One', 'Two', 'Three']) assert.equal((await call(second, 'POST', '/events', { key: admin, body: { ...EVENT, title } })).status, 201);
      await eventually('the first message on the wire', () => held.length === 1);
      const checkpoint = (second.store as PostgresStore).checkpoint();
      let written = false;
      void checkpoint.then(() => (written = true));
      // The checkpoint's transaction waits, reading the webhooks' positions, while the webhook delivered by the other
      // instance has not acknowledged the rows it would drop.
      const watcher = await connect(url);
      try {
        const deadline = performance.now() + 10_000;
        for (let waiting = false; !waiting; await new Promise((resolve) => setTimeout(resolve, 20))) {
          const [row] = await watcher.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'idle in transaction' AND query LIKE '%FROM campus_webhooks WHERE (cursor_seq <%'");
          waiting = row!.n > 0;
          if (!waiting && (written || performance.now() > deadline)) assert.fail('the checkpoint never waited for the webhook');
        }
      } finally {
        await watcher.end();
      }
      assert.equal(written, false);
      holding = false;
      for (const answer of held.splice(0)) answer();
      const outcome = await checkpoint;
      assert.ok('written' in outcome, JSON.stringify(outcome));
      assert.equal(answered, 3, 'every message was acknowledged before the rows went');
      const log = (await call(first, 'GET', `/webhooks`, { key: admin })).json.webhooks[0];
      const deliveries = (await call(first, 'GET', `/webhooks/${log.id}/deliveries`, { key: admin })).json.deliveries;
      assert.deepEqual(deliveries.filter((entry: { message_id: string | null }) => entry.message_id === null), [], 'no gap');
    } finally {
      for (const answer of held.splice(0)) answer();
      await first.close();
      await second.close();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it('a campus written to without a pause still gets its checkpoints while a webhook keeps up', async () => {
    const url = await pg.database('webhook_checkpoint_busy');
    // The webhook is delivered by one instance, which writes no checkpoint; the writes and checkpoints are the other's,
    // which knows the webhook's position as last saved (every 250 ms): always behind the newest write.
    const delivering = await appOn(url);
    const app = await openApp({ store: url, console: false, webhookHosts: ['127.0.0.1'], compactMinBytes: 2000 }, {});
    const receiver = await startReceiver();
    try {
      const admin = delivering.initialAdminKey!;
      const webhook = (await call(delivering, 'POST', '/webhooks', { key: admin, body: { url: receiver.url } })).json;
      receiver.secret = webhook.secret;
      // The writing instance reads the list of webhooks (as its timer does every few seconds).
      assert.equal((await call(app, 'GET', '/webhooks', { key: admin })).json.webhooks.length, 1);
      // Four writers at once, so the webhook always has messages still to send.
      const writer = async (lane: number): Promise<void> => {
        const id = (await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title: `Lane ${lane}` } })).json.id;
        for (let n = 1; n <= 1000 && (app.store as PostgresStore).checkpointSeen.seq === 0; n++) {
          assert.equal((await call(app, 'PUT', `/events/${id}`, { key: admin, body: { title: `Lane ${lane}, title ${n}` } })).status, 200);
        }
      };
      await Promise.all([1, 2, 3, 4].map(writer));
      assert.ok((app.store as PostgresStore).checkpointSeen.seq > 0, 'a checkpoint was written by itself while the writes went on');
      await eventually('every message', () => receiver.unique().length === (app.store as PostgresStore).lastSeq);
      const deliveries = (await call(delivering, 'GET', `/webhooks/${webhook.id}/deliveries`, { key: admin })).json.deliveries;
      assert.deepEqual(deliveries.filter((entry: { message_id: string | null }) => entry.message_id === null), [], 'no gap');
    } finally {
      await app.close();
      await delivering.close();
      await receiver.close();
    }
  });

  it('a checkpoint a webhook more than 10 s behind called off is warned of, and written once it caught up, though no write comes', { timeout: 90_000 }, async () => {
    const url = await pg.database('webhook_checkpoint_called_off');
    const logged: string[] = [];
    const logger = createLogger({ level: 'warn', write: (text) => logged.push(text), schedule: (flush) => queueMicrotask(flush) });
    const app = await openApp({ store: url, console: false, webhookHosts: ['127.0.0.1'], compactMinBytes: 2000, logger }, {});
    // A receiver that takes 150 ms over each answer: 100 writes in a burst leave it some 15 s behind.
    const slow = http.createServer((req, res) => {
      req.resume();
      setTimeout(() => res.end(), 150);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const admin = app.initialAdminKey!;
      assert.equal((await call(app, 'POST', '/webhooks', { key: admin, body: { url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook` } })).status, 201);
      const id = (await call(app, 'POST', '/events', { key: admin, body: { ...EVENT, title: 'Title 0' } })).json.id;
      await Promise.all(Array.from({ length: 4 }, async (_, lane) => {
        for (let n = 1; n <= 25; n++) assert.equal((await call(app, 'PUT', `/events/${id}`, { key: admin, body: { title: `Title ${lane}.${n}` } })).status, 200);
      }));
      const lastSeq = (app.store as PostgresStore).lastSeq;
      await eventually('the warning', () => logged.some((line) => line.includes('a checkpoint was called off')), 30_000);
      assert.equal(logged.filter((line) => line.includes('a checkpoint was called off')).length, 1, 'once');
      await eventually('a checkpoint once the webhook caught up', () => (app.store as PostgresStore).checkpointSeen.seq > 0, 60_000);
      assert.equal((app.store as PostgresStore).lastSeq, lastSeq, 'with no write since the burst');
    } finally {
      await app.close();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it('a webhook paused on one instance holds back the checkpoints another would write, so after restarts it gets every message', async () => {
    const url = await pg.database('webhook_checkpoint_hold');
    const small = (): Promise<App> => openApp({ store: url, console: false, webhookHosts: ['127.0.0.1'], compactMinBytes: 2000 }, {});
    let first = await small();
    let second = await small();
    const admin = first.initialAdminKey!;
    const receiver = await startReceiver();
    try {
      const webhook = (await call(first, 'POST', '/webhooks', { key: admin, body: { url: receiver.url } })).json;
      receiver.secret = webhook.secret;
      assert.equal((await call(first, 'PUT', `/webhooks/${webhook.id}`, { key: admin, body: { status: 'paused' } })).status, 200);
      // The other instance reads the list of webhooks (as its timer does every few seconds).
      assert.equal((await call(second, 'GET', `/webhooks`, { key: admin })).json.webhooks[0].status, 'paused');
      const id = (await call(second, 'POST', '/events', { key: admin, body: { ...EVENT, title: 'Title 0' } })).json.id;
      for (let n = 1; n <= 40; n++) assert.equal((await call(second, 'PUT', `/events/${id}`, { key: admin, body: { title: `Title ${n}` } })).status, 200);
      const due = await (second.store as PostgresStore).checkpoint({ due: true });
      assert.ok('written' in due, 'a checkpoint asked for by hand is written whatever holds it back');
      const checkpointSeq = (second.store as PostgresStore).checkpointSeen.seq;
      for (let n = 41; n <= 60; n++) assert.equal((await call(second, 'PUT', `/events/${id}`, { key: admin, body: { title: `Title ${n}` } })).status, 200);
      assert.equal((second.store as PostgresStore).checkpointSeen.seq, checkpointSeq, 'none written by itself while the webhook is paused');
      await first.close();
      await second.close();
      first = await small();
      second = await small();
      assert.equal((await call(first, 'PUT', `/webhooks/${webhook.id}`, { key: admin, body: { status: 'active' } })).status, 200);
      await eventually('the messages after the checkpoint, held while paused', () => receiver.received.length >= 20);
      const titles = receiver.received.map((entry) => (entry.message!.data as { title: string }).title);
      assert.deepEqual(titles, Array.from({ length: 20 }, (_, n) => `Title ${n + 41}`));
    } finally {
      await first.close();
      await second.close();
      await receiver.close();
    }
  });
});
