// replayLog over logs the real writers made (a WriteQueue's seeded random writes of every kind, then compactLog, then
// more writes), read whole, cut at random bytes, with a byte flipped or a line written twice, in random chunk sizes:
// each compared with the records of its whole lines applied to empty views (applyRecord, as another instance applies a
// writer's lines) and with the writer's own views. REPLAY_SEED=n replays a run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogDamageError } from '../../../src/store/file/log-damage-error.js';
import { replayLog, type ReplayResult } from '../../../src/store/file/log-replay.js';
import { verifyLog } from '../../../src/store/file/log-verify.js';
import type { LogRecord, MetaRecord, StoredDocument } from '../../../src/store/records/jsonl-record.js';
import { applyRecord, type Views } from '../../../src/store/views/apply-record.js';
import { IdempotencyTable } from '../../../src/store/views/idempotency-table.js';
import type { RosterTable } from '../../../src/store/views/roster-table.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventFields, eventId, sampleRecord } from '../helpers.js';
import { emptyViews, randomWrites, type Writer } from '../views/random-writes.js';
import { registrationId } from '../views/roster-helpers.js';
import { MemoryFileSystem } from './memory-file-system.js';
import { appendBatches, compact, emptyLog, FILE, guardedWriter, linesOf, type Line } from './written-log.js';

