// The database's own failover (API.md §12): instances on a URL naming a primary and its synchronous standby follow the
// standby once it is promoted, with no restart, and lose nothing they acknowledged; on an asynchronous standby left
// behind, they follow it too, with no restart, and serve its log (the writes it never got are lost).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { skipWithoutPostgres } from '../../helpers/postgres-server.js';
import { startPostgresPair } from '../../helpers/postgres-standby.js';
import { newEvent, startInstances } from '../../helpers/instances.js';
import { contradictions, registeredEmails, registrationLoad, summary } from '../../helpers/write-history.js';
import { execFile } from 'node:child_process';
import { SERVER } from '../../helpers/spawn.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';

/** Runs the built server to its end without blocking the event loop (the instances' answers go on meanwhile). */
function runServerAsync(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SERVER, ...args], { timeout: 20_000 }, (error, _stdout, stderr) => resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stderr }));
  });
}

describe('a standby promoted', { skip: skipWithoutPostgres(), timeout: 240_000 }, () => {
  it('the primary killed under load and its synchronous standby promoted: every instance writes again without a restart, every acknowledged write is there, and the old primary started again as a primary stops a new instance from starting and is named by the running ones', async (t) => {
    const pair = await startPostgresPair();
    try {
      const { url, standbyUrl } = await pair.createDatabase('failover');
      const three = await startInstances(url, 3);
      try {
        const created = await three.call(0, 'POST', '/events', newEvent(1, 100_000));
        const { id } = (await created.json()) as { id: string };
        const load = registrationLoad(three, id, { retryUnknownMs: 15_000 });
        while (load.answers.filter((answer) => answer.status === 201).length < 60) await sleep(20);
        pair.killPrimary();
        const killedAt = Date.now();
        await sleep(2_000);
        await pair.promote();
        const promotedAt = Date.now();
        // Each instance acknowledges a write started after the promotion.
        const firstAfter = (i: number): number => Math.min(...load.answers.filter((answer) => answer.instance === i && answer.status === 201 && answer.startedAt >= promotedAt).map((answer) => answer.answeredAt - promotedAt));
        for (let tries = 0; [0, 1, 2].some((i) => firstAfter(i) === Infinity); tries++) {
          assert.ok(tries < 600, `every instance writes again after the promotion: ${[0, 1, 2].map(firstAfter).join(', ')} ms; ${summary(load.answers)}; the last answers: ${JSON.stringify(load.answers.slice(-6))}; logs: ${three.servers.map((server) => server.stderr().slice(-1500)).join('\n---\n')}`);
          await sleep(50);
        }
        const back = [0, 1, 2].map(firstAfter);
        await sleep(1_000);
        await load.stop();
        t.diagnostic(`primary killed, promoted ${promotedAt - killedAt} ms later; writes acknowledged again after ${back.join(', ')} ms on A, B, C; ${summary(load.answers)}`);
        // Every acknowledged write is on the promoted server, as every instance reads it.
        const acked = load.answers.filter((answer) => answer.status === 201).map((answer) => answer.email);
        for (let i = 0; i < 3; i++) {
          let saved = await registeredEmails(three, i, id);
          for (let tries = 0; !acked.every((email) => saved.has(email)) && tries < 50; tries++) {
            await sleep(100);
            saved = await registeredEmails(three, i, id);
          }
          assert.deepEqual(acked.filter((email) => !saved.has(email)), [], `instance ${i} holds every acknowledged write`);
          assert.deepEqual(contradictions(load.answers, saved), []);
        }
        const onStandby = await pair.psqlStandby(`SELECT count(*) FROM campus_log`, standbyUrl.slice(standbyUrl.lastIndexOf('/') + 1));
        assert.ok(Number(onStandby) > 60, `the promoted server holds the log (${onStandby} rows)`);
        // The old primary's machine comes back, and it starts as a primary (nothing made it a standby): a new instance on
        // the URL, which names it first, refuses to start rather than write to it (it holds none of the writes since).
        const SECOND_PRIMARY = /"msg":"another host of the URL is a primary too[^\n]*/;
        for (const server of three.servers) assert.doesNotMatch(server.stderr(), SECOND_PRIMARY, 'no second primary while the old one was down');
        pair.primary.start();
        const fresh = await runServerAsync(['--port', '0', '--store', url, '--console', 'off']);
        assert.equal(fresh.status, 1, fresh.stderr);
        assert.match(fresh.stderr, /more than one primary among the hosts of the URL \(127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+\).*rebuild it as a standby/);
        // The running instances stay on the promoted server.
        const after = await three.call(1, 'POST', '/events', newEvent(2, 10));
        assert.equal(after.status, 201);
        // And the running instances say at once that a second server takes writes (they look every 5 s), naming both.
        for (const [i, server] of three.servers.entries()) {
          for (let tries = 0; !SECOND_PRIMARY.test(server.stderr()); tries++) {
            assert.ok(tries < 150, `instance ${i} warns of the second primary: ${server.stderr().slice(-1500)}`);
            await sleep(100);
          }
          assert.match(SECOND_PRIMARY.exec(server.stderr())![0], new RegExp(`"writing_to":"127\\.0\\.0\\.1:${pair.standbyPort}","other_primary":"127\\.0\\.0\\.1:${pair.primary.port}"`));
        }
        // The old primary takes writes as one does (its wait for a synchronous standby lifted), and the promoted server
        // restarts: the instances, finding only the old one a primary meanwhile, must not move to it (its log ends before
        // what they have read; written to, it would hand out those seqs again and a restart would drop what they hold).
        const database = url.slice(url.lastIndexOf('/') + 1);
        await pair.primary.psql('ALTER SYSTEM RESET synchronous_standby_names');
        await pair.primary.psql('SELECT pg_reload_conf()');
        const staleEnd = (await pair.primary.psql('SELECT max(seq) FROM campus_log', database)).trim();
        await pair.stopStandby();
        const whileDown = await Promise.all([0, 1, 2].map(async (i) => {
          const statuses: number[] = [];
          for (let n = 0; n < 8; n++) {
            statuses.push((await three.call(i, 'POST', '/events', newEvent(10 + n, 10))).status);
            await sleep(250);
          }
          return statuses;
        }));
        const health = await three.call(0, 'GET', '/health');
        const said = (await health.json()) as { message: string };
        await pair.startStandby();
        assert.ok(whileDown.flat().every((status) => status === 503), `writes while the promoted server is down: ${JSON.stringify(whileDown)}`);
        assert.equal(health.status, 503);
        assert.match(said.message, /the only primary that answers, 127\.0\.0\.1:\d+, holds an older log \(it ends at seq \d+; this instance has read \d+\): not writing to it/);
        for (let i = 0; i < 3; i++) {
          let status = 0;
          for (let tries = 0; status !== 201; tries++) {
            assert.ok(tries < 100, `instance ${i} writes again once the promoted server is back: ${three.servers[i]!.stderr().slice(-1500)}`);
            status = (await three.call(i, 'POST', '/events', newEvent(30 + i, 10))).status;
            if (status !== 201) await sleep(100);
          }
          assert.match(three.servers[i]!.stderr(), /holds an older log than this instance has read, or is a former primary started again as one: not writing to it/);
        }
        assert.equal((await pair.primary.psql('SELECT max(seq) FROM campus_log', database)).trim(), staleEnd, 'nothing was written to the old primary');
      } finally {
        await three.stop();
      }
    } finally {
      await pair.stop();
    }
  });

  it('a write whose COMMIT was on its way when the primary was lost is answered as it went, by asking the promoted standby: not "outcome unknown" at 9 s', async (t) => {
    const pair = await startPostgresPair();
    try {
      const { url } = await pair.createDatabase('in_flight');
      // The primary behind a proxy, which tells when a write batch's COMMIT goes by.
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: pair.primary.port });
      const one = await startInstances(url.replace(`:${pair.primary.port},`, `:${proxy.port},`), 1);
      try {
        const { id } = (await (await one.call(0, 'POST', '/events', newEvent(1, 10))).json()) as { id: string };
        await pair.caughtUp();
        const sendsCommit = (chunk: Buffer): boolean => chunk.includes('INSERT INTO campus_log') && chunk.includes('COMMIT');
        // The primary is killed as the COMMIT reaches it, its answer held: it may have committed (its standby with it),
        // or not. Then the link is cut, so the instance knows at once that the answer is lost.
        const struck = proxy.strike(sendsCommit, () => {
          proxy.freeze();
          pair.killPrimary();
          setTimeout(() => proxy.drop({ then: 'refuse' }), 100);
        }, 20_000);
        const sentAt = Date.now();
        const answering = one.call(0, 'POST', `/events/${id}/registrations`, { name: 'In Flight', email: 'inflight@history.example' });
        assert.ok(await struck, 'the proxy saw the COMMIT');
        await sleep(300);
        await pair.promote();
        const answer = await answering;
        const tookMs = Date.now() - sentAt;
        const body = (await answer.json()) as { message?: string };
        t.diagnostic(`answered ${answer.status} ${tookMs} ms after it was sent: ${JSON.stringify(body).slice(0, 200)}`);
        assert.ok(answer.status === 201 || (answer.status === 503 && /nothing of this request was saved/.test(body.message ?? '')), `the write's real outcome, in ${tookMs} ms: ${answer.status} ${JSON.stringify(body)}`);
        // As the promoted server holds it, once the instance has started over there.
        let saved = new Set<string>();
        for (let tries = 0; ; tries++) {
          const health = await one.call(0, 'GET', '/health');
          if (health.status === 200) {
            saved = await registeredEmails(one, 0, id);
            break;
          }
          assert.ok(tries < 200, `the instance writes again: ${await health.text()}`);
          await sleep(50);
        }
        assert.equal(saved.has('inflight@history.example'), answer.status === 201, `answered ${answer.status}; saved: ${[...saved].join(', ')}`);
      } finally {
        await one.stop();
        await proxy.close();
      }
    } finally {
      await pair.stop();
    }
  });

  it('a promotion found on a new connection is followed too: one host name whose server becomes the promoted standby (a proxy moved to it), and two hosts before any write', async () => {
    const pair = await startPostgresPair();
    try {
      const { primaryUrl } = await pair.createDatabase('one_name');
      const { url } = await pair.createDatabase('no_write');
      const target = { host: '127.0.0.1', port: pair.primary.port };
      const proxy = await startTcpProxy(target);
      const behindOneName = primaryUrl.replace(/@[^/]+\//, `@127.0.0.1:${proxy.port}/`);
      // One instance on the one name, with an event; one on both hosts, with none.
      const named = await startInstances(behindOneName, 1);
      const both = await startInstances(url, 1);
      try {
        assert.equal((await named.call(0, 'POST', '/events', newEvent(1, 10))).status, 201);
        await pair.caughtUp();
        pair.killPrimary();
        await sleep(500);
        await pair.promote();
        target.port = pair.standbyPort;
        for (const [name, instances] of [['behind one name', named], ['on both hosts, before any write', both]] as const) {
          let status = 0;
          for (let tries = 0; status !== 201; tries++) {
            assert.ok(tries < 150, `the instance ${name} writes again on the promoted standby: ${instances.servers[0]!.stderr().slice(-2000)}`);
            status = (await instances.call(0, 'POST', '/events', newEvent(2, 10))).status;
            if (status !== 201) await sleep(100);
          }
          assert.equal(instances.servers[0]!.child.exitCode, null, `the instance ${name} was not restarted`);
        }
        assert.match(named.servers[0]!.stderr(), /a standby was promoted: this instance starts over on its log/);
      } finally {
        await named.stop();
        await both.stop();
        await proxy.close();
      }
    } finally {
      await pair.stop();
    }
  });

  it('an asynchronous standby promoted before it had every write: every instance follows it without a restart, and serves its log (what it never got is gone on all, alike)', async (t) => {
    const pair = await startPostgresPair();
    try {
      await pair.primary.psql('ALTER SYSTEM RESET synchronous_standby_names');
      await pair.primary.psql('SELECT pg_reload_conf()');
      const { url } = await pair.createDatabase('behind');
      const two = await startInstances(url, 2);
      try {
        const kept = (await (await two.call(0, 'POST', '/events', newEvent(1, 10))).json()) as { id: string };
        await pair.caughtUp();
        // The standby stops receiving: what the primary acknowledges from now on, it never gets.
        await pair.psqlStandby("ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port=1 user=postgres'");
        await pair.psqlStandby('SELECT pg_reload_conf()');
        for (let tries = 0; (await pair.primary.psql('SELECT count(*) FROM pg_stat_replication')).trim() !== '0'; tries++) {
          assert.ok(tries < 100, 'the standby stops streaming');
          await sleep(100);
        }
        const lost = (await (await two.call(1, 'POST', '/events', newEvent(2, 10))).json()) as { id: string };
        // Both instances have read the write the standby lacks.
        for (let i = 0; i < 2; i++) {
          for (let tries = 0; (await two.call(i, 'GET', `/events/${lost.id}`)).status !== 200; tries++) {
            assert.ok(tries < 100, `instance ${i} reads the write the standby lacks`);
            await sleep(50);
          }
        }
        const pids = two.servers.map((server) => server.child.pid);
        pair.killPrimary();
        await sleep(1_000);
        await pair.promote();
        const promotedAt = Date.now();
        const back: number[] = [];
        for (let i = 0; i < 2; i++) {
          let status = 0;
          for (let tries = 0; status !== 201; tries++) {
            assert.ok(tries < 300, `instance ${i} writes again on the promoted standby: ${two.servers[i]!.stderr().slice(-2000)}`);
            status = (await two.call(i, 'POST', '/events', newEvent(3 + i, 10))).status;
            if (status !== 201) await sleep(100);
          }
          back.push(Date.now() - promotedAt);
        }
        t.diagnostic(`writes acknowledged again ${back.join(' and ')} ms after the promotion`);
        for (let i = 0; i < 2; i++) {
          assert.equal(two.servers[i]!.child.pid, pids[i]);
          assert.equal(two.servers[i]!.child.exitCode, null, `instance ${i} was not restarted`);
          assert.equal((await two.call(i, 'GET', `/events/${kept.id}`)).status, 200, `instance ${i} keeps what the standby had`);
          assert.equal((await two.call(i, 'GET', `/events/${lost.id}`)).status, 404, `instance ${i} serves the promoted log, without what it never got: ${two.servers[i]!.stderr().slice(-3000)}`);
          // Before every write when it looked first; a plain promotion when the other instance had written past its end by then.
          assert.match(two.servers[i]!.stderr(), /a standby was promoted( before it had every write \(asynchronous replication\))?: this instance starts over on its log/);
          const health = await two.call(i, 'GET', '/health');
          assert.equal(health.status, 200);
        }
      } finally {
        await two.stop();
      }
    } finally {
      await pair.stop();
    }
  });
});
