// A cut-off instance blocks no one (API.md §12): the session time-outs of connect() free the log's lock its frozen or
// stopped transaction held, the others write again while the cut lasts, and the cut one's batch is rolled back.
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, HOLDS_LOCK, refusedConnection, SESSION_SETTINGS } from '../../../src/store/postgres/client.js';
import { LOG_LOCK } from '../../../src/store/postgres/log-table.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { newEvent, startInstances, type Instances } from '../../helpers/instances.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { contradictions, registeredEmails, registrationLoad, summary, type WriteAnswer } from '../../helpers/write-history.js';

const pg = usePostgres();

/** A batch's first round trip: BEGIN, the log's lock, its id, the catch-up read. */
const takesLogLock = (chunk: Buffer): boolean => chunk.includes(`pg_advisory_xact_lock(${LOG_LOCK})`);

/** Three instances on one database, the third through a proxy of its own, with an event to register for. */
async function threeWithProxy(name: string): Promise<{ three: Instances; proxy: TcpProxy; eventId: string }> {
  const url = await pg.database(name);
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: pg.server().port });
  const three = await startInstances([url, url, url.replace(`:${pg.server().port}/`, `:${proxy.port}/`)], 3);
  const created = await three.call(0, 'POST', '/events', newEvent(1, 100_000));
  assert.equal(created.status, 201);
  return { three, proxy, eventId: ((await created.json()) as { id: string }).id };
}

/** The first 201 of instance `i` for a write started after `at`, ms after `at` (Infinity when none). */
function firstAckAfter(answers: readonly WriteAnswer[], i: number, at: number): number {
  return Math.min(...answers.filter((answer) => answer.instance === i && answer.status === 201 && answer.startedAt >= at).map((answer) => answer.answeredAt - at));
}

/** Waits until `check` holds, polling every `everyMs`; throws naming `what` after `limitMs` (a failure, never a hang of the suite). */
async function until(what: () => string, check: () => boolean, limitMs = 60_000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${limitMs / 1000} s: ${what()}`);
    await sleep(everyMs);
  }
}

/** Every instance holds the same registrations, and no answer contradicts them. */
async function assertAnswersHold(three: Instances, eventId: string, answers: readonly WriteAnswer[]): Promise<void> {
  // The instances follow within a second; a second write waits until each holds every acknowledged one.
  const acked = answers.filter((answer) => answer.status === 201).map((answer) => answer.email);
  for (let i = 0; i < 3; i++) {
    for (let tries = 0; ; tries++) {
      const saved = await registeredEmails(three, i, eventId);
      if (acked.every((email) => saved.has(email)) || tries > 50) break;
      await sleep(100);
    }
  }
  const [a, b, c] = await Promise.all([0, 1, 2].map((i) => registeredEmails(three, i, eventId)));
  assert.deepEqual([...b!].sort(), [...a!].sort(), 'instances A and B hold the same registrations');
  assert.deepEqual([...c!].sort(), [...a!].sort(), 'instances A and C hold the same registrations');
  assert.deepEqual(contradictions(answers, a!), [], summary(answers));
}

describe('connect() session settings', { skip, timeout: 60_000 }, () => {
  it('every session has the idle-in-transaction, lock and TCP time-outs, and no statement time-out; one holding a lock others wait for is ended after 2 s idle', async () => {
    const db = await connect(await pg.database('settings'));
    try {
      const [row] = await db.query<Record<string, string>>(`SELECT current_setting('idle_in_transaction_session_timeout') AS idle, current_setting('lock_timeout') AS lock,
        current_setting('tcp_user_timeout') AS tcp, current_setting('tcp_keepalives_idle') AS keepalive, current_setting('statement_timeout') AS statement`);
      assert.deepEqual(row, { idle: `${SESSION_SETTINGS.idle_in_transaction_session_timeout / 1000}s`, lock: `${SESSION_SETTINGS.lock_timeout / 1000}s`, tcp: '4000', keepalive: '5', statement: '0' });
      // A transaction holding a lock others wait for: 2 s.
      const held = await db.transaction(async (tx) => tx.firstRows[0], `${HOLDS_LOCK}; SELECT current_setting('idle_in_transaction_session_timeout') AS idle`);
      assert.deepEqual(held, { idle: '2s' });
    } finally {
      await db.end();
    }
  });
});

describe('refusedConnection()', { skip, timeout: 60_000 }, () => {
  it('is true of a connection to a port nothing listens on, false of a statement\'s error and of a dropped connection', async () => {
    const url = new URL(await pg.database('refusals'));
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const toNobody = await connect(`postgres://${url.username}@127.0.0.1:${port}${url.pathname}`);
    const nobody = await toNobody.query('SELECT 1').then(() => undefined, (error: unknown) => error);
    await toNobody.end();
    assert.equal(refusedConnection(nobody), true, String(nobody));
    const db = await connect(url.href);
    try {
      const statement = await db.query('SELECT 1/0').then(() => undefined, (error: unknown) => error);
      assert.equal(refusedConnection(statement), false, String(statement));
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(url.port) });
      const viaProxy = await connect(url.href.replace(`:${url.port}/`, `:${proxy.port}/`));
      try {
        const dropped = viaProxy.query('SELECT pg_sleep(5)').then(() => undefined, (error: unknown) => error);
        await sleep(200);
        proxy.drop();
        assert.equal(refusedConnection(await dropped), false, 'a connection reset mid-query');
      } finally {
        await viaProxy.end();
        await proxy.close();
      }
    } finally {
      await db.end();
    }
  });
});

