// readHistoryAfter: the durable changes after a position, read back from a log the real writers made (seeded random
// writes, then a compaction and more writes), against what the writer's history listener heard and against a
// HistoryWalk over the log's records; at most `limit`, none after `through`. HISTORY_READ_SEED=n replays a run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readHistoryAfter } from '../../../src/store/file/history-read.js';
import { LogDamageError } from '../../../src/store/file/log-damage-error.js';
import { HistoryWalk, type HistoryRead } from '../../../src/store/views/change-history.js';
import { mulberry32 } from '../../helpers/random.js';
import { changeFields, randomWrites, type Writer } from '../views/random-writes.js';
import { MemoryFileSystem } from './memory-file-system.js';
import { appendBatches, compact, emptyLog, FILE, guardedWriter, linesOf } from './written-log.js';

const SEED = Number(process.env['HISTORY_READ_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const NOW = Date.parse('2031-02-03T04:05:06.007Z');

/** A history read as the obvious implementation makes it: every record of the log through `through`, walked. */
function walked(log: Buffer, since: number, through: number, limit: number): HistoryRead {
  const walk = new HistoryWalk(since, limit, NOW);
  for (const line of linesOf(log)) for (const record of line.records) if (record.seq <= through && !walk.take(record)) return walk.result;
  return walk.result;
}

function fields(read: HistoryRead): unknown {
  return { changes: read.changes.map(changeFields), compactedThrough: read.compactedThrough };
}

/** Random reads of the log at FILE: each equals the walk's, its changes all at NOW, and the log is closed after it. */
async function checkReads(random: () => number, fs: MemoryFileSystem, writer: Writer, where: string): Promise<void> {
  const log = fs.content(FILE);
  const lastSeq = writer.queue.nextSeq - 1;
  for (let round = 0; round < 24; round++) {
    const since = Math.floor(random() * (lastSeq + 2));
    const through = round % 4 === 0 ? lastSeq : Math.floor(random() * (lastSeq + 2));
    const limit = round % 3 === 0 ? undefined : 1 + Math.floor(random() * 12);
    const at = `${where}: since ${since}, through ${through}, limit ${limit}`;
    const opens = fs.opens;
    const read = await readHistoryAfter(fs, FILE, { since, through, limit }, NOW);
    assert.deepEqual(fields(read), fields(walked(log, since, through, limit ?? Infinity)), at);
    assert.ok(read.changes.every((change) => change.atMs === NOW), at);
    assert.ok(read.changes.length <= (limit ?? Infinity), at);
    assert.deepEqual([fs.opens - opens, fs.openCount], [1, 0], `${at}: one open, closed again`);
  }
}

test(`readHistoryAfter() gives the changes the writer's listener heard, after a position, through a seq, at most a limit (HISTORY_READ_SEED=${SEED})`, async (t) => {
  t.diagnostic(`seed ${SEED}`);
  const random = mulberry32(SEED);
  const writer = guardedWriter();
  const fs = emptyLog();
  await randomWrites(random, writer, 30);
  let written = appendBatches(fs, FILE, writer, 0);
  const lastSeq = writer.queue.nextSeq - 1;
  const heard = writer.heard.map(changeFields);

  // The whole history of a log never compacted is what the listener heard, in order.
  const all = await readHistoryAfter(fs, FILE, { since: 0, through: lastSeq }, NOW);
  assert.deepEqual(all.changes.map(changeFields), heard, `seed ${SEED}: every change`);
  assert.equal(all.compactedThrough, 0);
  const half = heard[Math.floor(heard.length / 2)]!;
  const since = Number(half['seq']);
  const after = await readHistoryAfter(fs, FILE, { since, through: lastSeq, limit: 5 }, NOW);
  assert.deepEqual(after.changes.map(changeFields), heard.filter((change) => Number(change['seq']) > since).slice(0, 5), `seed ${SEED}: 5 after ${since}`);
  const through = await readHistoryAfter(fs, FILE, { since: 0, through: since }, NOW);
  assert.deepEqual(through.changes.map(changeFields), heard.filter((change) => Number(change['seq']) <= since), `seed ${SEED}: through ${since}`);
  await checkReads(random, fs, writer, `seed ${SEED}, written`);

  // After a compaction: its mark and registration-state lines say how far it rewrote history.
  await compact(fs, FILE, writer);
  await randomWrites(random, writer, 10, 0);
  written = appendBatches(fs, FILE, writer, written);
  assert.ok(written > 0);
  await checkReads(random, fs, writer, `seed ${SEED}, compacted`);
  const compacted = await readHistoryAfter(fs, FILE, { since: 0, through: writer.queue.nextSeq - 1 }, NOW);
  assert.ok(compacted.compactedThrough > 0, `seed ${SEED}: a compacted log says so`);
});

test('readHistoryAfter() stops at its limit, rejects a damaged log naming the file, and closes the log even when closing fails', async () => {
  const random = mulberry32(7);
  const writer = guardedWriter();
  const fs = emptyLog();
  await randomWrites(random, writer, 12);
  appendBatches(fs, FILE, writer, 0);
  const lastSeq = writer.queue.nextSeq - 1;
  const heard = writer.heard.map(changeFields);
  assert.ok(heard.length > 3);

  // A close that fails changes nothing of what was read.
  fs.closeError = new Error('EIO: injected close failure');
  const three = await readHistoryAfter(fs, FILE, { since: 0, through: lastSeq, limit: 3 }, NOW);
  assert.deepEqual(three.changes.map(changeFields), heard.slice(0, 3));
  assert.equal(fs.openCount, 0);
  fs.closeError = undefined;

  // A flipped byte in the first line, good lines after it: the scan's damage, naming the file, not a short answer.
  const log = Buffer.from(fs.content(FILE));
  log[20]! ^= 0x01;
  fs.files.set(FILE, log);
  await assert.rejects(readHistoryAfter(fs, FILE, { since: 0, through: lastSeq, limit: 1 }, NOW), (error) => error instanceof LogDamageError && error.file === FILE && error.line === 1);
  assert.equal(fs.openCount, 0, 'closed after a failed read');

  // No log at all: the open's error, nothing left open.
  await assert.rejects(readHistoryAfter(fs, '/data/none.jsonl', { since: 0, through: lastSeq }, NOW), { code: 'ENOENT' });
  assert.equal(fs.openCount, 0);
});
