// replaceFile(): a small file replaced whole or not at all, with mode 0600 and no temporary file left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { replaceFile } from '../../../src/lib/fs/replace-file.js';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-replace-file-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('replaceFile() replaces the text whole, with mode 0600, and leaves only the file in its folder', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'keys.json');
  fs.writeFileSync(file, 'old', { mode: 0o644 });
  await replaceFile(file, '{"new":true}\n');
  assert.equal(fs.readFileSync(file, 'utf8'), '{"new":true}\n');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(dir), ['keys.json']);
});

test('replaceFile() that cannot write its temporary file leaves the old file as it was and throws the first error', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'webhooks.json');
  fs.writeFileSync(file, 'old');
  const temporary = `${file}.tmp`;
  fs.mkdirSync(temporary);
  await assert.rejects(replaceFile(file, 'new', { temporary }), { code: 'EISDIR' });
  assert.equal(fs.readFileSync(file, 'utf8'), 'old');
});

test('replaceFile() whose rename fails removes its temporary file and keeps the old file', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'target');
  fs.mkdirSync(file);
  fs.writeFileSync(path.join(file, 'inside'), 'x');
  await assert.rejects(replaceFile(file, 'new', { sync: false }), (error: NodeJS.ErrnoException) => error.code === 'EISDIR' || error.code === 'ENOTEMPTY' || error.code === 'EEXIST');
  assert.deepEqual(fs.readdirSync(dir), ['target']);
  assert.deepEqual(fs.readdirSync(file), ['inside']);
});
