// A data folder's rate limits across a restart of `node dist/server.js` (API.md §6: never one more in any window): a
// key's requests and an address's failed authentications are counted on by the next start, whether the stop was
// graceful or a kill -9 after it; a file the server cannot read is left out with a warning.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';

const LIMIT = 3;

async function statuses(server: SpawnedServer, count: number, key: string | undefined): Promise<number[]> {
  const answers: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${server.url}/events`, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    answers.push(response.status);
  }
  return answers;
}

test('a restart goes on counting the rate limit and the failed authentications of the server before it', { timeout: 60_000 }, async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'campus-saved-limits-'));
  const args = ['--port', '0', '--data-dir', dataDir, '--rate-limit', String(LIMIT), '--console', 'off'];
  try {
    const first = await spawnServer(args);
    const key = /cek_[A-Za-z0-9]+/.exec(first.stderr())![0];
    assert.deepEqual(await statuses(first, LIMIT, key), [200, 200, 200]);
    // 100 failed authentications from this address: the 101st is refused (429) until the window passes.
    assert.deepEqual([...new Set(await statuses(first, 100, 'cek_wrong'))], [401]);
    assert.equal((await statuses(first, 1, 'cek_wrong'))[0], 429);
    assert.equal(await first.stop('SIGTERM'), 0);
    assert.ok(existsSync(path.join(dataDir, 'rate-limits.json')), 'the stop saved the limits');

    const second = await spawnServer(args);
    const refused = await fetch(`${second.url}/events`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(refused.status, 429, 'the key used its limit before the restart');
    assert.ok(Number(refused.headers.get('retry-after')) > 3000, `Retry-After ${refused.headers.get('retry-after')}: the slots free an hour after they were taken`);
    assert.equal(refused.headers.get('ratelimit-remaining'), '0');
    assert.equal((await statuses(second, 1, 'cek_wrong'))[0], 429, 'the address is still held for its failed authentications');
    // A kill -9 saves nothing, and the next start counts what the graceful stop before it saved.
    assert.equal(await second.stop('SIGKILL'), 'SIGKILL');
    const third = await spawnServer(args);
    assert.deepEqual(await statuses(third, 1, key), [429]);
    await third.stop('SIGTERM');

    // A file this program did not write: the limits start afresh, with a warning naming it.
    writeFileSync(path.join(dataDir, 'rate-limits.json'), '{"version":1,"keys":');
    const fourth = await spawnServer(args);
    assert.deepEqual(await statuses(fourth, LIMIT + 1, key), [200, 200, 200, 429]);
    assert.match(fourth.stderr(), /"msg":"the rate limits saved at the last stop are not in a form this program wrote: they start afresh"/);
    await fourth.stop('SIGTERM');

    // Another --rate-window counts in other buckets: the saved limits are left out, with a warning saying why.
    const fifth = await spawnServer([...args, '--rate-window', '60']);
    assert.deepEqual(await statuses(fifth, LIMIT + 1, key), [200, 200, 200, 429]);
    assert.match(fifth.stderr(), /"msg":"the keys' rate limits saved at the last stop were counted in another window \(--rate-window changed\): they start afresh"/);
    await fifth.stop('SIGTERM');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
