// One writer per folder, and a LOCK left by a killed server is taken over on the next start (API.md §7).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/harness.js';
import { createKey, eventBody, send, serverArgs, startServer } from './support.js';

test('after kill -9 of a server, a new one starts on the same folder: the stale LOCK is taken over', async () => {
  const { dir, remove } = tempDir('campus-stale-lock-');
  const key = createKey(dir);
  const killed = await startServer(serverArgs(dir));
  const created = await send(killed.url, key, 'POST', '/events', eventBody('Before the kill'));
  assert.equal(created.status, 201);
  const { id } = (await created.json()) as { id: string };
  killed.child.kill('SIGKILL');
  assert.equal(await killed.exited, 'SIGKILL');
  const lock = path.join(dir, 'LOCK');
  assert.ok(existsSync(lock), 'the killed server left its LOCK');
  assert.equal(JSON.parse(readFileSync(lock, 'utf8')).pid, killed.child.pid);

  const next = await startServer(serverArgs(dir));
  try {
    assert.equal(JSON.parse(readFileSync(lock, 'utf8')).pid, next.child.pid, 'the LOCK now names the new server');
    const read = await send(next.url, key, 'GET', `/events/${id}`);
    assert.equal(read.status, 200);
    assert.equal(((await read.json()) as { title: string }).title, 'Before the kill');
  } finally {
    next.child.kill('SIGTERM');
    assert.equal(await next.exited, 0);
    remove();
  }
});

test('after kill -9, a LOCK whose pid now belongs to another live process is taken over (pid reuse, issue 12.4)', { skip: process.platform !== 'linux' }, async () => {
  const { dir, remove } = tempDir('campus-stale-lock-reused-');
  const key = createKey(dir);
  const killed = await startServer(serverArgs(dir));
  killed.child.kill('SIGKILL');
  assert.equal(await killed.exited, 'SIGKILL');
  // After a power cut the pid goes to some other process: play that with a live process of our own.
  const impostor = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const lock = path.join(dir, 'LOCK');
  try {
    const owner = JSON.parse(readFileSync(lock, 'utf8')) as Record<string, unknown>;
    writeFileSync(lock, JSON.stringify({ ...owner, pid: impostor.pid }));
    const next = await startServer(serverArgs(dir));
    try {
      assert.equal(JSON.parse(readFileSync(lock, 'utf8')).pid, next.child.pid, 'the LOCK now names the new server');
      assert.equal((await send(next.url, key, 'GET', '/events')).status, 200);
    } finally {
      next.child.kill('SIGTERM');
      assert.equal(await next.exited, 0);
    }
  } finally {
    impostor.kill('SIGKILL');
    remove();
  }
});
