// Three instances on one PostgreSQL database, over HTTP (API.md §12): seats, Idempotency-Key and /changes hold across them
// (If-Match races: if-match-races.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { newEvent, startInstances, type Instances } from '../../helpers/instances.js';
import { runCli } from '../../helpers/spawn.js';

const pg = usePostgres();

describe('three instances on one database', { skip, timeout: 120_000 }, () => {
  let three: Instances;
  before(async () => {
    three = await startInstances(await pg.database('three'), 3);
  });
  after(() => three?.stop());

  it('500 simultaneous registrations for 100 seats spread over three instances confirm exactly 100', async () => {
    const created = await three.call(0, 'POST', '/events', newEvent(1, 100));
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, n) => three.call(n % 3, 'POST', `/events/${id}/registrations`, { name: `Person ${n}`, email: `p${n}@campus.example` })),
    );
    const statuses = await Promise.all(answers.map(async (answer) => (answer.status === 201 ? ((await answer.json()) as { status: string }).status : String(answer.status))));
    assert.equal(statuses.filter((status) => status === 'confirmed').length, 100);
    assert.equal(statuses.filter((status) => status === 'waitlisted').length, 400);
    for (let i = 0; i < 3; i++) {
      const event = await waitForJson(three, i, `/events/${id}`, (body) => body['registered_count'] === 100);
      assert.equal(event['registered_count'], 100);
    }
  });

  it('an Idempotency-Key retried on another instance replays the first answer', async () => {
    const first = await three.call(0, 'POST', '/events', newEvent(7), { 'idempotency-key': 'retry-elsewhere-1' });
    assert.equal(first.status, 201);
    const again = await three.call(1, 'POST', '/events', newEvent(7), { 'idempotency-key': 'retry-elsewhere-1' });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await again.json(), await first.json());
    const reused = await three.call(2, 'POST', '/events', newEvent(8), { 'idempotency-key': 'retry-elsewhere-1' });
    assert.equal(reused.status, 422);
  });

  it('a series created with an Idempotency-Key and retried on another instance replays the first answer, with no second series', async () => {
    const series = { ...newEvent(9), time_zone: 'UTC', recurrence: 'FREQ=WEEKLY;COUNT=4' };
    const first = await three.call(0, 'POST', '/series', series, { 'idempotency-key': 'series-elsewhere-1' });
    assert.equal(first.status, 201);
    const created = (await first.json()) as { id: string };
    const again = await three.call(1, 'POST', '/series', series, { 'idempotency-key': 'series-elsewhere-1' });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
    assert.deepEqual(await again.json(), created);
    assert.equal((await three.call(2, 'POST', '/series', { ...series, title: 'Other' }, { 'idempotency-key': 'series-elsewhere-1' })).status, 422);
    const listed = (await (await three.call(2, 'GET', '/events?series_id=' + created.id)).json()) as { total: number };
    assert.equal(listed.total, 4, 'one set of occurrences');
  });

  it('/changes read from each instance, paged and streamed, gives the same sequence with no gap while all three write', async () => {
    const since = ((await (await three.call(0, 'GET', '/changes?since=0&limit=1000')).json()) as { next_since: number }).next_since;
    const streams = await Promise.all([0, 1, 2].map(async (i) => {
      const answer = await fetch(`${three.servers[i]!.url}/changes?since=${since}`, { headers: { authorization: `Bearer ${three.adminKey}`, accept: 'text/event-stream' } });
      assert.equal(answer.status, 200);
      return answer.body!.getReader();
    }));
    // Creations only, from six writers over the three instances: each takes one seq, and no entry ever moves.
    const CREATIONS = 120;
    const created: number[] = [];
    let next = 0;
    let writing = true;
    const writers = Promise.all(Array.from({ length: 6 }, async (_, w) => {
      while (next < CREATIONS) {
        const n = next++;
        const answer = await three.call((n + w) % 3, 'POST', '/events', newEvent(100 + n));
        assert.equal(answer.status, 201);
        created.push(parseInt(answer.headers.get('etag')!.slice(1, -1), 36));
      }
    })).finally(() => (writing = false));
    // Meanwhile three clients copy the feed from since=0 and then follow it, each page from the next instance:
    // a `since` and `copy` from one are good on another, even one that has not yet applied what the other had.
    const pagers = [0, 1, 2].map(async (i) => {
      const seqs: number[] = [];
      let position = 0;
      let copy: string | undefined;
      for (let page = i; ; page++) {
        const answer = await three.call(page % 3, 'GET', `/changes?since=${position}&limit=7${copy === undefined ? '' : `&copy=${copy}`}`);
        assert.equal(answer.status, 200, `pager ${i}, page ${page}: ${await answer.clone().text()}`);
        const body = (await answer.json()) as { changes: { seq: number }[]; next_since: number; more: boolean; copy?: string };
        seqs.push(...body.changes.map((change) => change.seq));
        position = body.next_since;
        copy = body.copy;
        if (body.more) continue;
        if (!writing && position >= Math.max(...created)) return seqs;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    await writers;
    const paged = await Promise.all(pagers);
    const streamed = await Promise.all(streams.map(async (reader) => {
      let text = '';
      const decoder = new TextDecoder();
      while ((text.match(/^id: \d+$/gm) ?? []).length < CREATIONS) text += decoder.decode((await reader.read()).value);
      await reader.cancel();
      return (text.match(/^id: \d+$/gm) ?? []).map((line) => Number(line.slice(4)));
    }));
    // Nothing else written meanwhile: consecutive seqs, the same on every instance's stream and every pager's copy.
    const expected = Array.from({ length: CREATIONS }, (_, k) => since + 1 + k);
    assert.deepEqual([...created].sort((x, y) => x - y), expected);
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(streamed[i], expected, `the stream of instance ${i}`);
      for (let k = 1; k < paged[i]!.length; k++) assert.ok(paged[i]![k]! > paged[i]![k - 1]!, `pager ${i}: seqs only grow`);
      assert.deepEqual(paged[i]!.filter((seq) => seq > since), expected, `pager ${i}: every creation once, none missed`);
      assert.deepEqual(paged[i], paged[0], `pager ${i} read what pager 0 read`);
    }
  });

  it('a series made on one instance is on the others, with its occurrences, in one atomic write', async () => {
    const created = await three.call(0, 'POST', '/series', { ...newEvent(500), recurrence: 'FREQ=WEEKLY;COUNT=6', start_time: '2031-03-04T10:00:00Z', end_time: '2031-03-04T12:00:00Z' });
    assert.equal(created.status, 201, await created.clone().text());
    const series = (await created.json()) as { id: string };
    for (let i = 1; i < 3; i++) {
      const body = await waitForJson(three, i, `/events?series_id=${series.id}`, (page) => page['total'] === 6);
      assert.equal(body['total'], 6);
      assert.equal((await three.call(i, 'GET', `/series/${series.id}`)).status, 200);
    }
    assert.equal((await three.call(1, 'DELETE', `/series/${series.id}`)).status, 204);
    const gone = await waitForJson(three, 2, `/events?series_id=${series.id}`, (page) => page['total'] === 0);
    assert.equal(gone['total'], 0);
  });

  it('a write on any instance reaches the change streams on the other two within 1 s of its answer', async () => {
    const since = ((await (await three.call(0, 'GET', '/changes?since=0&limit=1')).json()) as { next_since: number }).next_since;
    const controller = new AbortController();
    // One stream per instance; each remembers when every event id first arrived on it.
    const arrivals = [0, 1, 2].map(() => new Map<string, number>());
    const readers = await Promise.all([0, 1, 2].map(async (i) => {
      const stream = await fetch(`${three.servers[i]!.url}/changes?since=${since}`, { headers: { authorization: `Bearer ${three.adminKey}`, accept: 'text/event-stream' }, signal: controller.signal });
      assert.equal(stream.status, 200);
      const reader = stream.body!.getReader();
      const decoder = new TextDecoder();
      // Wrapped: an async function returning the loop's promise would wait for the stream to end.
      return { ended: (async () => {
        let text = '';
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
          if (done) return;
          text += decoder.decode(value);
          for (const [, id] of text.matchAll(/"id":"(evt_[0-9A-Za-z]+)"/g)) if (!arrivals[i]!.has(id!)) arrivals[i]!.set(id!, performance.now());
        }
      })() };
    }));
    try {
      for (let writer = 0; writer < 3; writer++) {
        const answer = await three.call(writer, 'POST', '/events', newEvent(990 + writer));
        assert.equal(answer.status, 201);
        const answeredAt = performance.now();
        const { id } = (await answer.json()) as { id: string };
        for (const other of [0, 1, 2].filter((i) => i !== writer)) {
          // Waiting for the stream itself (never longer than 5 s); the promise is checked on the time it arrived.
          for (let tries = 0; !arrivals[other]!.has(id) && tries < 500; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
          assert.ok(arrivals[other]!.has(id), `the write on instance ${writer} reached instance ${other}'s stream`);
          const late = arrivals[other]!.get(id)! - answeredAt;
          assert.ok(late < 1000, `the write on instance ${writer} reached instance ${other}'s stream ${Math.round(late)} ms after its answer`);
        }
      }
    } finally {
      controller.abort();
      await Promise.all(readers.map((reader) => reader.ended));
    }
  });
});

