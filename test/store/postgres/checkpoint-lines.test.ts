// checkpointChunks(): a checkpoint holds, byte for byte, what the file store's compaction writes for the same state
// (seeded random writes of every kind; CHECKPOINT_SEED=n replays), cut into parts of whole lines.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { checkpointChunks, type CheckpointState } from '../../../src/store/postgres/checkpoint-lines.js';
import { compactLog } from '../../../src/store/file/log-compaction.js';
import { nodeFileSystem } from '../../../src/store/file/file-system.js';
import type { Views } from '../../../src/store/views/apply-record.js';
import type { Registration } from '../../../src/store/views/roster.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, sampleRecord, tempDir } from '../helpers.js';
import { registrationId } from '../views/roster-helpers.js';
import { newWriter, randomWrites } from '../views/random-writes.js';

const SEED = Number(process.env['CHECKPOINT_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

/** The state of a writer's views as a checkpoint takes it (PostgresStore's snapshot). */
function stateOf(views: Views, nowMs: number): CheckpointState {
  let gone = views.changes.horizon;
  for (const seq of views.changes.tombstones.values()) gone = Math.max(gone, seq);
  const registrations: Registration[] = [];
  for (const [, roster] of views.rosters.entries()) registrations.push(...roster.values());
  return { seq: views.changes.lastSeq, gone, events: [...views.index.values()], registrations, documents: views.documents.all(), answers: views.idempotency.live(nowMs) };
}

/** What the file store's compaction writes for the same views, read back from the file it renames into place. */
async function compactedByFileStore(views: Views, nowMs: number, dir: string): Promise<string> {
  const file = path.join(dir, 'events.jsonl');
  writeFileSync(file, '');
  const fd = await nodeFileSystem.open(file, 'r+');
  const log = { fd, length: 0, lines: 0 };
  const registrations: Registration[] = [];
  for (const [, roster] of views.rosters.entries()) registrations.push(...roster.values());
  let swapped: number | undefined;
  await compactLog({
    fs: nodeFileSystem,
    file,
    sync: false,
    committed: () => ({ events: [...views.index.values()], registrations, documents: views.documents.all(), log, lastSeq: views.changes.lastSeq, tombstones: new Map(views.changes.tombstones), horizon: views.changes.horizon, answers: views.idempotency.live(nowMs) }),
    pause: () => Promise.resolve(log),
    swap: (handle) => void (swapped = handle.fd),
    resume: () => undefined,
    refuse: (error) => assert.fail(String(error)),
    stopping: () => false,
    namesLog: () => Promise.resolve(true),
    settle: () => Promise.resolve(),
  });
  // The compaction closed the old log's handle; the new one is the test's to close.
  if (swapped !== undefined) await nodeFileSystem.close(swapped);
  return readFileSync(file, 'utf8');
}

test(`checkpointChunks() writes the lines the file store's compaction writes for the same state (CHECKPOINT_SEED=${SEED})`, async (t) => {
  const random = mulberry32(SEED);
  const dir = tempDir(t);
  const writer = newWriter();
  const kinds = new Set<string>();
  for (let round = 0; round < 6; round++) {
    await randomWrites(random, writer, 15);
    // The last rounds within the hour, so some answers are still remembered.
    await randomWrites(random, writer, 4, 0);
    // Half the time the state has deletions a compaction already forgot (a horizon), half the time not.
    if (random() < 0.5) writer.views.changes.dropDeletionsThrough(Math.floor(writer.views.changes.lastSeq / 2));
    const state = stateOf(writer.views, writer.clock.now);
    const expected = await compactedByFileStore(writer.views, writer.clock.now, dir);
    // Parts of 4 KiB, or of a quarter of the state when it is smaller (CHECKPOINT_SEED=2125406612 left under 4 KiB), so
    // a state of two lines or more always comes in several parts.
    const partBytes = Math.min(4096, Math.max(64, Math.floor(Buffer.byteLength(expected) / 4)));
    const chunks = [...checkpointChunks(state, partBytes)];
    const where = `seed ${SEED}, round ${round}`;
    assert.equal(chunks.map((chunk) => chunk.text).join(''), expected, where);
    for (const chunk of chunks) {
      assert.ok(chunk.text.endsWith('\n'), `${where}: a part ends with a whole line`);
      // Records, as replay counts them: a group line (lines that share a seq) holds several.
      const records = chunk.text.split('\n').filter((line) => line !== '').reduce((sum, line) => sum + (((JSON.parse(line) as { lines?: unknown[] }).lines?.length) ?? 1), 0);
      assert.equal(chunk.lines, records, `${where}: records of a part`);
      assert.equal(chunk.bytes, Buffer.byteLength(chunk.text), `${where}: bytes of a part`);
    }
    if (expected.split('\n').length > 2) assert.ok(chunks.length > 1, `${where}: parts of ${partBytes} bytes`);
    for (const op of ['put', 'regstate', 'idem', 'docstate', 'mark']) if (expected.includes(`"op":"${op}"`)) kinds.add(op);
  }
  assert.deepEqual([...kinds].sort(), ['docstate', 'idem', 'mark', 'put', 'regstate'], `seed ${SEED}: every kind of line was compared`);
});

test('checkpointChunks() refuses a state with two lines at one seq rather than write a log no start would read; an empty state is no line at all', async () => {
  const writer = newWriter();
  await writer.queue.write(eventId(1), () => sampleRecord(1));
  const event = writer.views.index.get(eventId(1))!;
  const registration: Registration = { id: registrationId(1), eventId: event.id, name: 'Ana', email: 'ana@campus.edu', status: 'confirmed', createdAt: event.createdAt, checkedInAt: null, seq: event.seq };
  const state: CheckpointState = { seq: event.seq, gone: 0, events: [event], registrations: [registration], documents: [], answers: [] };
  assert.throws(() => [...checkpointChunks(state)], new RegExp(`found seq ${event.seq} after seq ${event.seq}`));
  assert.deepEqual([...checkpointChunks({ ...state, seq: 0, events: [], registrations: [] })], []);
});
