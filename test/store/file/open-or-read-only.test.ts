// openFileStoreOrReadOnly: a start that finds no room opens the store read-only, changing nothing in the folder (issue 12.3).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { openFileStore } from '../../../src/store/file/file-store.js';
import { isNoRoom, openFileStoreOrReadOnly } from '../../../src/store/file/open-or-read-only.js';
import { eventId, sampleRecord, tempDir, TestFileSystem } from '../helpers.js';

/** A file system on which creating any file fails with ENOSPC (the LOCK's temporary file, a .torn- file). */
class FullFileSystem extends TestFileSystem {
  override open = (file: string, flags: string): Promise<number> =>
    flags.includes('w') ? Promise.reject(Object.assign(new Error(`ENOSPC: injected, open ${file}`), { code: 'ENOSPC' })) : new TestFileSystem().open(file, flags);
}

test('openFileStoreOrReadOnly(): a torn tail that cannot be set aside (ENOSPC) opens read-only, leaving the log as it was', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir });
  await store.write(eventId(1), () => sampleRecord(1));
  await store.close();
  const file = path.join(dir, 'events.jsonl');
  fs.appendFileSync(file, '{"seq":2,"op":"put","torn');
  const bytes = fs.readFileSync(file);
  const warnings: string[] = [];
  const readOnly = await openFileStoreOrReadOnly({ dataDir: dir, fs: new FullFileSystem(), logger: { info() {}, warn: (message) => warnings.push(message) } });
  assert.equal(readOnly.get(eventId(1))?.id, eventId(1), 'reads are served');
  assert.equal(readOnly.writable, false);
  assert.match(readOnly.unwritableReason ?? '', /^started read-only: ENOSPC/);
  await assert.rejects(readOnly.write(eventId(2), () => sampleRecord(2)), /ENOSPC/);
  assert.ok(warnings.some((message) => message.includes('no room to start writable')), warnings.join('\n'));
  await readOnly.close();
  assert.deepEqual(fs.readFileSync(file), bytes, 'the log is untouched, torn tail included');
  assert.deepEqual(fs.readdirSync(dir).sort(), ['events.jsonl'], 'no LOCK, no .torn- file, no temporary file');
});

test('openFileStoreOrReadOnly(): still refuses a folder whose LOCK a live process holds', async (t) => {
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'LOCK'), JSON.stringify({ pid: process.ppid, host: os.hostname(), started_at: '2026-01-01T00:00:00.000Z' }));
  await assert.rejects(openFileStoreOrReadOnly({ dataDir: dir, fs: new FullFileSystem() }), /in use by process/);
});

test('isNoRoom() is true for ENOSPC, EDQUOT and EROFS only', () => {
  for (const code of ['ENOSPC', 'EDQUOT', 'EROFS']) assert.equal(isNoRoom(Object.assign(new Error(code), { code })), true, code);
  for (const error of [Object.assign(new Error('EIO'), { code: 'EIO' }), new Error('x'), undefined, 'ENOSPC']) assert.equal(isNoRoom(error), false);
});
