// Faults with several instances on one database (API.md §12): kill -9 of an instance, and the database stopped and
// restarted, under write load: nothing acknowledged is lost, seats hold, service comes back without restarts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { LOG_LOCK } from '../../../src/store/postgres/log-table.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { newEvent, startInstances, type Instances } from '../../helpers/instances.js';
import { runCli, waitFor } from '../../helpers/spawn.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';

const postgres = usePostgres();

/** What a load had acknowledged, and every status it was answered. */
interface Acked {
  events: string[];
  registrations: string[];
  statuses: Map<number, number>;
}

/** Writes from a few clients, round robin over the instances, until stopped; remembers every acknowledged one. */
function writeLoad(instances: Instances, eventId: string, acked: Acked = { events: [], registrations: [], statuses: new Map() }): Acked & { stop(): Promise<void> } {
  const { events, registrations, statuses } = acked;
  let running = true;
  let n = 0;
  const client = async (c: number): Promise<void> => {
    while (running) {
      const i = n++;
      const target = (i + c) % instances.servers.length;
      try {
        const answer = i % 2 === 0
          ? await instances.call(target, 'POST', '/events', newEvent(i, 5))
          : await instances.call(target, 'POST', `/events/${eventId}/registrations`, { name: `P ${i}`, email: `p${i}@campus.example` });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const body = (await answer.json()) as { id?: string };
        if (answer.status === 201) (i % 2 === 0 ? events : registrations).push(body.id!);
        if (answer.status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
      } catch {
        // The instance died mid-request: not acknowledged, so nothing is owed.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const clients = Array.from({ length: 6 }, (_, c) => client(c));
  return {
    events,
    registrations,
    statuses,
    async stop() {
      running = false;
      await Promise.all(clients);
    },
  };
}

/** Every acknowledged write is on every instance, and the seats of the event hold. */
async function assertAllThere(instances: Instances, eventId: string, load: { events: string[]; registrations: string[] }, capacity: number): Promise<void> {
  for (let i = 0; i < instances.servers.length; i++) {
    // Another instance is at most a moment behind: wait until it has the newest acknowledged event.
    const newest = load.events[load.events.length - 1]!;
    for (let tries = 0; (await instances.call(i, 'GET', `/events/${newest}`)).status !== 200 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const id of load.events) assert.equal((await instances.call(i, 'GET', `/events/${id}`)).status, 200, `event ${id} on instance ${i}`);
    for (const id of load.registrations) assert.equal((await instances.call(i, 'GET', `/events/${eventId}/registrations/${id}`)).status, 200, `registration ${id} on instance ${i}`);
    // Now it holds every acknowledged write, and nothing newer is coming: the counts below are of one state.
    const event = (await (await instances.call(i, 'GET', `/events/${eventId}`)).json()) as { registered_count: number };
    const confirmed = (await (await instances.call(i, 'GET', `/events/${eventId}/registrations?status=confirmed&limit=1`)).json()) as { total: number };
    const all = (await (await instances.call(i, 'GET', `/events/${eventId}/registrations?limit=1`)).json()) as { total: number };
    assert.equal(event.registered_count, confirmed.total, `instance ${i}: registered_count is the confirmed count`);
    // Seats go first come, first served and never past capacity: the waitlist starts only once the event is full.
    assert.equal(confirmed.total, Math.min(capacity, all.total), `instance ${i}: ${confirmed.total} confirmed of ${all.total} registrations for ${capacity} seats`);
  }
}

describe('faults with three instances on one database', { skip, timeout: 120_000 }, () => {
  it('kill -9 of one instance under write load, three rounds: after each, every acknowledged write is on every instance and the seats hold', async () => {
    const three = await startInstances(await postgres.database('kill'), 3);
    try {
      const capacity = 12;
      const { id } = (await (await three.call(0, 'POST', '/events', newEvent(0, capacity))).json()) as { id: string };
      const acked: Acked = { events: [], registrations: [], statuses: new Map() };
      for (let round = 0; round < 3; round++) {
        const load = writeLoad(three, id, acked);
        const before = acked.events.length;
        while (acked.events.length < before + 10) await new Promise((resolve) => setTimeout(resolve, 10));
        // Killed while the others (and its own clients) go on writing.
        await three.killAndRestart(round % 3);
        const restarted = acked.events.length;
        while (acked.events.length < restarted + 10) await new Promise((resolve) => setTimeout(resolve, 10));
        await load.stop();
        await assertAllThere(three, id, acked, capacity);
      }
      assert.ok(acked.registrations.length > capacity, `the event filled and its waitlist grew: ${acked.registrations.length} registrations acknowledged`);
    } finally {
      await three.stop();
    }
  });

  it('the database stopped (immediate) and restarted under load: 503s meanwhile, nothing acknowledged lost, back without restarting instances', async () => {
    const three = await startInstances(await postgres.database('restart'), 3);
    let crashed = false;
    try {
      const { id } = (await (await three.call(0, 'POST', '/events', newEvent(0, 40))).json()) as { id: string };
      const load = writeLoad(three, id);
      while (load.events.length < 10) await new Promise((resolve) => setTimeout(resolve, 10));
      postgres.server().crash();
      crashed = true;
      // While it is down: writes get 503, and /health says 503 on every instance.
      for (let i = 0; i < 3; i++) {
        for (let tries = 0; (await fetch(`${three.servers[i]!.url}/health`).catch((error: unknown) => { throw new Error(`instance ${i} died: ${three.servers[i]!.stderr().slice(-2000)}`, { cause: error }); })).status !== 503; tries++) {
          assert.ok(tries < 200, `instance ${i} noticed the database was gone`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
      while ((load.statuses.get(503) ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      // Their messages name the error's code, never the database's address (/health needs no key).
      const health = await (await fetch(`${three.servers[0]!.url}/health`)).text();
      const refused = await three.call(1, 'POST', '/events', newEvent(1, 5));
      assert.equal(refused.status, 503);
      // 1 s when the store refuses it; 2 s when the rate limit, which counts in the database too, holds no slot for the
      // key on this instance (which the write meets first depends on the timing of its leases).
      assert.ok(['1', '2'].includes(refused.headers.get('retry-after') ?? ''), `a refused write says when to retry: ${refused.headers.get('retry-after')}`);
      const write = await refused.text();
      for (const body of [health, write]) {
        assert.match(body, /cannot be reached:? \(?([A-Z0-9]+|no answer)[;)]/, body);
        assert.doesNotMatch(body, new RegExp(`:${postgres.server().port}|127\\.0\\.0\\.1|/tmp/`), `no address in ${body}`);
      }
      postgres.server().start();
      crashed = false;
      for (let i = 0; i < 3; i++) {
        for (let tries = 0; (await fetch(`${three.servers[i]!.url}/health`)).status !== 200; tries++) {
          assert.ok(tries < 400, `instance ${i} is back`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
      const after = load.events.length;
      while (load.events.length < after + 10) await new Promise((resolve) => setTimeout(resolve, 10));
      await load.stop();
      assert.deepEqual([...load.statuses.keys()].filter((status) => status !== 201 && status !== 503 && status !== 409), [], `only 201, 503 (and 409 for the same e-mail) were answered: ${JSON.stringify([...load.statuses])}`);
      await assertAllThere(three, id, load, 40);
    } finally {
      await three.stop();
      // The tests after this one need the database: a failure while it was down must not leave it so.
      if (crashed) postgres.server().start();
    }
  });
});

describe('an instance paused (SIGSTOP) while another writes', { skip, timeout: 120_000 }, () => {
  it('answers nothing stale once resumed: the read waiting for it, the change feed and a revoked key all see what happened meanwhile (five rounds)', async () => {
    const url = await postgres.database('paused');
    const two = await startInstances(url, 2);
    try {
      const created = (await (await two.call(0, 'POST', '/events', newEvent(0, 10))).json()) as { id: string };
      for (let round = 0; round < 5; round++) {
        // Instance 1 has seen the event as it is now, and knows a key that will be revoked while it is paused.
        const made = runCli(['keys', 'create', '--name', `Reader ${round}`, '--email', `r${round}@campus.edu`, '--role', 'reader', '--store', url, '--json']);
        assert.equal(made.status, 0, made.stderr);
        const reader = JSON.parse(made.stdout) as { id: string; key: string };
        const asReader = (): Promise<Response> => fetch(`${two.servers[1]!.url}/events/${created.id}`, { headers: { authorization: `Bearer ${reader.key}` } });
        for (let tries = 0; (await asReader()).status !== 200; tries++) {
          assert.ok(tries < 100, 'instance 1 knows the new key');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const since = ((await (await two.call(1, 'GET', '/changes?since=0&limit=1000')).json()) as { next_since: number }).next_since;
        two.pause(1);
        const location = `Room ${round}`;
        assert.equal((await two.call(0, 'PUT', `/events/${created.id}`, { location })).status, 200);
        assert.equal(runCli(['keys', 'revoke', reader.id, '--store', url]).status, 0);
        // More than the 1 s (2 s for a key) §12 allows another instance, while instance 1 is still stopped.
        await new Promise((resolve) => setTimeout(resolve, 2_200 + round * 300));
        const read = two.call(1, 'GET', `/events/${created.id}`);
        const changes = two.call(1, 'GET', `/changes?since=${since}`);
        const revoked = asReader();
        await new Promise((resolve) => setTimeout(resolve, 100));
        two.resume(1);
        const answer = await read;
        const body = (await answer.json()) as { location?: string };
        assert.equal(body.location, location, `round ${round}: the read that waited for the resume, answered ${answer.status} ${JSON.stringify(body).slice(0, 300)}`);
        const page = (await (await changes).json()) as { changes: { id: string }[] };
        assert.ok(page.changes.some((entry) => entry.id === created.id), `round ${round}: /changes after the resume lists the update`);
        assert.equal((await revoked).status, 401, `round ${round}: the key revoked meanwhile is refused`);
      }
    } finally {
      await two.stop();
    }
  });
});

describe('a stop signal while the database does not answer', { skip, timeout: 60_000 }, () => {
  it('SIGTERM with the link to the database frozen ends the process within 16 s, saying why (it waited for the database forever)', async () => {
    const url = new URL(await postgres.database('frozen_stop'));
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(url.port) });
    url.port = String(proxy.port);
    const one = await startInstances(url.toString(), 1);
    try {
      assert.equal((await one.call(0, 'POST', '/events', newEvent(0))).status, 201);
      proxy.freeze();
      const started = performance.now();
      one.servers[0]!.child.kill('SIGTERM');
      const code = await one.servers[0]!.exited;
      const seconds = (performance.now() - started) / 1000;
      assert.equal(code, 1);
      assert.ok(seconds < 30, `ended after ${seconds.toFixed(1)} s`);
      assert.match(one.servers[0]!.stderr(), /the store did not close within 16 s of SIGTERM \(its database does not answer, or does not commit: a synchronous standby missing\); exiting without it/);
    } finally {
      proxy.thaw();
      await one.stop();
      await proxy.close();
    }
  });
});

describe('an instance cut off from the database, asked about what another instance wrote', { skip, timeout: 60_000 }, () => {
  it('answers 503, never a 404 or a 410 from memory alone, for an event, a registration and a change-feed position made elsewhere; and the truth once back', async () => {
    const url = new URL(await postgres.database('cut_off_denials'));
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(url.port) });
    const direct = url.toString();
    url.port = String(proxy.port);
    const two = await startInstances([direct, url.toString()], 2);
    try {
      // The key has been served steadily on the instance to cut off (ten requests over a second), so it holds slots of
      // its rate limit for the outage: each second ahead holds its share of that rate (a burst of three in a few ms
      // left it one slot a second, and a slow machine's turn could spend it before the registration came).
      for (let n = 0; n < 10; n++) {
        assert.equal((await two.call(1, 'GET', '/me')).status, 200);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      proxy.freeze();
      const created = await two.call(0, 'POST', '/events', newEvent(0, 5));
      assert.equal(created.status, 201);
      const { id } = (await created.json()) as { id: string };
      const registration = { name: 'Ada', email: 'ada@campus.example' };
      assert.equal((await two.call(0, 'POST', `/events/${id}/registrations`, registration, { 'Idempotency-Key': 'ada-1' })).status, 201);
      const { next_since: since } = (await (await two.call(0, 'GET', '/changes?since=0')).json()) as { next_since: number };
      for (const [method, path, body, headers] of [
        ['GET', `/events/${id}`, undefined, {}],
        ['POST', `/events/${id}/registrations`, registration, { 'Idempotency-Key': 'ada-1' }],
        ['GET', `/changes?since=${since}`, undefined, {}],
      ] as const) {
        const answer = await two.call(1, method, path, body, headers);
        const text = await answer.text();
        assert.equal(answer.status, 503, `${method} ${path}: ${text}`);
        // Either outage answer of §12, never a 404 or 410 from memory: the instance cannot tell whether another wrote
        // it, or (a key it held no rate-limit slot for during the outage, decided before the request is looked at)
        // it cannot count the request. Which one depends on the slots it leased ahead (the catch-up's own answer is
        // checked in test/http/fresh-on-not-found.test.ts).
        assert.match(text, /"error":"unavailable".*(cannot tell whether another one has written it|holds no slot of the limit)/, `${method} ${path}`);
        assert.match(answer.headers.get('retry-after') ?? '', text.includes('cannot tell') ? /^1$/ : /^[1-9]\d*$/);
      }
      proxy.thaw();
      assert.ok(await waitFor(async () => (await two.call(1, "GET", `/events/${id}`)).status === 200, 20_000), "back once the link is");
      const replayed = await two.call(1, 'POST', `/events/${id}/registrations`, registration, { 'Idempotency-Key': 'ada-1' });
      assert.equal(replayed.status, 201);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.equal((await two.call(1, 'GET', `/changes?since=${since}`)).status, 200);
    } finally {
      proxy.thaw();
      await two.stop();
      await proxy.close();
    }
  });
});

describe('commits that wait for a synchronous standby that is not there', { skip, timeout: 60_000 }, () => {
  it('/health says 503 from the write that failed until a commit works again, which the instance finds out by itself with no write coming', async () => {
    const server = postgres.server();
    const one = await startInstances(await postgres.database('no_standby'), 1);
    const requireStandby = async (names: string): Promise<void> => {
      await server.psql(names === '' ? 'ALTER SYSTEM RESET synchronous_standby_names' : `ALTER SYSTEM SET synchronous_standby_names = '${names}'`);
      await server.psql('SELECT pg_reload_conf()');
      // pg_reload_conf() only signals the postmaster. Once a new session (forked from it) sees the value, the postmaster
      // has reloaded and signalled the instance's sessions too: under load, a write could slip in before that.
      assert.ok(await waitFor(async () => (await server.psql('SHOW synchronous_standby_names')).trim() === names, 10_000), `synchronous_standby_names = '${names}' in effect`);
    };
    try {
      assert.equal((await one.call(0, 'GET', '/health')).status, 200);
      // A key the instance holds no slot for needs a lease, which writes too: refused, it turns /health to 503 once a
      // probe finds that commits wait, with no write batch involved; and back to 200 once they do not.
      await requireStandby('nobody');
      const leased = await one.call(0, 'GET', '/events');
      assert.equal(leased.status, 503, await leased.text());
      assert.ok(await waitFor(async () => (await one.call(0, 'GET', '/health')).status === 503, 15_000), '/health says 503 after a lease could not commit');
      await requireStandby('');
      assert.ok(await waitFor(async () => (await one.call(0, 'GET', '/health')).status === 200, 15_000), '/health says 200 once commits work');
      // The key is served steadily first, so the instance holds slots of its rate limit for the time leases cannot commit either.
      for (let n = 0; n < 10; n++) {
        assert.equal((await one.call(0, 'GET', '/me')).status, 200);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Reads still work (the database answers), but no commit can finish: it waits for a standby named "nobody".
      await requireStandby('nobody');
      const hung = await one.call(0, 'POST', '/events', newEvent(1), { 'idempotency-key': 'hung-1' });
      assert.equal(hung.status, 503);
      assert.match(await hung.text(), /"field":"outcome","message":"unknown: /);
      // The database keeps answering the instance's reads all along: /health must not take that for writes working.
      const staysUnhealthy = async (what: string): Promise<void> => {
        for (let n = 0; n < 8; n++) {
          const health = await one.call(0, 'GET', '/health');
          assert.equal(health.status, 503, `/health ${n * 250} ms after ${what}: ${await health.text()}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      };
      await staysUnhealthy('the failed write');
      // The session still waiting for the standby is ended (an administrator's cancel): the log's lock is free, but
      // commits still wait. The instance's own tries must wait too (a transaction that writes nothing never waits).
      assert.match(await server.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"), /^[1-9]/);
      await staysUnhealthy('the waiting session was ended');
      await requireStandby('');
      assert.ok(await waitFor(async () => (await one.call(0, 'GET', '/health')).status === 200, 10_000), '/health says 200 once commits work, with no write sent');
      // The first write committed once the standby was no longer required: its retry replays it, as §12 promises.
      const retried = await one.call(0, 'POST', '/events', newEvent(1), { 'idempotency-key': 'hung-1' });
      assert.equal(retried.status, 201);
      assert.equal(retried.headers.get('idempotent-replayed'), 'true');
    } finally {
      await requireStandby('');
      await one.stop();
    }
  });
});

describe('another instance frozen while it holds the log\'s lock', { skip, timeout: 60_000 }, () => {
  it('a write waiting behind it goes through once the database ends the frozen transaction, and this instance\'s /health says 200 throughout', async () => {
    const url = await postgres.database('frozen_holder');
    const one = await startInstances(url, 1);
    // A session doing what a write batch of the frozen instance did: the lock with its 2 s idle time-out, a statement
    // that runs a moment, then nothing more. The database ends it 2 s after that statement: about 2.4 s from now, past
    // the 2 s a batch may wait for a connection and short of the 3 s lock time-out.
    const frozen = new pg.Client({ connectionString: url });
    frozen.on('error', () => undefined);
    await frozen.connect();
    try {
      assert.equal((await one.call(0, 'POST', '/events', newEvent(1))).status, 201);
      await frozen.query(`BEGIN; SET LOCAL idle_in_transaction_session_timeout = '2s'; SELECT pg_advisory_xact_lock(${LOG_LOCK})`);
      const running = frozen.query('SELECT pg_sleep(0.4)').catch(() => undefined);
      const started = performance.now();
      let answered = false;
      const write = one.call(0, 'POST', '/events', newEvent(2)).finally(() => (answered = true));
      const healths: number[] = [];
      while (!answered) {
        healths.push((await one.call(0, 'GET', '/health')).status);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const answer = await write;
      const waited = performance.now() - started;
      assert.equal(answer.status, 201, `after ${Math.round(waited)} ms: ${await answer.text()}`);
      assert.ok(waited >= 2_000, `the write waited for the lock (${Math.round(waited)} ms)`);
      assert.deepEqual(healths.filter((status) => status !== 200), [], `/health while the write waited: ${healths.join(' ')}`);
      await running;
    } finally {
      await frozen.end().catch(() => undefined);
      await one.stop();
    }
  });
});