describe('a key\'s rate limit over three instances', { skip, timeout: 60_000 }, () => {
  it('admits exactly the limit in a window, however the requests are spread, and 429s carry Retry-After; so does the failed-auth throttle', async () => {
    const three = await startInstances(await pg.database('ratelimit'), 3, ['--rate-limit', '30']);
    try {
      const answers = await Promise.all(Array.from({ length: 90 }, (_, n) => three.call(n % 3, 'GET', '/events?limit=1')));
      assert.equal(answers.filter((answer) => answer.status === 200).length, 30);
      const refused = answers.filter((answer) => answer.status === 429);
      assert.equal(refused.length, 60);
      for (const answer of refused) {
        assert.ok(Number(answer.headers.get('retry-after')) >= 1);
        assert.equal(answer.headers.get('ratelimit-remaining'), '0');
      }
      // Later requests on any instance are refused too: the window is full over all of them.
      for (let i = 0; i < 3; i++) assert.equal((await three.call(i, 'GET', '/me')).status, 429);
      // Failed authentications from one address: 100 in 15 minutes over all three, then 429 (API.md §6).
      const failures = await Promise.all(Array.from({ length: 300 }, (_, n) => fetch(`${three.servers[n % 3]!.url}/events`, { headers: { authorization: 'Bearer not-a-key' } })));
      assert.equal(failures.filter((answer) => answer.status === 401).length, 100);
      assert.equal(failures.filter((answer) => answer.status === 429).length, 200);
    } finally {
      await three.stop();
    }
  });
});

