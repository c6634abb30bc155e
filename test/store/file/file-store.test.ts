// FileStore: durability, group commit, and what a failed write or fdatasync leaves behind (API.md §7).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it, test } from 'node:test';
import type { StoredEvent } from '../../../src/events/event.js';
import { ApiError } from '../../../src/http/errors.js';
import { openFileStore } from '../../../src/store/file/open-file-store.js';
import type { FileStore } from '../../../src/store/file/file-store.js';
import { eventId, logLines, sampleRecord, tempDir, TestFileSystem } from '../helpers.js';
import type { Faults } from '../helpers.js';
import { storeContract } from '../store-contract.js';
import { StoreUnavailable } from '../../../src/store/store-errors.js';

storeContract('FileStore', async (t) => openFileStore({ dataDir: tempDir(t) }));

/** Every live event as [id, json, seq], in list order. */
function snapshot(store: FileStore): [string, string, number][] {
  return store.list({ limit: 100, page: 1 }).events.map((stored) => [stored.id, stored.json, stored.seq]);
}

function isUnavailable(error: unknown): boolean {
  return error instanceof StoreUnavailable && /nothing of this request was saved/.test(error.message);
}

test('openFileStore() creates the folder, an empty log and LOCK; close() releases LOCK', async (t) => {
  const dir = path.join(tempDir(t), 'nested', 'data');
  const store = await openFileStore({ dataDir: dir });
  assert.deepEqual(fs.readdirSync(dir).sort(), ['LOCK', 'events.jsonl']);
  await assert.rejects(openFileStore({ dataDir: dir }), /already open in this process \(since [^)]+\): one writer per folder\. Close the app that has it open first\./);
  await store.close();
  await store.close();
  assert.deepEqual(fs.readdirSync(dir), ['events.jsonl']);
  const unlocked = await openFileStore({ dataDir: dir, lock: false });
  assert.deepEqual(fs.readdirSync(dir), ['events.jsonl']);
  await unlocked.close();
});

test('a reopened FileStore holds every acknowledged write, counts its lines, and continues the seq', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir });
  for (let n = 1; n <= 5; n++) await store.write(eventId(n), () => sampleRecord(n, { start_time: `2026-09-0${n}T10:00:00.000Z`, end_time: '2026-09-09T10:00:00.000Z' }));
  await store.write(eventId(2), (current) => sampleRecord(2, { title: 'Updated', start_time: current!.json.includes('09-02') ? '2026-09-08T00:00:00.000Z' : 'x' }));
  await store.write(eventId(4), () => null);
  const before = snapshot(store);
  assert.deepEqual(store.stats, { lines: 7, liveEvents: 4, liveRegistrations: 0, supersededLines: 3, bytes: fs.statSync(path.join(dir, 'events.jsonl')).size, lastSeq: 7 });
  await store.close();

  const reopened = await openFileStore({ dataDir: dir });
  assert.deepEqual(snapshot(reopened), before);
  assert.deepEqual(reopened.stats, store.stats);
  const next = await reopened.write(eventId(6), () => sampleRecord(6));
  assert.equal(next!.seq, 8);
  await reopened.close();
  for (const line of logLines(path.join(dir, 'events.jsonl'))) assert.doesNotThrow(() => JSON.parse(line));
});

