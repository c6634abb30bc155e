// Webhooks with several instances on one PostgreSQL database (API.md §12, §13), over HTTP with real receivers on 127.0.0.1:
// definitions shared at once, one deliverer per webhook in global write order, and a kill -9 of the deliverer taken over.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skip, usePostgres } from '../helpers/postgres-fixture.js';
import { newEvent, startInstances, type Instances } from '../helpers/instances.js';
import { eventually, startReceiver, type Receiver } from './support.js';
import { runCli, spawnServer, waitFor } from '../helpers/spawn.js';
import { tempDir } from '../helpers/harness.js';

const pg = usePostgres();
const HOSTS = ['--webhook-hosts', '127.0.0.1'];

interface Delivery {
  message_id: string;
  status: string;
}

async function json<T>(answer: Promise<Response>): Promise<{ status: number; body: T }> {
  const response = await answer;
  return { status: response.status, body: (response.status === 204 ? undefined : await response.json()) as T };
}

/** Creates events, `count` in all, round robin over the instances, a few at a time; returns their ids. */
async function writeEvents(instances: Instances, count: number, from = 0): Promise<string[]> {
  const ids: string[] = [];
  for (let n = from; n < from + count; n += 4) {
    const batch = await Promise.all([0, 1, 2, 3].filter((k) => n + k < from + count).map((k) => json<{ id: string }>(instances.call((n + k) % instances.servers.length, 'POST', '/events', newEvent(n + k)))));
    for (const created of batch) {
      assert.equal(created.status, 201);
      ids.push(created.body.id);
    }
  }
  return ids;
}

/**
 * The event ids of `instance`'s /changes, once it has read at least the `delivered` ones: the webhook may be delivered
 * by another instance (its lease moved in an outage), which sends its own last writes before this one has read them.
 */
