// UncertainWriteError: when a failed batch cannot be cut back off the log, the store stops promising "nothing saved" (issue 12).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoreUnavailable } from '../../src/store/store-errors.js';
import { openFileStore } from '../../src/store/file/open-file-store.js';
import { eventId, sampleRecord, tempDir, TestFileSystem } from './helpers.js';

/** A file system whose fdatasync #2 fails and whose every ftruncate fails too. */
class NoUndoFileSystem extends TestFileSystem {
  override ftruncate = (): Promise<void> => Promise.reject(Object.assign(new Error('EIO: injected ftruncate failure'), { code: 'EIO' }));
}

test('FileStore: fdatasync fails and the truncate that undoes it fails too: 503 says the state is uncertain, and every later write is refused', async (t) => {
  const files = new NoUndoFileSystem({ failSyncAt: 2, code: 'EIO' });
  const store = await openFileStore({ dataDir: tempDir(t), fs: files });
  await store.write(eventId(1), () => sampleRecord(1));
  const failed = await store.write(eventId(2), () => sampleRecord(2)).then(() => undefined, (error: unknown) => error);
  assert.ok(failed instanceof StoreUnavailable, String(failed));
  assert.match(failed.message, /uncertain until the server is restarted/);
  assert.doesNotMatch(failed.message, /nothing of this request was saved/);
  assert.equal(store.writable, false);
  assert.match(store.unwritableReason ?? '', /EIO.*uncertain/);
  await assert.rejects(store.write(eventId(3), () => sampleRecord(3)), /uncertain/);
  await store.close();
});

test('FileStore: fdatasync fails but the undo works: the 503 still says nothing was saved', async (t) => {
  const files = new TestFileSystem({ failSyncAt: 2, code: 'EIO' });
  const store = await openFileStore({ dataDir: tempDir(t), fs: files });
  await store.write(eventId(1), () => sampleRecord(1));
  await assert.rejects(store.write(eventId(2), () => sampleRecord(2)), /nothing of this request was saved/);
  assert.match(store.unwritableReason ?? '', /^EIO/);
  await store.close();
});