describe('FileStore group commit', () => {
  it('write() sends 200 concurrent changes with far fewer fdatasyncs than writes', async (t) => {
    const files = new TestFileSystem();
    const store = await openFileStore({ dataDir: tempDir(t), fs: files });
    const results = await Promise.all(Array.from({ length: 200 }, (_, n) => store.write(eventId(n), () => sampleRecord(n))));
    assert.equal(new Set(results.map((stored) => stored!.seq)).size, 200);
    assert.ok(files.syncs < 20, `${files.syncs} fdatasyncs for 200 writes`);
    assert.equal(store.size, 200);
    await store.close();
  });

  it('write() sends every change queued during a flush together: one write() and one fdatasync', async (t) => {
    const files = new TestFileSystem();
    const store = await openFileStore({ dataDir: tempDir(t), fs: files });
    files.holdSyncs();
    const first = store.write(eventId(0), () => sampleRecord(0));
    await files.nextSync();
    const rest = Array.from({ length: 50 }, (_, n) => store.write(eventId(n + 1), () => sampleRecord(n + 1)));
    assert.equal(store.get(eventId(0)), undefined, 'not visible before its fdatasync returned');
    files.release();
    assert.ok((await first) !== null);
    await Promise.all(rest);
    assert.deepEqual({ writes: files.writes, syncs: files.syncs }, { writes: 2, syncs: 2 });
    assert.equal(store.size, 51);
    await store.close();
  });

  it('a change queued behind one in flight sees it, so two writes with the same If-Match cannot both pass', async (t) => {
    const files = new TestFileSystem();
    const store = await openFileStore({ dataDir: tempDir(t), fs: files });
    const original = (await store.write(eventId(1), () => sampleRecord(1)))!;
    const ifMatch = (title: string) => (current: StoredEvent | undefined) => {
      if (current?.seq !== original.seq) throw new ApiError('precondition_failed', 'changed');
      return sampleRecord(1, { title });
    };
    files.holdSyncs();
    const a = store.write(eventId(1), ifMatch('A'));
    await files.nextSync();
    const b = assert.rejects(store.write(eventId(1), ifMatch('B')), (error) => error instanceof ApiError && error.code === 'precondition_failed');
    let seen = '';
    const c = store.write(eventId(1), (current) => {
      seen = JSON.parse(current!.json).title;
      return null;
    });
    files.release();
    await a;
    await b;
    assert.equal(await c, null);
    assert.equal(seen, 'A');
    assert.equal(store.get(eventId(1)), undefined);
    await store.close();
  });

  it('a batch is capped near 1 MiB: larger bursts go out in several writes, all durable', async (t) => {
    const dir = tempDir(t);
    const files = new TestFileSystem();
    const store = await openFileStore({ dataDir: dir, fs: files });
    const description = 'x'.repeat(5000);
    await Promise.all(Array.from({ length: 500 }, (_, n) => store.write(eventId(n), () => sampleRecord(n, { description }))));
    assert.ok(files.writes >= 3, `${files.writes} writes`);
    await store.close();
    const reopened = await openFileStore({ dataDir: dir });
    assert.equal(reopened.size, 500);
    await reopened.close();
  });

  it('short writes are continued until the whole batch is written', async (t) => {
    const dir = tempDir(t);
    const store = await openFileStore({ dataDir: dir, fs: new TestFileSystem({ maxWriteBytes: 7 }) });
    await Promise.all([1, 2, 3].map((n) => store.write(eventId(n), () => sampleRecord(n, { title: `Zoë ${n}` }))));
    const before = snapshot(store);
    await store.close();
    const reopened = await openFileStore({ dataDir: dir });
    assert.deepEqual(snapshot(reopened), before);
    await reopened.close();
  });
});

/**
 * Rounds of concurrent creates, updates and deletes (one batch per round) until the injected fault
 * fails one; then checks the failed round, the refusals after it, and what a normal reopen finds.
 */
async function failAndReopen(t: { after(fn: () => void): void }, faults: Faults): Promise<void> {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir, fs: new TestFileSystem(faults) });
  let failed = false;
  let next = 0;
  for (let round = 0; round < 10 && !failed; round++) {
    const before = snapshot(store);
    const live = before.map(([id]) => id);
    const writes = [next++, next++, next++].map((n) => store.write(eventId(n), () => sampleRecord(n, { title: `Round ${round}` })));
    if (live[0] !== undefined) writes.push(store.write(live[0], (current) => sampleRecord(Number(current!.id.slice(4)), { title: `Updated in ${round}` })));
    if (live[1] !== undefined) writes.push(store.write(live[1], () => null));
    const results = await Promise.allSettled(writes);
    if (results.every((result) => result.status === 'fulfilled')) continue;
    failed = true;
    assert.ok(results.every((result) => result.status === 'rejected' && isUnavailable(result.reason)), 'no write of the failed batch is acknowledged');
    assert.deepEqual(snapshot(store), before, 'memory is as it was');
    assert.equal(store.writable, false);
  }
  assert.ok(failed, 'the fault was hit');
  const acknowledged = snapshot(store);
  await assert.rejects(store.write(eventId(999), () => sampleRecord(999)), isUnavailable);
  await assert.rejects(store.write(acknowledged[0]?.[0] ?? eventId(0), () => sampleRecord(0)), isUnavailable);
  assert.deepEqual(snapshot(store), acknowledged, 'reads keep working');
  await store.close();

  const reopened = await openFileStore({ dataDir: dir });
  assert.deepEqual(snapshot(reopened), acknowledged, 'every acknowledged write is there, and nothing else');
  assert.deepEqual(fs.readdirSync(dir).filter((name) => name.includes('torn')), [], 'the file was cut back to its last good line');
  await reopened.close();
}