async function globalOrder(instances: Instances, delivered: readonly string[], instance = 0): Promise<string[]> {
  for (let tries = 0; ; tries++) {
    const { body } = await json<{ changes: { id: string }[] }>(instances.call(instance, 'GET', '/changes?since=0&limit=1000'));
    const ids = body.changes.map((change) => change.id);
    if (ids.length >= delivered.length || tries >= 400) return ids;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The event ids of the messages a receiver got, first arrivals only, in arrival order. */
function deliveredIds(receiver: Receiver): string[] {
  return receiver.unique().map((entry) => (entry.message!.data as { id: string }).id);
}

/** Stops the instances and closes the receivers. */
async function stopAll(instances: Instances, ...receivers: Receiver[]): Promise<void> {
  await instances.stop();
  for (const receiver of receivers) await receiver.close();
}

/** Asserts first arrivals came in write order: each message's position (seq, index in its line) after the one before. */
function assertInWriteOrder(receiver: Receiver): void {
  const positions = receiver.unique().map((entry) => entry.id.split('_').slice(2).map(Number) as [number, number]);
  for (let i = 1; i < positions.length; i++) {
    const [seq, index] = positions[i]!;
    const [seqBefore, indexBefore] = positions[i - 1]!;
    assert.ok(seq > seqBefore || (seq === seqBefore && index > indexBefore), `message ${i} (${positions[i]}) after message ${i - 1} (${positions[i - 1]})`);
  }
}

describe('webhooks with several instances on one database', { skip, timeout: 120_000 }, () => {
  it('a webhook made on one instance is read, changed and deleted on the others at once; writes on all reach one receiver once each, in global order', async () => {
    const three = await startInstances(await pg.database('shared_webhooks'), 3, HOSTS);
    const receiver = await startReceiver();
    const stuck = await startReceiver();
    stuck.behaviour = 'hang';
    try {
      const created = await json<{ id: string; secret: string }>(three.call(0, 'POST', '/webhooks', { url: receiver.url, events: ['event.created'] }));
      assert.equal(created.status, 201);
      receiver.secret = created.body.secret;
      const { id } = created.body;
      // A receiver that never answers, on a webhook of its own: it delays no other webhook.
      assert.equal((await three.call(1, 'POST', '/webhooks', { url: stuck.url, events: ['event.created'] })).status, 201);
      for (let i = 0; i < 3; i++) {
        const listed = await json<{ webhooks: Record<string, unknown>[] }>(three.call(i, 'GET', '/webhooks'));
        assert.deepEqual(listed.body.webhooks.map((webhook) => webhook['id']).includes(id), true, `instance ${i} lists the webhook`);
        assert.ok(listed.body.webhooks.every((webhook) => !('secret' in webhook)), 'no secret in a list');
        assert.equal((await three.call(i, 'GET', `/webhooks/${id}`)).status, 200);
      }

      const written = await writeEvents(three, 30);
      await eventually('every event delivered', () => deliveredIds(receiver).length >= written.length);
      assert.deepEqual(deliveredIds(receiver), await globalOrder(three, deliveredIds(receiver)), 'delivered in the global order of /changes');
      assert.equal(receiver.received.length, written.length, 'each message once: the receiver acknowledged every one');
      assert.ok(receiver.received.every((entry) => entry.message !== undefined), 'every message verified with standardwebhooks');
      assertInWriteOrder(receiver);

      for (let i = 0; i < 3; i++) {
        // Another instance reads the delivery log as last saved (at most a moment behind).
        let deliveries: Delivery[] = [];
        for (let tries = 0; deliveries.length < written.length && tries < 200; tries++) {
          deliveries = (await json<{ deliveries: Delivery[] }>(three.call(i, 'GET', `/webhooks/${id}/deliveries`))).body.deliveries;
          if (deliveries.length < written.length) await new Promise((resolve) => setTimeout(resolve, 25));
        }
        assert.equal(deliveries.length, written.length, `instance ${i}: the delivery log`);
        assert.deepEqual(deliveries.map((delivery) => delivery.message_id), receiver.received.map((entry) => entry.id).reverse(), `instance ${i}: newest first`);
        assert.ok(deliveries.every((delivery) => delivery.status === 'succeeded'));
      }

      assert.equal((await json<{ status: string }>(three.call(2, 'PUT', `/webhooks/${id}`, { status: 'paused', description: 'Signage' }))).body.status, 'paused');
      for (let i = 0; i < 3; i++) {
        const read = await json<{ status: string; description: string }>(three.call(i, 'GET', `/webhooks/${id}`));
        assert.deepEqual([read.body.status, read.body.description], ['paused', 'Signage'], `instance ${i} sees the change`);
      }
      // One ETag on every instance; two admins' changes on one read, on two instances at once: one made, one 412.
      const etags = await Promise.all([0, 1, 2].map(async (i) => (await three.call(i, 'GET', `/webhooks/${id}`)).headers.get('etag')));
      assert.ok(etags[0] !== null && etags.every((etag) => etag === etags[0]), `the same ETag everywhere: ${etags.join(' ')}`);
      const raced = await Promise.all(['Lobby', 'Library'].map((description, i) => three.call(i * 2, 'PUT', `/webhooks/${id}`, { description }, { 'If-Match': etags[0]! })));
      assert.deepEqual(raced.map((answer) => answer.status).sort(), [200, 412]);
      const won = (await raced.find((answer) => answer.status === 200)!.json()) as { description: string };
      assert.equal((await json<{ description: string }>(three.call(1, 'GET', `/webhooks/${id}`))).body.description, won.description);
      assert.equal((await three.call(1, 'DELETE', `/webhooks/${id}`, undefined, { 'If-Match': etags[0]! })).status, 412, 'a delete on the old read: refused');
      assert.equal((await three.call(1, 'PUT', `/webhooks/${id}`, { description: 'Signage' })).status, 200);
      // Paused: messages wait, and come in order once active again (whichever instance delivers).
      const whilePaused = await writeEvents(three, 4, 100);
      assert.equal((await three.call(1, 'PUT', `/webhooks/${id}`, { status: 'active' })).status, 200);
      await eventually('the messages held while paused', () => deliveredIds(receiver).length >= written.length + whilePaused.length);
      assert.deepEqual(deliveredIds(receiver), await globalOrder(three, deliveredIds(receiver)));
      assert.equal(stuck.received.length >= 1, true, 'the stuck receiver was tried');

      assert.equal((await three.call(1, 'DELETE', `/webhooks/${id}`)).status, 204);
      for (let i = 0; i < 3; i++) assert.equal((await three.call(i, 'GET', `/webhooks/${id}`)).status, 404, `instance ${i}: deleted`);
    } finally {
      await stopAll(three, receiver, stuck);
    }
  });

  it('a new url set on another instance than the one delivering is tried at once, not when its retry falls due (5 min after a second failure)', async () => {
    const two = await startInstances(await pg.database('moved_url'), 2, HOSTS);
    const failing = await startReceiver();
    failing.behaviour = 'error';
    const fixed = await startReceiver();
    try {
      // Made on instance 0, so instance 0 delivers it; it fails twice (at once, and 5 s later), then waits 5 min.
      const created = await json<{ id: string; secret: string }>(two.call(0, 'POST', '/webhooks', { url: failing.url, events: ['event.created'] }));
      fixed.secret = created.body.secret;
      const [id] = await writeEvents(two, 1);
      await eventually('two failed attempts', () => failing.received.length >= 2, 20_000);
      const onRecord = async (): Promise<boolean> => (await json<{ deliveries: Delivery[] }>(two.call(0, 'GET', `/webhooks/${created.body.id}/deliveries`))).body.deliveries.length >= 2;
      assert.ok(await waitFor(onRecord, 10_000), 'both failures on record');
      assert.equal((await two.call(1, 'PUT', `/webhooks/${created.body.id}`, { url: fixed.url })).status, 200);
      await eventually('the message at the new url', () => fixed.received.length >= 1, 30_000);
      assert.deepEqual([fixed.received[0]!.id, (fixed.received[0]!.message!.data as { id: string }).id], [failing.received[0]!.id, id]);
      assert.equal(failing.received.length, 2, 'nothing more went to the old url');
    } finally {
      await stopAll(two, failing, fixed);
    }
  });

  it('kill -9 of the delivering instance mid-stream: another instance takes over and nothing is lost, in order', async () => {
    const two = await startInstances(await pg.database('takeover'), 2, HOSTS);
    const receiver = await startReceiver();
    const other = await startReceiver();
    try {
      // Made on instance 0, so instance 0 holds its lease and delivers it.
      const created = await json<{ id: string; secret: string }>(two.call(0, 'POST', '/webhooks', { url: receiver.url, events: ['event.created'] }));
      receiver.secret = created.body.secret;
      // Instance 1 delivers one of its own, so it takes the first over with its messages already flowing (a catch-up from the log).
      other.secret = (await json<{ secret: string }>(two.call(1, 'POST', '/webhooks', { url: other.url, events: ['event.created'] }))).body.secret;
      const acknowledged: string[] = [];
      let writing = true;
      const writer = (async () => {
        for (let n = 0; writing || acknowledged.length < 60; n++) {
          const answer = await json<{ id: string }>(two.call(1, 'POST', '/events', newEvent(n)));
          assert.equal(answer.status, 201);
          acknowledged.push(answer.body.id);
        }
      })();
      await eventually('some messages delivered by instance 0', () => receiver.received.length >= 10);
      two.servers[0]!.child.kill('SIGKILL');
      await two.servers[0]!.exited;
      const killedAt = Date.now();
      const receivedAtKill = receiver.received.length;
      writing = false;
      await writer;
      await eventually(`all ${acknowledged.length} acknowledged writes delivered`, () => acknowledged.every((id) => deliveredIds(receiver).includes(id)), 30_000);
      const takeover = receiver.received.length > receivedAtKill ? 'delivered' : 'none';
      console.log(`takeover: ${receiver.received.length - receivedAtKill} attempts after the kill, all delivered ${Date.now() - killedAt} ms after it; ${receiver.received.length - receiver.unique().length} repeated`);
      assert.equal(takeover, 'delivered');
      assert.deepEqual(deliveredIds(receiver), await globalOrder(two, deliveredIds(receiver), 1), 'first arrivals in global order, none lost');
      assertInWriteOrder(receiver);
      await eventually('the other webhook got every write too', () => deliveredIds(other).length >= acknowledged.length);
      assert.deepEqual(deliveredIds(other), deliveredIds(receiver));
      assert.equal(other.received.length, other.unique().length, 'its deliverer never died: each message once');
      // The survivor's delivery log goes on where the dead instance's last save left it.
      // (Its answer is on record a moment after the receiver holds the message.)
      const lastReceived = receiver.received.at(-1)!.id;
      const newest = async (): Promise<string | null | undefined> => (await json<{ deliveries: Delivery[] }>(two.call(1, 'GET', `/webhooks/${created.body.id}/deliveries`))).body.deliveries[0]?.message_id;
      assert.ok(await waitFor(async () => (await newest()) === lastReceived, 20_000), `the newest entry is ${await newest()}, not ${lastReceived}`);
    } finally {
      await stopAll(two, receiver, other);
    }
  });

  it('the database stopped (immediate) and restarted: delivery goes on by itself, nothing lost, in order', async () => {
    const two = await startInstances(await pg.database('db_restart'), 2, HOSTS);
    const receiver = await startReceiver();
    const health = async (i: number, status: number): Promise<void> => {
      for (let tries = 0; (await fetch(`${two.servers[i]!.url}/health`)).status !== status; tries++) {
        assert.ok(tries < 400, `instance ${i}: /health ${status}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    try {
      const created = await json<{ id: string; secret: string }>(two.call(0, 'POST', '/webhooks', { url: receiver.url, events: ['event.created'] }));
      receiver.secret = created.body.secret;
      const before = await writeEvents(two, 10);
      await eventually('the first writes delivered', () => deliveredIds(receiver).length >= before.length);
      // Instance 1 keeps the list as it read it, for reads while the database is away; instance 0 changes the webhook.
      assert.equal((await two.call(1, 'GET', '/webhooks')).status, 200);
      const changed = await two.call(0, 'PUT', `/webhooks/${created.body.id}`, { description: 'Changed on 0' });
      const etag = changed.headers.get('etag')!;
      pg.server().crash();
      await health(0, 503);
      await health(1, 503);
      // A change sent with the ETag of the newest read: 503 (the database is away), never a 412 judged on an old copy.
      const refused = await json<{ error: string }>(two.call(1, 'PUT', `/webhooks/${created.body.id}`, { description: 'During' }, { 'If-Match': etag }));
      assert.deepEqual([refused.status, refused.body.error], [503, 'unavailable']);
      assert.equal((await two.call(1, 'GET', `/webhooks/${created.body.id}`)).status, 200, 'reads go on from what was last read');
      pg.server().start();
      await health(0, 200);
      await health(1, 200);
      const after = await writeEvents(two, 10, 10);
      await eventually('the writes after the restart delivered', () => after.every((id) => deliveredIds(receiver).includes(id)));
      assert.deepEqual(deliveredIds(receiver), await globalOrder(two, deliveredIds(receiver)), 'none lost, in global order');
      assertInWriteOrder(receiver);
    } finally {
      await stopAll(two, receiver);
    }
  });

  it('migrate carries a data folder\'s webhooks: what the folder had not delivered is sent from the database, under the same webhook-ids', async () => {
    const { dir, remove } = tempDir('campus-webhook-migrate-');
    const receiver = await startReceiver();
    receiver.behaviour = 'error';
    let id = '';
    try {
      const fileServer = await spawnServer(['--port', '0', '--data-dir', dir, '--console', 'off', ...HOSTS]);
      const adminKey = /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(fileServer.stderr())![1]!;
      const call = (base: string, method: string, path: string, body?: unknown): Promise<Response> =>
        fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      try {
        const created = await json<{ id: string; secret: string }>(call(fileServer.url, 'POST', '/webhooks', { url: receiver.url, events: ['event.created'] }));
        ({ id } = created.body);
        receiver.secret = created.body.secret;
        for (let n = 0; n < 3; n++) assert.equal((await call(fileServer.url, 'POST', '/events', newEvent(n))).status, 201);
        // The failure on record before the stop (the receiver holds a request before the server has its answer, and a
        // stop abandons an attempt in flight unrecorded).
        const failed = async (): Promise<boolean> => (await json<{ deliveries: Delivery[] }>(call(fileServer.url, 'GET', `/webhooks/${id}/deliveries`))).body.deliveries.length >= 1;
        assert.ok(await waitFor(failed, 20_000), 'the failed attempt is on record');
      } finally {
        await fileServer.stop();
      }
      const url = await pg.database('migrate_webhooks');
      const migrated = runCli(['migrate', '--from', dir, '--to', url]);
      assert.equal(migrated.status, 0, migrated.stderr);
      assert.match(migrated.stdout, / 1 webhooks /);
      receiver.behaviour = 'ok';
      const pgServer = await spawnServer(['--port', '0', '--store', url, '--console', 'off', ...HOSTS]);
      try {
        await eventually('the three messages delivered from the database', () => receiver.unique().length >= 3 && receiver.received.at(-1)!.id === receiver.unique()[2]!.id);
        const firstTried = receiver.received[0]!.id;
        assert.equal(receiver.unique()[0]!.id, firstTried);
        assert.ok(receiver.received.filter((entry) => entry.id === firstTried).length >= 2, 'the message the folder could not deliver was sent again, under its webhook-id');
        assertInWriteOrder(receiver);
        const listed = await json<{ webhooks: { id: string; url: string }[] }>(call(pgServer.url, 'GET', '/webhooks'));
        assert.deepEqual(listed.body.webhooks.map((webhook) => [webhook.id, webhook.url]), [[id, receiver.url]]);
        const deliveries = await json<{ deliveries: Delivery[] }>(call(pgServer.url, 'GET', `/webhooks/${id}/deliveries`));
        assert.equal(deliveries.body.deliveries.at(-1)!.status, 'failed', "the folder's attempts are kept");
      } finally {
        await pgServer.stop();
      }
    } finally {
      await receiver.close();
      remove();
    }
  });
});