describe('a key\'s rate limit over two instances, one request after another', { skip, timeout: 60_000 }, () => {
  it('admits exactly the limit, in turn on both, before the first 429, and exactly 100 failed authentications from one address', async () => {
    const two = await startInstances(await pg.database('ratepaced'), 2, ['--rate-limit', '20', '--rate-window', '60']);
    try {
      // A client's loop, 30 ms between requests: steady enough to have slots leased ahead (which made the window full
      // early: the 429 came at the 9th to the 19th request).
      const statuses: number[] = [];
      for (let n = 0; n < 25; n++) {
        const answer = await two.call(n % 2, 'GET', '/me');
        await answer.arrayBuffer();
        statuses.push(answer.status);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      assert.deepEqual(statuses, [...Array(20).fill(200), ...Array(5).fill(429)]);
      const failures: number[] = [];
      for (let n = 0; n < 105; n++) {
        const answer = await fetch(`${two.servers[n % 2]!.url}/events`, { headers: { authorization: `Bearer cek_wrong${n}` } });
        await answer.arrayBuffer();
        failures.push(answer.status);
      }
      assert.deepEqual(failures, [...Array(100).fill(401), ...Array(5).fill(429)]);
    } finally {
      await two.stop();
    }
  });

  it('an address that fails 70 times on one instance and then on the other still has its 100: the first holds no unused failure slot', async () => {
    const two = await startInstances(await pg.database('authmoved'), 2);
    try {
      const failures: number[] = [];
      for (let n = 0; n < 105; n++) {
        const answer = await fetch(`${two.servers[n < 70 ? 0 : 1]!.url}/events`, { headers: { authorization: `Bearer cek_wrong${n}` } });
        await answer.arrayBuffer();
        failures.push(answer.status);
      }
      assert.deepEqual(failures, [...Array(100).fill(401), ...Array(5).fill(429)]);
    } finally {
      await two.stop();
    }
  });
});

describe('a key\'s rate limit over three instances, one request after another', { skip, timeout: 90_000 }, () => {
  it('a key under its limit, in turn on all three, is never refused; one at its limit meets its 429 at the limit, not before', async () => {
    const url = await pg.database('rateturns');
    const three = await startInstances(url, 3, ['--rate-limit', '40', '--rate-window', '10']);
    const loop = async (key: string, count: number, gapMs: number): Promise<string> => {
      let pattern = '';
      for (let n = 0; n < count; n++) {
        const answer = await fetch(`${three.servers[n % 3]!.url}/me`, { headers: { authorization: `Bearer ${key}` } });
        await answer.arrayBuffer();
        pattern += answer.status === 200 ? '.' : answer.status === 429 ? 'R' : `[${answer.status}]`;
        await new Promise((resolve) => setTimeout(resolve, gapMs));
      }
      return pattern;
    };
    const newKey = (name: string): string => {
      const made = runCli(['keys', 'create', '--name', name, '--email', `${name.toLowerCase()}@campus.example`, '--role', 'reader', '--store', url]);
      assert.equal(made.status, 0, made.stderr);
      return made.stdout.trim();
    };
    try {
      // Each instance saw a third of the key's pace, judged it well within the limit, and held slots ahead by it: the
      // three together held more than the window had room for (429s from the 9th request at 120 ms, the 12th at 600 ms).
      const [slow, fast] = [newKey('Slow'), newKey('Fast')];
      // Every instance reads the whole key table each second: one that knows a key made after these two knows them,
      // and asking with that key counts nothing against theirs.
      const probe = newKey('Probe');
      for (const server of three.servers) {
        for (let tries = 0; (await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${probe}` } })).status !== 200; tries++) {
          assert.ok(tries < 100, `${server.url} reads the new keys`);
          // A 401 until then counts as a failed authentication of the address: ten a second at most, far from its 100.
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      const [slowly, quickly] = await Promise.all([loop(slow, 20, 600), loop(fast, 41, 120)]);
      assert.equal(slowly, '.'.repeat(20), 'at most 17 requests in any 10 s: none refused');
      assert.equal(quickly, `${'.'.repeat(40)}R`, 'the 41st within 10 s is the first refused');
    } finally {
      await three.stop();
    }
  });
});

describe('a key\'s rate limit over three instances, window after window', { skip, timeout: 60_000 }, () => {
  it('with a 2 s window, clients on all three for 2.5 windows: no stretch of 2 s holds more than the limit, and freed slots come back', async () => {
    const limit = 20;
    const windowMs = 2_000;
    const three = await startInstances(await pg.database('ratewindows'), 3, ['--rate-limit', String(limit), '--rate-window', String(windowMs / 1000)]);
    try {
      /** Every admitted request: when it was sent and when its answer came; the server decided in between. */
      const admitted: { sent: number; answered: number }[] = [];
      const statuses = new Set<number>();
      const end = performance.now() + 2.5 * windowMs;
      await Promise.all(Array.from({ length: 6 }, async (_, c) => {
        for (let k = 0; performance.now() < end; k++) {
          const sent = performance.now();
          const answer = await three.call((c + k) % 3, 'GET', '/me');
          await answer.arrayBuffer();
          statuses.add(answer.status);
          if (answer.status === 200) admitted.push({ sent, answered: performance.now() });
          else await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }));
      assert.deepEqual([...statuses].sort(), [200, 429]);
      // Requests certainly decided inside [a.sent, a.sent + window): sent at or after it, answered before its end.
      for (const a of admitted) {
        const inside = admitted.filter((b) => b.sent >= a.sent && b.answered < a.sent + windowMs).length;
        assert.ok(inside <= limit, `${inside} requests admitted within ${windowMs} ms from ${Math.round(a.sent)}`);
      }
      // A slot counts until a whole window (and at most 1/60 more) after it was used: the second window's come back.
      assert.ok(admitted.length >= 2 * limit, `${admitted.length} admitted over 2.5 windows`);
    } finally {
      await three.stop();
    }
  });
});

async function waitForJson(instances: Instances, i: number, path: string, done: (body: Record<string, unknown>, answer: Response) => boolean): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const answer = await instances.call(i, 'GET', path);
    const body = (await answer.json()) as Record<string, unknown>;
    if (done(body, answer) || Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