/**
 * How long the cut lasts: three times what the others need to write again (about 2 s) and twice a webhook lease (3 s),
 * so "however long the cut lasts" is tried past every time-out the instances keep.
 */
const CUT_MS = 6_000;

describe('a cut-off instance blocks no one', { skip, timeout: 180_000 }, () => {
  it('its link frozen (a proxy that forwards nothing, sockets open) right after its batch took the log\'s lock: the others write again within the freeze, its batch is rolled back, no answer lies', async (t) => {
    const { three, proxy, eventId } = await threeWithProxy('frozen');
    try {
      const load = registrationLoad(three, eventId);
      await until(() => `C acknowledged 3 writes before the cut (${summary(load.answers)})`, () => load.answers.filter((answer) => answer.instance === 2 && answer.status === 201).length >= 3);
      let cutAt = 0;
      assert.ok(await proxy.strike(takesLogLock, () => {
        proxy.freeze();
        cutAt = Date.now();
      }, 30_000), 'a batch of C took the log\'s lock');
      await sleep(CUT_MS);
      const thawAt = Date.now();
      proxy.thaw();
      // C reconnects, catches up and writes again.
      await until(() => `C acknowledged 2 writes after the thaw (${summary(load.answers.filter((answer) => answer.instance === 2 && answer.startedAt > thawAt))})`, () => load.answers.filter((answer) => answer.instance === 2 && answer.status === 201 && answer.startedAt > thawAt).length >= 2, 60_000, 50);
      await load.stop();
      const [a, b] = [firstAckAfter(load.answers, 0, cutAt), firstAckAfter(load.answers, 1, cutAt)];
      t.diagnostic(`frozen for ${thawAt - cutAt} ms: first write acknowledged after the cut by A in ${a} ms, by B in ${b} ms; ${summary(load.answers)}`);
      assert.ok(a < thawAt - cutAt && b < thawAt - cutAt, `A and B acknowledged writes during the freeze (A after ${a} ms, B after ${b} ms)`);
      // C answered nothing as a success while cut off.
      assert.deepEqual(load.answers.filter((answer) => answer.instance === 2 && answer.status === 201 && answer.answeredAt > cutAt && answer.answeredAt < thawAt).map((answer) => answer.n), []);
      await assertAnswersHold(three, eventId, load.answers);
    } finally {
      proxy.thaw();
      await three.stop();
      await proxy.close();
    }
  });

  it('the instance stopped (SIGSTOP) right after its batch took the log\'s lock: the others write again while it is stopped, and after SIGCONT no answer lies', async (t) => {
    const { three, proxy, eventId } = await threeWithProxy('stopped');
    try {
      const load = registrationLoad(three, eventId);
      await until(() => `C acknowledged 3 writes before the cut (${summary(load.answers)})`, () => load.answers.filter((answer) => answer.instance === 2 && answer.status === 201).length >= 3);
      let cutAt = 0;
      // The proxy only watches for the moment: the instance itself is stopped, its sockets open.
      assert.ok(await proxy.strike(takesLogLock, () => {
        three.pause(2);
        cutAt = Date.now();
      }, 30_000), 'a batch of C took the log\'s lock');
      await sleep(CUT_MS);
      const resumedAt = Date.now();
      three.resume(2);
      await until(() => `C acknowledged 2 writes after SIGCONT (${summary(load.answers.filter((answer) => answer.instance === 2 && answer.startedAt > resumedAt))})`, () => load.answers.filter((answer) => answer.instance === 2 && answer.status === 201 && answer.startedAt > resumedAt).length >= 2, 60_000, 50);
      await load.stop();
      const [a, b] = [firstAckAfter(load.answers, 0, cutAt), firstAckAfter(load.answers, 1, cutAt)];
      t.diagnostic(`stopped for ${resumedAt - cutAt} ms: first write acknowledged after the stop by A in ${a} ms, by B in ${b} ms; ${summary(load.answers)}`);
      assert.ok(a < resumedAt - cutAt && b < resumedAt - cutAt, `A and B acknowledged writes while C was stopped (A after ${a} ms, B after ${b} ms)`);
      await assertAnswersHold(three, eventId, load.answers);
    } finally {
      three.resume(2);
      await three.stop();
      await proxy.close();
    }
  });
});
