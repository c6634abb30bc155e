// Safe retries across a kill -9 of the real server: a POST cut off by the crash, retried with its Idempotency-Key, makes exactly one event.
import assert from 'node:assert/strict';
import test from 'node:test';
import { mulberry32 } from '../helpers/random.js';
import { tempDir } from '../helpers/harness.js';
import { createKey, eventBody, listAll, send, serverArgs, sleep, startServer } from '../durability/support.js';

test('a POST in flight at a kill -9, retried with the same Idempotency-Key after the restart, exists exactly once', { timeout: 60_000 }, async (t) => {
  const seed = Number(process.env['TEST_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  t.diagnostic(`seed ${seed} (rerun with TEST_SEED=${seed})`);
  const random = mulberry32(seed);
  const { dir, remove } = tempDir('campus-idempotency-kill-');
  t.after(remove);
  const key = createKey(dir);
  let server = await startServer(serverArgs(dir));
  t.after(() => server.child.kill('SIGKILL'));
  const answers = new Map<string, string>();
  for (let round = 0; round < 5; round++) {
    const title = `Round ${round}`;
    const headers = { 'Idempotency-Key': `retry-${round}` };
    // The client's POST: cut off by the crash (or answered just before it); the client cannot know which.
    const inFlight = send(server.url, key, 'POST', '/events', eventBody(title), headers).then((response) => response.text(), () => undefined);
    await sleep(Math.floor(random() * 8));
    server.child.kill('SIGKILL');
    await server.exited;
    const before = await inFlight;
    server = await startServer(serverArgs(dir));
    const retry = await send(server.url, key, 'POST', '/events', eventBody(title), headers);
    assert.equal(retry.status, 201);
    const text = await retry.text();
    if (before !== undefined && JSON.parse(before).id !== undefined) {
      assert.equal(text, before, 'an answered POST is replayed as answered');
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    }
    answers.set(title, text);
    // A retry of an earlier round is still replayed after further crashes.
    const earlier = `Round ${Math.floor(random() * (round + 1))}`;
    const again = await send(server.url, key, 'POST', '/events', eventBody(earlier), { 'Idempotency-Key': `retry-${earlier.slice(6)}` });
    assert.equal(await again.text(), answers.get(earlier));
  }
  const titles = [...(await listAll(server.url, key)).values()].map((event) => event.title).sort();
  assert.deepEqual(titles, [...answers.keys()].sort(), 'each POST made exactly one event');
});
