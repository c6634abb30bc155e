// nodeFileSystem: what the service creates is for its own user only (issue 12: the log holds e-mails).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { openFileStore } from '../../../src/store/file/open-file-store.js';
import { eventId, sampleRecord, tempDir } from '../helpers.js';

test('openFileStore() creates the data folder 0700 and events.jsonl 0600, whatever the umask; a compacted log stays 0600', { skip: process.platform === 'win32' }, async (t) => {
  const previous = process.umask(0o022);
  try {
    const dir = path.join(tempDir(t), 'fresh', 'data');
    const store = await openFileStore({ dataDir: dir });
    await store.write(eventId(1), () => sampleRecord(1));
    await store.write(eventId(1), () => sampleRecord(1, { title: 'Again' }));
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.dirname(dir)).mode & 0o777, 0o700, 'every folder it created');
    assert.equal(fs.statSync(path.join(dir, 'events.jsonl')).mode & 0o777, 0o600);
    await store.compact();
    assert.equal(fs.statSync(path.join(dir, 'events.jsonl')).mode & 0o777, 0o600);
    await store.close();
  } finally {
    process.umask(previous);
  }
});
