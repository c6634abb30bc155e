// backupLog: a prefix of whole, verified lines, taken while the store writes; never overwriting, never keeping a half copy.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { openFileStore } from '../../../src/store/file/open-file-store.js';
import { BackupRefusedError, backupLog } from '../../../src/store/file/log-backup.js';
import { LogDamageError } from '../../../src/store/file/log-damage-error.js';
import { eventId, logLines, sampleRecord, tempDir } from '../helpers.js';

/** A folder whose log holds `count` events, one line each (every 5th with a long description). */
async function loggedFolder(t: { after(fn: () => void): void }, count: number): Promise<string> {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir });
  for (let n = 0; n < count; n++) await store.write(eventId(n), () => sampleRecord(n, { description: n % 5 === 0 ? 'd'.repeat(700) : '' }));
  await store.close();
  return dir;
}

test('backupLog() copies every line byte for byte, whatever its chunk size, lines longer than a chunk included', async (t) => {
  const dir = await loggedFolder(t, 12);
  const log = fs.readFileSync(path.join(dir, 'events.jsonl'));
  for (const chunkBytes of [64, 1000, 1 << 20]) {
    const out = path.join(dir, `copy-${chunkBytes}.jsonl`);
    const result = await backupLog(dir, out, { chunkBytes });
    assert.deepEqual({ lines: result.lines, bytes: result.bytes, lastSeq: result.lastSeq, leftOut: result.leftOut }, { lines: 12, bytes: log.length, lastSeq: 12, leftOut: 0 });
    assert.deepEqual(fs.readFileSync(out), log);
    assert.equal(fs.existsSync(`${out}.tmp`), false);
  }
});

test('backupLog() leaves out an incomplete or damaged last line, and the copy opens as a store', async (t) => {
  const dir = await loggedFolder(t, 5);
  const file = path.join(dir, 'events.jsonl');
  const whole = fs.readFileSync(file);
  for (const [name, tail] of [
    ['incomplete', '{"seq":6,"op":"put","created_at"'],
    ['damaged', logLines(file)[1]!.replace('"seq":2', '"seq":6')],
  ] as const) {
    fs.writeFileSync(file, Buffer.concat([whole, Buffer.from(tail)]));
    const out = path.join(dir, `${name}.jsonl`);
    const result = await backupLog(dir, out, { chunkBytes: 100 });
    assert.equal(result.leftOut, Buffer.byteLength(tail));
    assert.deepEqual(fs.readFileSync(out), whole);
    const restored = path.join(dir, `restored-${name}`);
    fs.mkdirSync(restored);
    fs.renameSync(out, path.join(restored, 'events.jsonl'));
    const store = await openFileStore({ dataDir: restored });
    assert.equal(store.size, 5);
    await store.close();
  }
});

test('backupLog() refuses damage before the last line: LogDamageError names it, and no copy is left', async (t) => {
  const dir = await loggedFolder(t, 4);
  const file = path.join(dir, 'events.jsonl');
  const lines = logLines(file);
  lines[1] = lines[1]!.replace('Event 1', 'Event X');
  fs.writeFileSync(file, lines.join(''));
  const out = path.join(dir, 'copy.jsonl');
  await assert.rejects(backupLog(dir, out, { chunkBytes: 128 }), (error) => error instanceof LogDamageError && error.line === 2);
  assert.equal(fs.existsSync(out), false);
  assert.equal(fs.existsSync(`${out}.tmp`), false);
});

test('backupLog() refuses an existing FILE or FILE.tmp, and a folder without a log, touching nothing', async (t) => {
  const dir = await loggedFolder(t, 2);
  const out = path.join(dir, 'copy.jsonl');
  fs.writeFileSync(out, 'an older backup');
  await assert.rejects(backupLog(dir, out), (error) => error instanceof BackupRefusedError && /already exists/.test(error.message));
  assert.equal(fs.readFileSync(out, 'utf8'), 'an older backup');
  fs.renameSync(out, `${out}.tmp`);
  await assert.rejects(backupLog(dir, out), (error) => error instanceof BackupRefusedError && /interrupted backup/.test(error.message));
  assert.equal(fs.readFileSync(`${out}.tmp`, 'utf8'), 'an older backup');
  await assert.rejects(backupLog(path.join(dir, 'nothing-here'), path.join(dir, 'other.jsonl')), (error) => error instanceof BackupRefusedError && /no event log/.test(error.message));
});

test('backupLog() while the store writes: each copy is a prefix of the final log holding every write acknowledged before it began', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir, lock: false });
  const acknowledged: string[] = [];
  let writing = true;
  const writers = Array.from({ length: 4 }, async (_, w) => {
    for (let n = 0; writing; n++) {
      const id = eventId(w * 1_000_000 + n);
      await store.write(id, () => sampleRecord(w * 1_000_000 + n));
      acknowledged.push(id);
    }
  });
  const copies: { file: string; before: string[] }[] = [];
  for (let k = 0; k < 5; k++) {
    await new Promise((resolve) => setTimeout(resolve, 15));
    const before = [...acknowledged];
    const file = path.join(dir, `copy-${k}.jsonl`);
    await backupLog(dir, file, { chunkBytes: 4096 });
    copies.push({ file, before });
  }
  writing = false;
  await Promise.all(writers);
  await store.close();
  const log = fs.readFileSync(path.join(dir, 'events.jsonl'));
  for (const { file, before } of copies) {
    const copy = fs.readFileSync(file);
    assert.ok(log.subarray(0, copy.length).equals(copy), `${file} is a prefix of the log`);
    const ids = new Set(logLines(file).map((line) => (JSON.parse(line) as { event: { id: string } }).event.id));
    for (const id of before) assert.ok(ids.has(id), `${id} was acknowledged before ${file} began`);
  }
});
