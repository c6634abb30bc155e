// An unknown outcome is never reported as a failure (API.md §12): a COMMIT whose answer is lost is looked for in the
// database, and answered as it went; a restart of the database under load never makes a saved write a "nothing saved".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { newEvent, startInstances, type Instances } from '../../helpers/instances.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';
import { contradictions, outcomeUnknown, registeredEmails, registrationLoad, summary } from '../../helpers/write-history.js';

const pg = usePostgres();

/** A batch's second round trip: its rows, the notification and COMMIT. */
const sendsCommit = (chunk: Buffer): boolean => chunk.includes('INSERT INTO campus_log') && chunk.includes('COMMIT');

async function newEventOn(instances: Instances): Promise<string> {
  const created = await instances.call(0, 'POST', '/events', newEvent(1, 100_000));
  assert.equal(created.status, 201);
  return ((await created.json()) as { id: string }).id;
}

/**
 * Waits until instance `i` says on /health that it writes: a dropped link leaves it refusing writes until its next
 * catch-up goes through (half a second at most), which a write sent at once could meet.
 */
async function writesAgain(instances: Instances, i: number): Promise<void> {
  for (let tries = 0; (await instances.call(i, 'GET', '/health')).status !== 200; tries++) {
    assert.ok(tries < 400, `instance ${i} writes again`);
    await sleep(25);
  }
}

/** Waits until every instance holds the same registrations; returns them. */
async function settledEmails(instances: Instances, eventId: string): Promise<Set<string>> {
  for (let tries = 0; ; tries++) {
    const sets = await Promise.all(instances.servers.map((_, i) => registeredEmails(instances, i, eventId)));
    const same = sets.every((set) => set.size === sets[0]!.size && [...set].every((email) => sets[0]!.has(email)));
    if (same || tries > 50) {
      assert.ok(same, 'every instance holds the same registrations');
      return sets[0]!;
    }
    await sleep(100);
  }
}

describe('a lost COMMIT answer', { skip, timeout: 180_000 }, () => {
  it('the link dropped right after COMMIT went out: the write is answered as it went (201, it committed), never "nothing was saved"', async () => {
    const url = await pg.database('lost_commit');
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: pg.server().port });
    const two = await startInstances([url, url.replace(`:${pg.server().port}/`, `:${proxy.port}/`)], 2);
    try {
      const eventId = await newEventOn(two);
      // Three times: each drop cuts the connection of the batch whose COMMIT just went through the proxy.
      for (let round = 0; round < 3; round++) {
        // 50 ms after the COMMIT went through: the server has it, and its answer is lost with the link.
        await writesAgain(two, 1);
        let dropped!: Promise<void>;
        const struck = proxy.strike(sendsCommit, () => (dropped = new Promise((resolve) => setTimeout(() => resolve(proxy.drop()), 50))), 30_000);
        const answer = await two.call(1, 'POST', `/events/${eventId}/registrations`, { name: `Lost ${round}`, email: `lost${round}@history.example` });
        const body = (await answer.json()) as { error?: string; message?: string };
        assert.ok(await struck, `round ${round}: the proxy saw the COMMIT; the answer was ${answer.status} ${JSON.stringify(body)}`);
        await dropped;
        assert.equal(answer.status, 201, `round ${round}: ${JSON.stringify(body)}`);
      }
      const saved = await settledEmails(two, eventId);
      for (let round = 0; round < 3; round++) assert.ok(saved.has(`lost${round}@history.example`), `round ${round} is saved`);
      // And the instance writes on as before.
      await writesAgain(two, 1);
      const after = await two.call(1, 'POST', `/events/${eventId}/registrations`, { name: 'After', email: 'after@history.example' });
      assert.equal(after.status, 201, JSON.stringify(await after.json()));
    } finally {
      await two.stop();
      await proxy.close();
    }
  });

  it('an instance cut off from the database: a write with an Idempotency-Key is not told that nothing was saved (another instance may have saved it), one without is', async () => {
    const url = await pg.database('cut_off_retry');
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: pg.server().port });
    const two = await startInstances([url, url.replace(`:${pg.server().port}/`, `:${proxy.port}/`)], 2);
    try {
      // Served steadily first, so instance 1 holds slots of the key's rate limit while it is cut off.
      for (let n = 0; n < 10; n++) {
        assert.equal((await two.call(1, 'GET', '/me')).status, 200);
        await sleep(100);
      }
      proxy.drop({ then: 'refuse' });
      for (let tries = 0; (await two.call(1, 'GET', '/health')).status !== 503; tries++) {
        assert.ok(tries < 200, 'instance 1 noticed the database was gone');
        await sleep(25);
      }
      const keyed = await two.call(1, 'POST', '/events', newEvent(3), { 'idempotency-key': 'cut-off-1' });
      assert.equal(keyed.status, 503);
      const keyedBody = (await keyed.json()) as { message: string };
      assert.match(keyedBody.message, /cannot be reached \(.+\), so this request was not sent to it\. An earlier request with this Idempotency-Key may have been saved \(here or on another instance\): retry/);
      assert.doesNotMatch(keyedBody.message, /nothing of this request was saved/);
      const plain = await two.call(1, 'POST', '/events', newEvent(4));
      assert.equal(plain.status, 503);
      assert.match(((await plain.json()) as { message: string }).message, /; nothing of this request was saved\. Retry in a moment\./);
      // Back: nothing was written under the key, so its retry writes now.
      proxy.thaw();
      await writesAgain(two, 1);
      const retried = await two.call(1, 'POST', '/events', newEvent(3), { 'idempotency-key': 'cut-off-1' });
      assert.equal(retried.status, 201);
      assert.equal(retried.headers.get('idempotent-replayed'), null);
    } finally {
      await two.stop();
      await proxy.close();
    }
  });

  it('the database restarted (immediate) under load, retries with the same Idempotency-Key: no answer says nothing was saved of a write that was, and every unknown outcome is resolved by its retry', async (t) => {
    const three = await startInstances(await pg.database('restart_mid_load'), 3);
    try {
      const eventId = await newEventOn(three);
      const load = registrationLoad(three, eventId, { clients: 3, retryUnknownMs: 20_000 });
      for (let round = 0; round < 2; round++) {
        const before = load.answers.length;
        while (load.answers.length < before + 60) await sleep(20);
        await pg.server().restartAsync();
      }
      const after = load.answers.length;
      while (load.answers.length < after + 60) await sleep(20);
      await load.stop();
      const saved = await settledEmails(three, eventId);
      t.diagnostic(`${summary(load.answers)}; retried after an unknown outcome: ${load.answers.filter((answer) => answer.statuses.length > 1).length}`);
      assert.deepEqual(contradictions(load.answers, saved), []);
      // Each unknown outcome was resolved by retrying once the database was back: none is left unknown.
      assert.deepEqual(load.answers.filter((answer) => outcomeUnknown(answer)).map((answer) => answer.n), []);
    } finally {
      await three.stop();
    }
  });
});
