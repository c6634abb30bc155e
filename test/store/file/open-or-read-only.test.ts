// openFileStoreOrReadOnly: a start that finds no room opens the store read-only, changing nothing in the folder (issue 12.3).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { openFileStore } from '../../../src/store/file/open-file-store.js';
import { isNoRoom, openFileStoreOrReadOnly } from '../../../src/store/file/open-or-read-only.js';
import { eventId, sampleRecord, tempDir, TestFileSystem } from '../helpers.js';

/** A file system on which creating any file fails with ENOSPC (the LOCK's temporary file, a .torn- file). */
class FullFileSystem extends TestFileSystem {
  constructor(readonly code = 'ENOSPC') {
    super();
  }

  override open = (file: string, flags: string): Promise<number> =>
    flags.includes('w') ? Promise.reject(Object.assign(new Error(`${this.code}: injected, open ${file}`), { code: this.code })) : new TestFileSystem().open(file, flags);
}

/** A folder whose log holds one event and a torn tail, which a writable start sets aside in a new file. */
async function tornLog(dir: string): Promise<string> {
  const store = await openFileStore({ dataDir: dir });
  await store.write(eventId(1), () => sampleRecord(1));
  await store.close();
  const file = path.join(dir, 'events.jsonl');
  fs.appendFileSync(file, '{"seq":2,"op":"put","torn');
  return file;
}

test('openFileStoreOrReadOnly(): a torn tail that cannot be set aside (ENOSPC) opens read-only, leaving the log as it was', async (t) => {
  const dir = tempDir(t);
  const file = await tornLog(dir);
  const bytes = fs.readFileSync(file);
  const warnings: [string, unknown][] = [];
  const readOnly = await openFileStoreOrReadOnly({ dataDir: dir, fs: new FullFileSystem(), logger: { info() {}, warn: (message, fields) => warnings.push([message, fields]) } });
  assert.equal(readOnly.get(eventId(1))?.id, eventId(1), 'reads are served');
  assert.equal(readOnly.writable, false);
  assert.match(readOnly.unwritableReason ?? '', /^started read-only: ENOSPC/);
  await assert.rejects(readOnly.write(eventId(2), () => sampleRecord(2)), /ENOSPC/);
  const [message, fields] = warnings[0]!;
  assert.equal(message, 'the data folder has no room to start writable: serving reads only, writes get 503 until a restart once there is room');
  const { detail, ...rest } = fields as { detail: string };
  assert.deepEqual(rest, { data_dir: dir, error: 'ENOSPC: no space left on the disk' });
  assert.match(detail, /^Error: ENOSPC: injected, open \S+events\.jsonl\.torn-/);
  await readOnly.close();
  assert.deepEqual(fs.readFileSync(file), bytes, 'the log is untouched, torn tail included');
  assert.deepEqual(fs.readdirSync(dir).sort(), ['events.jsonl'], 'no LOCK, no .torn- file, no temporary file');
});

test('openFileStoreOrReadOnly(): still refuses a folder whose LOCK a live process holds', async (t) => {
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'LOCK'), JSON.stringify({ pid: process.ppid, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z' }));
  await assert.rejects(openFileStoreOrReadOnly({ dataDir: dir, fs: new FullFileSystem() }), /in use by process/);
});

test('openFileStoreOrReadOnly(): opens read-only without a logger too, and passes on an error that is not about room', async (t) => {
  const dir = tempDir(t);
  await tornLog(dir);
  const readOnly = await openFileStoreOrReadOnly({ dataDir: dir, fs: new FullFileSystem('EDQUOT') });
  assert.equal(readOnly.get(eventId(1))?.id, eventId(1));
  assert.match(readOnly.unwritableReason ?? '', /^started read-only: EDQUOT/);
  await readOnly.close();
  await assert.rejects(openFileStoreOrReadOnly({ dataDir: dir, fs: new FullFileSystem('EACCES') }), { code: 'EACCES' });
});

test('isNoRoom() is true for ENOSPC, EDQUOT and EROFS only', () => {
  for (const code of ['ENOSPC', 'EDQUOT', 'EROFS']) assert.equal(isNoRoom(Object.assign(new Error(code), { code })), true, code);
  for (const error of [Object.assign(new Error('EIO'), { code: 'EIO' }), new Error('x'), undefined, null, 'ENOSPC', { code: 28 }]) assert.equal(isNoRoom(error), false);
});

test('openFileStoreOrReadOnly(): a first start without room is an error saying so, and leaves the folder empty', async (t) => {
  const dir = tempDir(t);
  const warnings: string[] = [];
  await assert.rejects(
    openFileStoreOrReadOnly({ dataDir: dir, fs: new FullFileSystem(), logger: { info() {}, warn: (message) => warnings.push(message) } }),
    (error: NodeJS.ErrnoException) => {
      assert.equal(error.message, `${dir} has no room for a first start (ENOSPC: no space left on the disk): free some space and start again`);
      assert.equal(error.code, 'ENOSPC');
      return true;
    },
  );
  assert.deepEqual(warnings, [], 'no line says it serves reads');
  assert.deepEqual(fs.readdirSync(dir), [], 'no LOCK, no empty log');
});
