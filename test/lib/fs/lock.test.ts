// acquireLock: one writer per data folder; a lock whose owner is gone is taken over.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { acquireLock, LockHeldError } from '../../../src/lib/fs/lock.js';
import { tempDir } from '../../store/helpers.js';

/** The pid of a process that ran and has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  assert.equal(child.status, 0);
  return child.pid;
}

function writeLock(dir: string, owner: object): void {
  fs.writeFileSync(path.join(dir, 'LOCK'), JSON.stringify(owner));
}

test('acquireLock() writes LOCK naming pid, host and start time, and release() removes it', (t) => {
  const dir = tempDir(t);
  const lock = acquireLock(dir, { now: () => Date.UTC(2026, 0, 2), bootId: 'boot-1', startTimeOf: () => '4242' });
  const owner = JSON.parse(fs.readFileSync(path.join(dir, 'LOCK'), 'utf8'));
  assert.deepEqual(owner, { pid: process.pid, host: os.hostname(), started_at: '2026-01-02T00:00:00.000Z', boot_id: 'boot-1', process_start: '4242' });
  assert.deepEqual(fs.readdirSync(dir), ['LOCK'], 'no temporary file is left behind');
  assert.equal(lock.tookOver, undefined, 'a fresh lock replaced none');
  lock.release();
  lock.release();
  assert.deepEqual(fs.readdirSync(dir), []);
});

test('acquireLock() refuses a second taker in the same process, saying this process holds it (not to delete the lock)', (t) => {
  const dir = tempDir(t);
  const lock = acquireLock(dir);
  assert.throws(() => acquireLock(dir), (error) => error instanceof LockHeldError && error.message.includes('is already open in this process') && !error.message.includes('delete') && error.owner.pid === process.pid);
  lock.release();
  acquireLock(dir).release();
});

test('acquireLock() refuses the same folder named another way in the same process (a symlink), and release() of the refused leaves the lock', (t) => {
  const dir = tempDir(t);
  const link = `${dir}-link`;
  fs.symlinkSync(dir, link);
  t.after(() => fs.rmSync(link, { force: true }));
  const lock = acquireLock(dir);
  assert.throws(() => acquireLock(link), (error) => error instanceof LockHeldError && error.owner.pid === process.pid);
  assert.throws(() => acquireLock(path.join(link, '.')), LockHeldError);
  assert.deepEqual(fs.readdirSync(dir), ['LOCK'], 'the live lock is not taken over');
  lock.release();
  const again = acquireLock(link);
  assert.throws(() => acquireLock(dir), LockHeldError, 'and the other way round');
  again.release();
  assert.deepEqual(fs.readdirSync(dir), []);
});

test('acquireLock() refuses a lock held by a live process, naming its pid', (t) => {
  const dir = tempDir(t);
  // The parent of this test process is alive and is not this process.
  writeLock(dir, { pid: process.ppid, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z' });
  assert.throws(() => acquireLock(dir), new RegExp(`process ${process.ppid} on host`));
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'LOCK'), 'utf8')).pid, process.ppid, 'the lock is left alone');
});

test('acquireLock() takes over a lock whose process no longer runs', (t) => {
  const dir = tempDir(t);
  const pid = deadPid();
  writeLock(dir, { pid, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z' });
  const lock = acquireLock(dir);
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'LOCK'), 'utf8')).pid, process.pid);
  assert.deepEqual(lock.tookOver, { pid, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z' }, 'it says whose lock it replaced (logged at start)');
  lock.release();
});

test('acquireLock() takes over a lock whose process was killed and not yet collected by its parent (a zombie)', { skip: process.platform !== 'linux' }, async (t) => {
  const dir = tempDir(t);
  // The shell starts a child and becomes `sleep 30`, which never waits for it: the child stays a zombie while the parent
  // lives. The child ends only once the shell is `sleep` (a child ending before the exec may be collected by the shell).
  const parent = spawn('sh', ['-c', '( while [ "$(cat /proc/$$/comm)" != sleep ]; do :; done ) & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => parent.kill('SIGKILL'));
  const pid = Number((await once(parent.stdout!, 'data'))[0].toString().trim());
  for (let i = 0; i < 200 && !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.match(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'), /\) Z /, 'the child is a zombie');
  writeLock(dir, { pid, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z' });
  const lock = acquireLock(dir);
  assert.deepEqual(lock.tookOver, { pid, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z' });
  lock.release();
});

test('acquireLock() takes over a lock naming its own pid that it did not take (a restarted container)', (t) => {
  const dir = tempDir(t);
  writeLock(dir, { pid: 1, host: 'box', started_at: '2026-01-01T00:00:00.000Z' });
  const lock = acquireLock(dir, { pid: 1, host: 'box', isRunning: () => true });
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'LOCK'), 'utf8')).started_at !== '2026-01-01T00:00:00.000Z', true);
  lock.release();
});

test('acquireLock() refuses a lock from another host, whose pid it cannot check', (t) => {
  const dir = tempDir(t);
  writeLock(dir, { pid: deadPid(), host: 'elsewhere', started_at: '2026-01-01T00:00:00.000Z' });
  assert.throws(() => acquireLock(dir), /host "elsewhere"/);
});

test('acquireLock() leaves the lock of a starter that took the same stale lock over between its look and its removal', (t) => {
  const dir = tempDir(t);
  const stale = { pid: 111, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z' };
  const rival = { pid: 222, host: os.hostname(), started_at: '2026-01-01T00:00:01.000Z' };
  writeLock(dir, stale);
  // The look at pid 111 is the moment the race needs: the rival removes the stale lock and makes its own then.
  const isRunning = (pid: number): boolean => {
    if (pid === stale.pid) {
      fs.unlinkSync(path.join(dir, 'LOCK'));
      writeLock(dir, rival);
      return false;
    }
    return pid === rival.pid;
  };
  assert.throws(() => acquireLock(dir, { isRunning, startTimeOf: () => undefined }), (error) => error instanceof LockHeldError && error.owner.pid === rival.pid);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'LOCK'), 'utf8')), rival, 'the rival still holds the folder');
  assert.deepEqual(fs.readdirSync(dir), ['LOCK'], 'nothing set aside is left behind');
});

test('acquireLock() takes over an unreadable lock file', (t) => {
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'LOCK'), 'garbage');
  const lock = acquireLock(dir);
  assert.equal(lock.tookOver, 'unreadable');
  lock.release();
});

test('release() leaves a lock that another process has taken over since', (t) => {
  const dir = tempDir(t);
  const lock = acquireLock(dir);
  writeLock(dir, { pid: 12345, host: 'other', started_at: '2026-01-01T00:00:00.000Z' });
  lock.release();
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'LOCK'), 'utf8')).pid, 12345);
});

test('acquireLock() takes a lock file of another name', (t) => {
  const dir = tempDir(t);
  const lock = acquireLock(dir, { file: 'keys.lock' });
  assert.ok(fs.existsSync(path.join(dir, 'keys.lock')));
  lock.release();
});

test('acquireLock() records the boot id and process start time where the system tells them (Linux)', { skip: process.platform !== 'linux' }, (t) => {
  const dir = tempDir(t);
  const lock = acquireLock(dir);
  const owner = JSON.parse(fs.readFileSync(path.join(dir, 'LOCK'), 'utf8'));
  assert.equal(owner.boot_id, fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
  assert.match(owner.process_start, /^\d+$/);
  lock.release();
});

test('acquireLock() takes over a lock whose pid now runs another process (started at another time)', (t) => {
  const dir = tempDir(t);
  writeLock(dir, { pid: process.ppid, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z', boot_id: 'boot-1', process_start: '100' });
  const lock = acquireLock(dir, { bootId: 'boot-1', startTimeOf: (pid) => (pid === process.ppid ? '999' : '5') });
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'LOCK'), 'utf8')).pid, process.pid);
  lock.release();
});

test('acquireLock() takes over a lock written in another boot (a power cut), even if its pid runs now', (t) => {
  const dir = tempDir(t);
  writeLock(dir, { pid: process.ppid, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z', boot_id: 'boot-before', process_start: '100' });
  const lock = acquireLock(dir, { bootId: 'boot-now', startTimeOf: () => '100' });
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'LOCK'), 'utf8')).pid, process.pid);
  lock.release();
});

test('acquireLock() still refuses a live owner of this boot with the start time it recorded', (t) => {
  const dir = tempDir(t);
  writeLock(dir, { pid: process.ppid, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z', boot_id: 'boot-1', process_start: '100' });
  assert.throws(() => acquireLock(dir, { bootId: 'boot-1', startTimeOf: () => '100' }), LockHeldError);
});