const SEED = Number(process.env['REPLAY_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

/** Puts of an event already live: replay moves each to the end of its map (work it counts). */
function updates(records: readonly (LogRecord | MetaRecord)[]): number {
  const live = new Set<string>();
  let count = 0;
  for (const record of records) {
    if (record.op === 'put') {
      if (live.has(record.stored.id)) count++;
      live.add(record.stored.id);
    } else if (record.op === 'del') live.delete(record.id);
  }
  return count;
}

/** A record whose seq must grow from line to line (an idem or docstate line keeps the seq of an older write). */
function ordered(record: LogRecord | MetaRecord): boolean {
  return record.op !== 'idem' && record.op !== 'docstate';
}

function rosterState(rosters: RosterTable): unknown[] {
  return [...rosters.entries()].map(([id, roster]) => [id, [...roster.values()], roster.confirmed, roster.waitlisted]).sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
}

/** Asserts that a replay found what `expected` holds: live events in seq order, rosters, documents, answers, tombstones. */
function assertReplayed(result: ReplayResult, expected: Views, answers: IdempotencyTable, nowMs: number, where: string): void {
  const inSeqOrder = [...expected.index.values()].sort((a, b) => a.seq - b.seq);
  assert.deepEqual([...result.events.keys()], inSeqOrder.map((event) => event.id), `${where}: live events in seq order`);
  assert.deepEqual([...result.events.values()].map(eventFields), inSeqOrder.map(eventFields), `${where}: events`);
  assert.deepEqual(rosterState(result.rosters), rosterState(expected.rosters), `${where}: rosters`);
  assert.equal(result.rosters.registrations, expected.rosters.registrations, `${where}: registrations`);
  // Documents come in no promised order (a compacted log holds them in seq order): compared by collection and id.
  const byKey = (documents: readonly StoredDocument[]): StoredDocument[] => [...documents].sort((a, b) => (a.collection + a.id < b.collection + b.id ? -1 : 1));
  assert.deepEqual(byKey(result.documents.all()), byKey(expected.documents.all()), `${where}: documents`);
  assert.deepEqual(answers.live(nowMs), expected.idempotency.live(nowMs), `${where}: remembered answers`);
  assert.deepEqual([...result.tombstones], [...expected.changes.tombstones], `${where}: tombstones, in seq order`);
}

async function replay(fs: MemoryFileSystem, chunkBytes: number | undefined, nowMs: number): Promise<{ result: ReplayResult; answers: IdempotencyTable }> {
  const fd = await fs.open(FILE, 'r');
  try {
    const answers = new IdempotencyTable();
    const result = await replayLog(fs, fd, { file: FILE, now: () => nowMs, idempotency: answers, ...(chunkBytes === undefined ? {} : { chunkBytes }) });
    return { result, answers };
  } finally {
    await fs.close(fd);
  }
}

/** The views another instance has after applying the records of `lines`. */
function applied(lines: readonly Line[], nowMs: number): Views {
  const views = emptyViews();
  for (const line of lines) for (const record of line.records) applyRecord(views, record, nowMs);
  return views;
}

function chunkSize(random: () => number): number | undefined {
  const roll = random();
  return roll < 0.15 ? undefined : roll < 0.3 ? 1 + Math.floor(random() * 8) : 16 + Math.floor(random() * 600);
}

/** Whether a compaction of the writer's state writes a mark line: when a seq up to the last is held by no live event or registration. */
function writesMark(writer: Writer): boolean {
  const held = new Set<number>();
  for (const event of writer.views.index.values()) held.add(event.seq);
  for (const [, roster] of writer.views.rosters.entries()) for (const registration of roster.values()) held.add(registration.seq);
  return held.size < writer.queue.nextSeq - 1;
}

/**
 * Replays the log whole, then cut at random bytes from `firstCut` on (a compaction's snapshot is never torn: it is
 * written whole, then renamed into place), with a byte flipped, and with a line written twice.
 */
async function checkLog(random: () => number, log: Buffer, firstCut: number, writer: Writer, where: string): Promise<void> {
  const nowMs = writer.clock.now;
  const lines = linesOf(log);
  const fs = new MemoryFileSystem();

  // Whole: the writer's own views, and where the good lines end.
  fs.files.set(FILE, log);
  const whole = await replay(fs, chunkSize(random), nowMs);
  assertReplayed(whole.result, writer.views, whole.answers, nowMs, `${where}, whole`);
  assert.deepEqual(
    { lines: whole.result.lines, lastSeq: whole.result.lastSeq, horizon: whole.result.horizon, goodLength: whole.result.goodLength, fileLength: whole.result.fileLength, torn: whole.result.torn },
    { lines: lines.reduce((sum, line) => sum + line.records.length, 0), lastSeq: writer.queue.nextSeq - 1, horizon: writer.views.changes.horizon, goodLength: log.length, fileLength: log.length, torn: undefined },
    `${where}, whole`,
  );
  assert.equal(whole.result.work.moved, updates(lines.flatMap((line) => line.records)), `${where}, whole: events moved`);
  // The `verify` command's report of the same log: the answers it remembers apart, not superseded (compaction keeps them).
  const records = lines.reduce((sum, line) => sum + line.records.length, 0);
  const live = { liveEvents: writer.views.index.size, liveRegistrations: writer.views.rosters.registrations, liveDocuments: writer.views.documents.size };
  const rememberedAnswers = writer.views.idempotency.liveCount(nowMs);
  assert.deepEqual(await verifyLog('/data', { fs, now: () => nowMs }), {
    file: FILE,
    exists: true,
    lines: records,
    ...live,
    rememberedAnswers,
    supersededLines: Math.max(0, records - live.liveEvents - live.liveRegistrations - live.liveDocuments - rememberedAnswers - (writesMark(writer) ? 1 : 0)),
    lastSeq: writer.queue.nextSeq - 1,
    goodLength: log.length,
    fileLength: log.length,
    torn: undefined,
  }, `${where}, verify`);

  // Cut at random bytes: the whole lines before the cut, and a torn tail from the first line the cut runs into.
  for (let round = 0; round < 24; round++) {
    const cut = round === 0 ? firstCut : round === 1 ? lines.at(-1)!.start : firstCut + Math.floor(random() * (log.length - firstCut + 1));
    const complete = lines.filter((line) => line.end <= cut);
    const goodLength = complete.at(-1)?.end ?? 0;
    fs.files.set(FILE, log.subarray(0, cut));
    const chunk = chunkSize(random);
    const at = `${where}, cut at ${cut} of ${log.length}, chunk ${chunk}`;
    const { result, answers } = await replay(fs, chunk, nowMs);
    assertReplayed(result, applied(complete, nowMs), answers, nowMs, at);
    const records = complete.flatMap((line) => line.records);
    assert.equal(result.work.moved, updates(records), `${at}: events moved`);
    assert.deepEqual(
      { lines: result.lines, lastSeq: result.lastSeq, horizon: result.horizon, goodLength: result.goodLength, fileLength: result.fileLength, torn: result.torn },
      {
        lines: records.length,
        // A mark line says the newest deletion its compaction dropped.
        horizon: records.reduce((newest, record) => (record.op === 'mark' ? Math.max(newest, record.gone) : newest), 0),
        lastSeq: records.filter(ordered).reduce((last, record) => record.seq, 0),
        goodLength,
        fileLength: cut,
        torn: cut === goodLength ? undefined : { line: complete.length + 1, offset: goodLength, reason: 'the last line is incomplete (no newline)' },
      },
      at,
    );
  }

  // A flipped byte: in the last line, a torn tail; before it, damage that names the line.
  for (let round = 0; round < 12; round++) {
    const index = round === 0 ? lines.length - 1 : round === 1 ? 0 : Math.floor(random() * lines.length);
    const line = lines[index]!;
    const position = line.start + Math.floor(random() * (line.end - 1 - line.start));
    const flipped = Buffer.from(log);
    flipped[position]! ^= 1 + Math.floor(random() * 255);
    fs.files.set(FILE, flipped);
    const at = `${where}, byte ${position} of line ${index + 1} flipped to ${flipped[position]}`;
    if (index === lines.length - 1) {
      const { result, answers } = await replay(fs, chunkSize(random), nowMs);
      assertReplayed(result, applied(lines.slice(0, -1), nowMs), answers, nowMs, at);
      assert.deepEqual([result.goodLength, result.fileLength, result.torn?.line, result.torn?.offset], [line.start, log.length, index + 1, line.start], at);
      continue;
    }
    // A flip to a newline splits the line: its second part is a line too, and bad.
    const nextGood = index + (flipped[position] === 10 ? 3 : 2);
    await assert.rejects(replay(fs, chunkSize(random), nowMs), (error) => {
      assert.ok(error instanceof LogDamageError, at);
      assert.deepEqual([error.file, error.line, error.offset], [FILE, index + 1, line.start], at);
      assert.match(error.reason, new RegExp(`; line ${nextGood} after it is good, so this is not a torn tail$`), at);
      assert.equal(error.message, `${FILE}: line ${index + 1} (byte offset ${line.start}) is damaged: ${error.reason}. The store will not start, so that no data is dropped silently; restore the file from a backup, or check it with \`verify\`.`);
      assert.equal(error.name, 'LogDamageError');
      return true;
    });
  }

  // A line written twice: the second copy's seq does not grow.
  const candidates = lines.flatMap((line, index) => (line.records.some(ordered) ? [index] : []));
  for (let round = 0; round < 4; round++) {
    const index = candidates[Math.floor(random() * candidates.length)]!;
    const line = lines[index]!;
    const seqs = line.records.filter(ordered).map((record) => record.seq);
    fs.files.set(FILE, Buffer.concat([log.subarray(0, line.end), log.subarray(line.start)]));
    const at = `${where}, line ${index + 1} written twice`;
    await assert.rejects(replay(fs, chunkSize(random), nowMs), (error) => {
      assert.ok(error instanceof LogDamageError, at);
      assert.deepEqual([error.line, error.offset], [index + 2, line.end], at);
      assert.equal(error.reason, `its sequence number ${seqs[0]} is not greater than the ${seqs.at(-1)} of the line before`, at);
      return true;
    });
  }
}

test(`replayLog() gives back what the writer wrote, whole, cut at any byte, damaged, before and after a compaction (REPLAY_SEED=${SEED})`, async (t) => {
  t.diagnostic(`seed ${SEED}`);
  const random = mulberry32(SEED);
  const writer = guardedWriter();
  const fs = emptyLog();
  await randomWrites(random, writer, 24);
  // The last rounds within the hour, so answers are still remembered at the end.
  await randomWrites(random, writer, 6, 0);
  // One answer surely remembered at the compaction below, whatever the seed drew: the compacted log holds an idem line.
  await writer.queue.write(eventId(1), () => sampleRecord(1), { idem: { key: 'key-remembered', keyId: 'k1', requestHash: 'h-remembered' } });
  // And one document surely live at it (REPLAY_SEED=848168491 drew every document deleted): it holds a docstate line.
  await writer.queue.writeGroup(() => ({ events: [], documents: [{ collection: 'series', id: 'ser_kept0000000000000000', json: '{"kept":true}' }] }));
  // And one registration surely live at it (REPLAY_SEED=293921496 drew none left): on an event of its own, written after
  // the event that the deletion below takes (the oldest live one), so the compacted log holds a regstate line.
  await writer.queue.write(eventId(99), () => sampleRecord(99));
  await writer.queue.changeRegistrations(eventId(99), () => ({ op: 'register', registration: { id: registrationId(99_999), name: 'Kept', email: 'kept@example.edu' } }));
  let written = appendBatches(fs, FILE, writer, 0);
  const plain = Buffer.from(fs.content(FILE));
  assert.ok(plain.includes(',"op":"group",'), `seed ${SEED}: the log holds a group line`);
  await checkLog(random, plain, 0, writer, `seed ${SEED}, written`);

  const live = [...writer.views.index.values()];
  if (live.length > 0) await writer.queue.write(live[0]!.id, () => null);
  written = appendBatches(fs, FILE, writer, written);
  const gone = await compact(fs, FILE, writer);
  const snapshot = fs.content(FILE).length;
  await randomWrites(random, writer, 10, 0);
  written = appendBatches(fs, FILE, writer, written);
  const compacted = Buffer.from(fs.content(FILE));
  for (const op of ['idem', 'docstate', 'regstate', 'mark', 'put']) assert.ok(compacted.includes(`"op":"${op}"`), `seed ${SEED}: a compacted log holds a ${op} line`);
  assert.ok(gone > 0, `seed ${SEED}: the compaction dropped a deletion`);
  await checkLog(random, compacted, snapshot, writer, `seed ${SEED}, compacted`);
});