describe('FileStore after a failed write or fdatasync', () => {
  for (const failWriteAt of [1, 2, 4]) {
    it(`refuses the batch and every later write when write #${failWriteAt} fails`, (t) => failAndReopen(t, { failWriteAt }));
    it(`cuts off half a batch when write #${failWriteAt} fails midway (EFBIG)`, (t) => failAndReopen(t, { failWriteAt, partial: true, code: 'EFBIG' }));
  }
  for (const failSyncAt of [1, 3, 5]) {
    it(`refuses the batch and every later write when fdatasync #${failSyncAt} fails (EIO)`, (t) => failAndReopen(t, { failSyncAt, code: 'EIO' }));
  }

  it('rejects the changes queued behind a failing batch, and names the cause in a 503', async (t) => {
    const files = new TestFileSystem({ failSyncAt: 2 });
    const store = await openFileStore({ dataDir: tempDir(t), fs: files });
    await store.write(eventId(1), () => sampleRecord(1));
    files.holdSyncs();
    const failing = store.write(eventId(2), () => sampleRecord(2));
    await files.nextSync();
    const queued = [store.write(eventId(3), () => sampleRecord(3)), store.write(eventId(1), () => null)];
    files.release();
    for (const result of await Promise.allSettled([failing, ...queued])) {
      assert.ok(result.status === 'rejected' && isUnavailable(result.reason));
      assert.match(result.reason.message, /^The store cannot write \(ENOSPC: no space left on the disk\)/);
    }
    assert.deepEqual(snapshot(store).map(([id]) => id), [eventId(1)]);
    assert.equal(files.syncs, 2, 'the failed fdatasync is not retried');
    await store.close();
  });
});

test('FileStore under a real file size limit (ulimit -f): EFBIG refuses writes, a reopen finds exactly the acknowledged ones', (t) => {
  const dir = tempDir(t);
  const script = `
    import { openFileStore } from './src/store/file/open-file-store.ts';
    const store = await openFileStore({ dataDir: ${JSON.stringify(dir)} });
    const acknowledged = [];
    let error;
    for (let n = 0; n < 100000 && error === undefined; n++) {
      const id = 'evt_' + String(n).padStart(16, '0');
      const writes = [0, 1, 2].map((k) => store.write(id + k, () => ({ id: id + k, title: 'Big ' + 'x'.repeat(300), description: '', category: 'social', location: 'x',
        start_time: '2026-09-01T10:00:00.000Z', end_time: '2026-09-01T11:00:00.000Z', capacity: 1, registered_count: 0, organizer: { name: 'a', email: 'a@b.co' }, created_at: '2026-01-01T00:00:00.000Z' })));
      for (const result of await Promise.allSettled(writes)) {
        if (result.status === 'fulfilled') acknowledged.push(result.value.id); else error = result.reason;
      }
    }
    await store.close();
    console.log(JSON.stringify({ acknowledged, name: error?.name, message: error?.message, writable: store.writable }));
  `;
  const child = spawnSync('sh', ['-c', `ulimit -f 64 && exec "${process.execPath}" --import tsx --input-type=module -e "$SCRIPT"`], {
    cwd: path.resolve(import.meta.dirname, '../../..'),
    env: { ...process.env, SCRIPT: script },
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  const outcome = JSON.parse(child.stdout) as { acknowledged: string[]; name: string; message: string; writable: boolean };
  assert.equal(outcome.name, 'StoreUnavailable');
  assert.match(outcome.message, /EFBIG/);
  assert.equal(outcome.writable, false);
  assert.ok(outcome.acknowledged.length > 10);
  return openFileStore({ dataDir: dir }).then(async (reopened) => {
    assert.deepEqual(reopened.list({ limit: 100, page: 1 }).total, outcome.acknowledged.length);
    for (const id of outcome.acknowledged) assert.ok(reopened.get(id) !== undefined, id);
    await reopened.close();
  });
});

test('openFileStore() warns, naming the old pid, when it takes over a LOCK left by a process that no longer runs', async (t) => {
  const dir = tempDir(t);
  const dead = spawnSync(process.execPath, ['-e', '']).pid;
  fs.writeFileSync(path.join(dir, 'LOCK'), JSON.stringify({ pid: dead, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z' }));
  const warnings: { message: string; fields: Record<string, unknown> | undefined }[] = [];
  const store = await openFileStore({ dataDir: dir, fs: new TestFileSystem({ noSync: true }), logger: { info() {}, warn: (message, fields) => warnings.push({ message, fields }) } });
  await store.close();
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!.message, /took over the data folder's LOCK/);
  assert.equal(warnings[0]!.fields?.['pid'], dead);
});
