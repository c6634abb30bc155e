// writeFully and copyBytes over a file system in memory: whole writes through short ones, copies in 4 MiB chunks, and the errors of a write that writes nothing or a source that ends early.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { copyBytes, writeFully } from '../../../src/store/file/write-fully.js';
import { mulberry32 } from '../../helpers/random.js';
import { RecordingFileSystem } from './recording-file-system.js';

const SEED = Number(process.env.WRITE_FULLY_SEED ?? Date.now() % 100_000);
const MIB4 = 4 * 1024 * 1024;

function randomBytes(random: () => number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

test(`writeFully() writes every byte at its position through short writes, each write starting where the last ended (WRITE_FULLY_SEED=${SEED})`, async () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 60; round++) {
    const maxWriteBytes = 1 + Math.floor(random() * 40);
    const fs = new RecordingFileSystem({ maxWriteBytes });
    const before = randomBytes(random, Math.floor(random() * 50));
    fs.put('/f', before);
    const fd = await fs.open('/f', 'r+');
    const bytes = randomBytes(random, Math.floor(random() * 120));
    const position = Math.floor(random() * 60);
    await writeFully(fs, fd, bytes, position, '/f');
    const expected = Buffer.alloc(Math.max(before.length, bytes.length > 0 ? position + bytes.length : 0));
    before.copy(expected);
    bytes.copy(expected, position);
    assert.deepEqual(fs.files.get('/f')!.bytes, expected, `seed ${SEED} round ${round}`);
    const writes: string[] = [];
    for (let done = 0; done < bytes.length; done += maxWriteBytes) writes.push(`write /f ${bytes.length - done}@${position + done}`);
    assert.deepEqual(fs.calls.slice(1), writes, `seed ${SEED} round ${round}: one write per short write, none for no bytes`);
  }
});

test('writeFully() refuses a write that writes nothing with EIO, naming the file, rather than looping', async () => {
  const fs = new RecordingFileSystem({ maxWriteBytes: 3, zeroWriteAt: 2 });
  const fd = await fs.open('/log', 'w+');
  const error = await writeFully(fs, fd, Buffer.from('abcdefgh'), 0, 'the log').then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof Error);
  assert.equal(error.message, 'write() to the log wrote nothing');
  assert.equal((error as { code?: string }).code, 'EIO');
  assert.equal(fs.counts.get('write'), 2);
  assert.equal(fs.text('/log'), 'abc');
});

test('writeFully() passes a failing write on', async () => {
  const fs = new RecordingFileSystem({ failAt: { write: 1 }, code: 'ENOSPC' });
  const fd = await fs.open('/log', 'w+');
  await assert.rejects(writeFully(fs, fd, Buffer.from('abc'), 0, 'the log'), { code: 'ENOSPC' });
});

test(`copyBytes() copies [start, end) to its position through short reads and writes, reading at most what is left (WRITE_FULLY_SEED=${SEED})`, async () => {
  const random = mulberry32(SEED + 1);
  for (let round = 0; round < 60; round++) {
    const maxReadBytes = 1 + Math.floor(random() * 30);
    const maxWriteBytes = 1 + Math.floor(random() * 30);
    const fs = new RecordingFileSystem({ maxReadBytes, maxWriteBytes });
    const source = randomBytes(random, 1 + Math.floor(random() * 100));
    fs.put('/from', source);
    const target = randomBytes(random, Math.floor(random() * 20));
    fs.put('/to', target);
    const from = await fs.open('/from', 'r');
    const to = await fs.open('/to', 'r+');
    const start = Math.floor(random() * source.length);
    const end = start + Math.floor(random() * (source.length - start + 1));
    const toPosition = Math.floor(random() * 30);
    await copyBytes(fs, { from, start, end, to, toPosition, what: 'copy' });
    const expected = Buffer.alloc(Math.max(target.length, end > start ? toPosition + end - start : 0));
    target.copy(expected);
    source.copy(expected, toPosition, start, end);
    assert.deepEqual(fs.files.get('/to')!.bytes, expected, `seed ${SEED} round ${round}`);
    const reads = fs.calls.filter((call) => call.startsWith('read'));
    const wanted: string[] = [];
    for (let position = start; position < end; position += Math.min(maxReadBytes, end - position)) wanted.push(`read /from ${end - position}@${position}`);
    assert.deepEqual(reads, wanted, `seed ${SEED} round ${round}`);
  }
});

test('copyBytes() copies nothing, and reads nothing, when end is not after start', async () => {
  const fs = new RecordingFileSystem();
  fs.put('/from', 'abcdef');
  const from = await fs.open('/from', 'r');
  const to = await fs.open('/to', 'w+');
  for (const [start, end] of [[3, 3], [4, 2], [6, 6]] as const) await copyBytes(fs, { from, start, end, to, toPosition: 0, what: 'copy' });
  assert.deepEqual(fs.calls, ['open /from r', 'open /to w+']);
  assert.equal(fs.text('/to'), '');
});

test('copyBytes() reads a copy of more than 4 MiB in chunks of 4 MiB, each written at its place', async () => {
  const fs = new RecordingFileSystem();
  const length = MIB4 * 2 + 1000;
  const source = Buffer.alloc(length + 10);
  for (let i = 0; i < source.length; i++) source[i] = (i * 7 + (i >> 12)) & 0xff;
  fs.put('/from', source);
  const from = await fs.open('/from', 'r');
  const to = await fs.open('/to', 'w+');
  await copyBytes(fs, { from, start: 5, end: 5 + length, to, toPosition: 2, what: 'copy' });
  assert.deepEqual(fs.calls.slice(2), [
    `read /from ${MIB4}@5`,
    `write /to ${MIB4}@2`,
    `read /from ${MIB4}@${5 + MIB4}`,
    `write /to ${MIB4}@${2 + MIB4}`,
    `read /from 1000@${5 + 2 * MIB4}`,
    `write /to 1000@${2 + 2 * MIB4}`,
  ]);
  assert.ok(fs.files.get('/to')!.bytes.subarray(2).equals(source.subarray(5, 5 + length)));
});

test('copyBytes() refuses a source that ends before `end` with EIO, naming the file and the byte', async () => {
  const fs = new RecordingFileSystem({ maxReadBytes: 4 });
  fs.put('/from', 'abcdefghij');
  const from = await fs.open('/from', 'r');
  const to = await fs.open('/to', 'w+');
  const error = await copyBytes(fs, { from, start: 2, end: 14, to, toPosition: 0, what: 'the torn file' }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof Error);
  assert.equal(error.message, 'the torn file: the source ended at byte 10, before 14');
  assert.equal((error as { code?: string }).code, 'EIO');
  assert.equal(fs.text('/to'), 'cdefghij', 'what was there is copied');
});

test('copyBytes() names the copy in the error of a write that writes nothing', async () => {
  const fs = new RecordingFileSystem({ zeroWriteAt: 1 });
  fs.put('/from', 'abc');
  const from = await fs.open('/from', 'r');
  const to = await fs.open('/to', 'w+');
  await assert.rejects(copyBytes(fs, { from, start: 0, end: 3, to, toPosition: 0, what: 'the copy' }), { message: 'write() to the copy wrote nothing' });
});
