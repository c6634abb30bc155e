// updateKeys and keys.lock: a writer killed while holding the lock blocks nobody, and nothing is written when nothing changed (issue 12.2).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { readKeys, updateKeys } from '../../src/auth/key-file.js';
import { createKey, ensureAdminKey } from '../../src/auth/key-registry.js';
import { tempDir } from '../helpers/harness.js';
import { ROOT, runCli, spawnServer } from '../helpers/spawn.js';

const deps = { randomBytes: (size: number) => new Uint8Array(size).fill(7), now: () => Date.UTC(2026, 0, 1) };

/** Starts a real process that takes keys.lock through updateKeys and then hangs inside it; resolves once the lock is there. */
async function hangInsideUpdateKeys(dir: string): Promise<ReturnType<typeof spawn>> {
  const module = pathToFileURL(path.join(ROOT, 'dist/auth/key-file.js')).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', `import { updateKeys } from ${JSON.stringify(module)}; await updateKeys(process.argv[1], () => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); });`, dir], { stdio: 'ignore' });
  const lock = path.join(dir, 'keys.lock');
  for (let i = 0; i < 400 && !existsSync(lock); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.ok(existsSync(lock), 'the child took keys.lock');
  return child;
}

test('updateKeys(): keys.lock left by a writer killed with SIGKILL is taken over at once by keys create and by a start', { skip: process.platform === 'win32' }, async () => {
  const { dir, remove } = tempDir('campus-keys-lock-');
  try {
    await createKey(dir, { name: 'Ada', email: 'ada@campus.edu', role: 'admin' }, deps);
    const child = await hangInsideUpdateKeys(dir);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    assert.ok(existsSync(path.join(dir, 'keys.lock')), 'the killed writer left keys.lock');
    const created = runCli(['keys', 'create', '--name', 'Bo', '--email', 'bo@campus.edu', '--data-dir', dir]);
    assert.equal(created.status, 0, created.stderr);
    assert.equal((await readKeys(dir)).length, 2);
    // A first start on a folder without keys takes the lock to create the admin key: also at once.
    const { dir: empty, remove: removeEmpty } = tempDir('campus-keys-lock-empty-');
    try {
      const second = await hangInsideUpdateKeys(empty);
      const secondExited = new Promise((resolve) => second.on('exit', resolve));
      second.kill('SIGKILL');
      await secondExited;
      const server = await spawnServer(['--port', '0', '--data-dir', empty]);
      assert.equal(await server.stop(), 0);
      assert.equal((await readKeys(empty)).length, 1, 'the start created its admin key');
      assert.ok(!existsSync(path.join(empty, 'keys.lock')), 'and released the lock');
    } finally {
      removeEmpty();
    }
  } finally {
    remove();
  }
});

test('updateKeys() records the lock owner like LOCK does, and a live owner still makes others wait', async () => {
  const { dir, remove } = tempDir('campus-keys-lock-live-');
  try {
    await createKey(dir, { name: 'Ada', email: 'ada@campus.edu', role: 'admin' }, deps);
    const child = await hangInsideUpdateKeys(dir);
    try {
      const owner = JSON.parse(readFileSync(path.join(dir, 'keys.lock'), 'utf8')) as { pid: number; host: string };
      assert.equal(owner.pid, child.pid);
      await assert.rejects(updateKeys(dir, (keys) => keys.length), new RegExp(`held by process ${child.pid}`));
    } finally {
      child.kill('SIGKILL');
    }
  } finally {
    remove();
  }
});

test('updateKeys() refuses at once a keys.lock from another host, saying it is never taken over and which file to delete', async () => {
  const { dir, remove } = tempDir('campus-keys-lock-host-');
  try {
    await createKey(dir, { name: 'Ada', email: 'ada@campus.edu', role: 'admin' }, deps);
    const lock = path.join(dir, 'keys.lock');
    writeFileSync(lock, JSON.stringify({ pid: 4242, host: 'elsewhere', started_at: '2026-01-01T00:00:00.000Z' }));
    await assert.rejects(updateKeys(dir, (keys) => keys.length), (error: Error) => {
      assert.equal(error.message, `${lock} is held by process 4242 on host "elsewhere" (since 2026-01-01T00:00:00.000Z); a lock from another host is never taken over: delete ${lock} if that host no longer uses this folder`);
      return true;
    });
    assert.ok(existsSync(lock), 'the lock is left alone');
  } finally {
    remove();
  }
});

test('ensureAdminKey() and an unchanged updateKeys() leave keys.json untouched (no rewrite on every start)', async () => {
  const { dir, remove } = tempDir('campus-keys-unchanged-');
  try {
    assert.notEqual(await ensureAdminKey(dir, deps), undefined);
    const before = statSync(path.join(dir, 'keys.json'));
    assert.equal(await ensureAdminKey(dir, deps), undefined);
    await updateKeys(dir, (keys) => keys.length);
    const after = statSync(path.join(dir, 'keys.json'));
    assert.equal(after.ino, before.ino, 'not replaced');
    assert.equal(after.mtimeMs, before.mtimeMs, 'not rewritten');
    assert.equal(after.mode & 0o777, 0o600, 'keys.json is readable by its owner only');
  } finally {
    remove();
  }
});

test('readKeys() refuses a damaged keys.json naming the file and what is wrong; the CLI and a start stop there (exit 1, one line)', async () => {
  const good = { id: 'key_1', name: 'Ada', email: 'ada@campus.edu', role: 'admin', hash: 'a'.repeat(64), created_at: '2026-01-01T00:00:00.000Z', revoked_at: null };
  const cases: [string, RegExp][] = [
    ['{"version":1,"keys":[', /is not valid JSON \(.*\); restore it from a backup$/],
    ['null', /has no "keys" array/],
    [JSON.stringify({ version: 1, keys: [good, { ...good, hash: undefined }] }), /: key 2 has no "hash" string; restore the file from a backup$/],
    [JSON.stringify({ version: 1, keys: [{ ...good, role: 'root' }] }), /: key 1 has role "root", not one of admin, organizer, reader, feed/],
    [JSON.stringify({ version: 1, keys: [{ ...good, hash: 'xyz' }] }), /: key 1 has a "hash" that is not 64 hex digits/],
    [JSON.stringify({ version: 1, keys: [{ ...good, revoked_at: 5 }] }), /: key 1 has a "revoked_at" that is neither/],
    [JSON.stringify({ version: 1, keys: [7] }), /: key 1 is not an object/],
  ];
  for (const [text, reason] of cases) {
    const { dir, remove } = tempDir('campus-keys-damaged-');
    const file = path.join(dir, 'keys.json');
    writeFileSync(file, text);
    await assert.rejects(readKeys(dir), (error: Error) => error.message.startsWith(file) && reason.test(error.message), text);
    const cli = runCli(['keys', 'list', '--data-dir', dir]);
    assert.equal(cli.status, 1, cli.stderr);
    assert.equal(cli.stderr.trim().split('\n').length, 1, cli.stderr);
    assert.ok(cli.stderr.includes(file) && reason.test(cli.stderr.trim().replace(/"}$/, '')), cli.stderr);
    remove();
  }
  // A start meets the same refusal (and makes no admin key in the damaged file's place).
  const { dir, remove } = tempDir('campus-keys-damaged-');
  writeFileSync(path.join(dir, 'keys.json'), JSON.stringify({ version: 1, keys: [{ ...good, role: 'root' }] }));
  const start = spawnSync(process.execPath, [path.join(ROOT, 'dist/server.js'), '--port', '0', '--data-dir', dir], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(start.status, 1, start.stderr);
  assert.match(start.stderr, /cannot start: .*keys.json: key 1 has role \\"root\\"/);
  assert.equal(start.stdout, '');
  assert.ok(readFileSync(path.join(dir, 'keys.json'), 'utf8').includes('"root"'), 'the file is left as it was');
  remove();
});
