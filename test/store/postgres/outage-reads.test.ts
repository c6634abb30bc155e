// Reads do not need the database (API.md §12): through a 10 s outage every read of a key under its limit is answered
// from memory, and no key is admitted past its limit over all instances; RateLimit-Remaining never says more is left.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { newEvent, startInstances } from '../../helpers/instances.js';
import { runCli } from '../../helpers/spawn.js';

const pg = usePostgres();

describe('reads while the database is away', { skip, timeout: 180_000 }, () => {
  it('a follower reading on three instances through a 10 s outage (across a sub-window boundary) is refused nothing; a key hammering meanwhile is never admitted past its limit', async (t) => {
    const url = await pg.database('outage');
    const limit = 600;
    // Sub-windows of 10 s: a 10 s outage crosses one boundary, wherever it falls.
    const three = await startInstances(url, 3, ['--rate-limit', String(limit), '--rate-window', '600']);
    try {
      const created = await three.call(0, 'POST', '/events', newEvent(1, 50));
      const { id } = (await created.json()) as { id: string };
      const made = runCli(['keys', 'create', '--name', 'Hammer', '--email', 'hammer@campus.example', '--role', 'reader', '--store', url]);
      assert.equal(made.status, 0, made.stderr);
      const hammerKey = made.stdout.trim();
      // The follower: about 4 reads a second over the three instances, the reads a client makes.
      // (An id no instance knows is a 503 during an outage, not a 404: faults.test.ts.)
      const paths = [`/events/${id}`, '/changes?since=0', '/me', '/events?limit=5', `/events/${id}/registrations`];
      const answers: { at: number; status: number; path: string; instance: number }[] = [];
      let reading = true;
      const follower = (async () => {
        for (let n = 0; reading; n++) {
          const instance = n % 3;
          const path = paths[n % paths.length]!;
          const status = await three.call(instance, n % 7 === 0 ? 'HEAD' : 'GET', path).then((answer) => answer.status, () => 0);
          answers.push({ at: Date.now(), status, path, instance });
          await sleep(250);
        }
      })();
      // Long enough for a steady rate (a key is steady after two requests 0.3 s apart with no 3 s slice without one):
      // the instances then hold the next 15 s ahead, across the sub-window boundary wherever it falls.
      await sleep(8_000);
      const hammer = async (): Promise<number> => {
        let admitted = 0;
        for (let n = 0; n < 250; n++) {
          const answer = await fetch(`${three.servers[n % 3]!.url}/me`, { headers: { authorization: `Bearer ${hammerKey}` } });
          if (answer.ok) admitted++;
          await answer.arrayBuffer();
        }
        return admitted;
      };
      const before = await hammer();
      const downAt = Date.now();
      await pg.server().crashAsync();
      let during = 0;
      while (Date.now() < downAt + 10_000) during += await hammer();
      const upAt = Date.now();
      await pg.server().startAsync();
      await sleep(3_000);
      reading = false;
      await follower;
      const inOutage = answers.filter((answer) => answer.at >= downAt && answer.at <= upAt);
      const refused = answers.filter((answer) => answer.status !== 200);
      t.diagnostic(`follower: ${answers.length} reads, ${inOutage.length} during the ${upAt - downAt} ms outage, refused ${refused.length}; hammer: ${before} admitted before, ${during} during`);
      assert.ok(inOutage.length >= 20, `the follower read during the outage (${inOutage.length})`);
      assert.deepEqual(refused, [], 'no read of the follower was refused');
      assert.ok(before + during <= limit, `the hammering key was admitted ${before} + ${during} times, limit ${limit} over all instances`);
    } finally {
      await three.stop();
    }
  });
});

describe('RateLimit-Remaining over three instances', { skip, timeout: 120_000 }, () => {
  it('30 requests alternating over three instances: each answer\'s RateLimit-Remaining is at most the limit less the requests made so far', async () => {
    const three = await startInstances(await pg.database('remaining'), 3, ['--rate-limit', '30']);
    try {
      const seen: number[] = [];
      for (let n = 1; n <= 30; n++) {
        const answer = await three.call(n % 3, 'GET', '/me');
        assert.equal(answer.status, 200, `request ${n}`);
        seen.push(Number(answer.headers.get('ratelimit-remaining')));
        assert.ok(seen[n - 1]! <= 30 - n, `request ${n}: RateLimit-Remaining ${seen[n - 1]} (so far: ${seen.join(', ')})`);
        await answer.arrayBuffer();
      }
      assert.equal((await three.call(0, 'GET', '/me')).status, 429);
    } finally {
      await three.stop();
    }
  });
});
