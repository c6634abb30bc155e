// The real server under a real file size limit (`ulimit -f`): a short write then EFBIG, answered with 503 while reads go on (API.md §7).
import assert from 'node:assert/strict';
import { waitFor } from '../api/support.js';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/harness.js';
import { fill, mountTinyFileSystem } from '../helpers/tiny-fs.js';
import { runCli } from '../helpers/spawn.js';
import { createKey, eventBody, listAll, send, SERVER, serverArgs, startServer } from './support.js';

/** 64 blocks of 512 bytes (dash's unit): room for about 20 events of 1.5 KiB. */
const LIMIT_BLOCKS = 64;

test('disk full (ulimit -f): the failing write and every later one get 503, /health 503, reads 200; a restart finds exactly the acknowledged writes', async () => {
  const { dir, remove } = tempDir('campus-disk-full-');
  const key = createKey(dir);
  const description = 'A long description that fills the log quickly. '.repeat(25);
  const limited = await startServer(serverArgs(dir), ['sh', '-c', `ulimit -f ${LIMIT_BLOCKS}; exec "$0" "$@"`, process.execPath, SERVER]);
  const acknowledged = new Map<string, string>();
  const refused: string[] = [];
  try {
    let failure: Response | undefined;
    for (let n = 0; n < 200 && failure === undefined; n++) {
      const title = `Fits ${n}`;
      const response = await send(limited.url, key, 'POST', '/events', eventBody(title, { description }));
      if (response.status === 201) acknowledged.set(((await response.json()) as { id: string }).id, title);
      else {
        failure = response;
        refused.push(title);
      }
    }
    assert.ok(failure !== undefined, 'the limit was reached');
    assert.ok(acknowledged.size >= 5, `${acknowledged.size} writes fit before the limit`);
    assert.equal(failure.status, 503);
    const error = (await failure.json()) as { error: string; message: string };
    assert.equal(error.error, 'unavailable');
    assert.match(error.message, /EFBIG/);

    const later = await send(limited.url, key, 'POST', '/events', eventBody('Small but too late'));
    refused.push('Small but too late');
    assert.equal(later.status, 503);
    const [someId, someTitle] = [...acknowledged][0]!;
    const update = await send(limited.url, key, 'PUT', `/events/${someId}`, { title: 'Never saved' });
    refused.push('Never saved');
    assert.equal(update.status, 503);
    assert.equal((await send(limited.url, key, 'DELETE', `/events/${someId}`)).status, 503);
    assert.equal((await fetch(`${limited.url}/health`)).status, 503);
    const read = await send(limited.url, key, 'GET', `/events/${someId}`);
    assert.equal(read.status, 200);
    assert.equal(((await read.json()) as { title: string }).title, someTitle);
    assert.equal((await listAll(limited.url, key)).size, acknowledged.size);
    // The log writes its lines in batches, at most 10 ms late.
    await waitFor('the log names the cause', async () => /EFBIG/.test(limited.stderr()));
  } finally {
    limited.child.kill('SIGTERM');
    assert.equal(await limited.exited, 0, limited.stderr());
  }

  const restarted = await startServer(serverArgs(dir));
  try {
    assert.doesNotMatch(restarted.stderr(), /torn/, 'the failed write was cut back: a clean start');
    assert.deepEqual(readdirSync(dir).filter((name) => name.includes('torn')), []);
    const found = await listAll(restarted.url, key);
    assert.deepEqual(new Map([...found].map(([id, event]) => [id, event.title])), acknowledged);
    for (const event of found.values()) assert.ok(!refused.includes(event.title), event.title);
    assert.equal((await fetch(`${restarted.url}/health`)).status, 200);
    assert.equal((await send(restarted.url, key, 'POST', '/events', eventBody('After the restart'))).status, 201);
  } finally {
    restarted.child.kill('SIGTERM');
    await restarted.exited;
    remove();
  }
});

const tiny = mountTinyFileSystem('512k');
test('start on a full disk (a real tiny tmpfs): read-only, reads 200, writes and /health 503 saying why, nothing left behind; writable after a restart with room (issue 12.3)', { skip: tiny === undefined ? 'needs root and tmpfs' : false }, async () => {
  const { dir: mount, unmount } = tiny!;
  const dataDir = path.join(mount, 'data');
  try {
    const key = createKey(dataDir);
    const first = await startServer(serverArgs(dataDir));
    const created = await send(first.url, key, 'POST', '/events', eventBody('Before the disk filled'));
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);

    // Fill the file system to the last byte.
    const filler = fill(mount);
    const contents = (): Map<string, string> => new Map(readdirSync(dataDir).sort().map((name) => [name, readFileSync(path.join(dataDir, name), 'latin1')]));
    const before = contents();
    const full = await startServer(serverArgs(dataDir));
    try {
      const health = await fetch(`${full.url}/health`);
      assert.equal(health.status, 503);
      assert.match(((await health.json()) as { message: string }).message, /read-only: ENOSPC/);
      const read = await send(full.url, key, 'GET', `/events/${id}`);
      assert.equal(read.status, 200);
      const refused = await send(full.url, key, 'POST', '/events', eventBody('Never saved'));
      assert.equal(refused.status, 503);
      // A change that could never be made gets its own error, not a 503 to retry for ever.
      assert.equal((await send(full.url, key, 'PUT', '/events/evt_0000000000000000unknown', { title: 'Nowhere' })).status, 404);
      assert.equal((await send(full.url, key, 'PUT', `/events/${id}`, { title: 'Stale' }, { 'If-Match': '"stale"' })).status, 412);
      assert.match(((await refused.json()) as { message: string }).message, /ENOSPC/);
      assert.match(full.stderr(), /no room to start writable/);
      // keys create cannot write either: it fails, and leaves no keys.lock (which used to block every start for 30 s).
      const refusedKey = runCli(['keys', 'create', '--name', 'Too Late', '--email', 'late@campus.edu', '--data-dir', dataDir]);
      assert.equal(refusedKey.status, 1, refusedKey.stderr);
      assert.match(refusedKey.stderr, /ENOSPC.*: the disk has no room; free some space and run the command again \(nothing was changed\)/);
      // Room comes back while it runs: its stop still writes nothing (another server may have the folder by then).
      rmSync(filler);
    } finally {
      full.child.kill('SIGTERM');
      assert.equal(await full.exited, 0, full.stderr());
    }
    assert.deepEqual(contents(), before, 'the read-only start, the failed keys create and the stop left the folder as it was (no LOCK.*.tmp, no keys.lock, no rate-limits.json)');

    const again = await startServer(serverArgs(dataDir));
    try {
      assert.equal((await fetch(`${again.url}/health`)).status, 200);
      assert.equal((await send(again.url, key, 'POST', '/events', eventBody('After the room came back'))).status, 201);
      assert.equal((await listAll(again.url, key)).size, 2);
    } finally {
      again.child.kill('SIGTERM');
      assert.equal(await again.exited, 0);
    }
  } finally {
    unmount();
  }
});

const readOnlyMount = mountTinyFileSystem('4m');

test('start on a read-only file system (EROFS): read-only, reads 200, writes and /health 503 saying why; writable once it is mounted read-write again', { skip: readOnlyMount === undefined ? 'needs root and tmpfs' : false }, async () => {
  const { dir: mount, unmount } = readOnlyMount!;
  const dataDir = path.join(mount, 'data');
  const remount = (mode: 'ro' | 'rw'): void => assert.equal(spawnSync('mount', ['-o', `remount,${mode}`, mount]).status, 0, `remount ${mode}`);
  try {
    const key = createKey(dataDir);
    const first = await startServer(serverArgs(dataDir));
    let id: string;
    try {
      const created = await send(first.url, key, 'POST', '/events', eventBody('Before the remount'));
      assert.equal(created.status, 201);
      id = ((await created.json()) as { id: string }).id;
    } finally {
      first.child.kill('SIGTERM');
      assert.equal(await first.exited, 0);
    }

    const empty = path.join(mount, 'empty');
    mkdirSync(empty);
    remount('ro');
    // A first start has nothing to serve: it refuses, naming the mount (not a lack of room) as the cause.
    const refused = spawnSync(process.execPath, [SERVER, ...serverArgs(empty)], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /read-only file system/);
    assert.doesNotMatch(refused.stderr, /no room/);
    const frozen = await startServer(serverArgs(dataDir));
    try {
      const health = await fetch(`${frozen.url}/health`);
      assert.equal(health.status, 503);
      assert.match(((await health.json()) as { message: string }).message, /read-only: EROFS/);
      assert.match(frozen.stderr(), /the data folder is on a read-only file system: serving reads only/);
      assert.doesNotMatch(frozen.stderr(), /no room/);
      assert.equal((await send(frozen.url, key, 'GET', `/events/${id}`)).status, 200);
      assert.equal((await send(frozen.url, key, 'POST', '/events', eventBody('Never saved'))).status, 503);
    } finally {
      frozen.child.kill('SIGTERM');
      assert.equal(await frozen.exited, 0, frozen.stderr());
    }

    remount('rw');
    const again = await startServer(serverArgs(dataDir));
    try {
      assert.equal((await send(again.url, key, 'POST', '/events', eventBody('After the remount'))).status, 201);
      assert.equal((await listAll(again.url, key)).size, 2);
    } finally {
      again.child.kill('SIGTERM');
      assert.equal(await again.exited, 0);
    }
  } finally {
    spawnSync('mount', ['-o', 'remount,rw', mount]);
    unmount();
  }
});
