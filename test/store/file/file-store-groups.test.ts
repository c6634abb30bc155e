// writeGroup(): several events and documents in one atomic line, replayed whole or not at all, carried by compaction, verify and backup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openFileStore, LOG_FILE } from '../../../src/store/file/open-file-store.js';
import { MemoryStore } from '../../../src/store/memory/memory-store.js';
import { verifyLog } from '../../../src/store/file/log-verify.js';
import { backupLog } from '../../../src/store/file/log-backup.js';
import { groupBounds, type GroupBounds } from '../../../src/lib/group-line.js';
import { eventId, sampleRecord, tempDir } from '../helpers.js';

const noSync = { sync: false, lock: false } as const;

function plan(from: number, count: number, documentJson: string | null) {
  return () => ({
    events: Array.from({ length: count }, (_, i) => ({ id: eventId(from + i), record: sampleRecord(from + i) })),
    documents: [{ collection: 'series', id: 'ser_0000000000000001', json: documentJson }],
  });
}

test('writeGroup() writes every event and the document in one log line, and a reopen finds them all', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir, ...noSync });
  const result = await store.writeGroup(plan(1, 5, '{"title":"Lectures"}'));
  assert.equal(result.events.size, 5);
  assert.equal(store.size, 5);
  assert.equal(store.document('series', 'ser_0000000000000001')?.json, '{"title":"Lectures"}');
  assert.equal(store.stats.supersededLines, 0);
  await store.close();
  const text = fs.readFileSync(path.join(dir, LOG_FILE), 'utf8');
  assert.equal(text.split('\n').length, 2, 'one line and the final newline');
  // One JSON object (API.md §7), its members the lines of the events and the series, in seq order.
  const line = JSON.parse(text) as { seq: number; op: string; lines: { seq: number; op: string }[] };
  assert.deepEqual([line.seq, line.op, line.lines.map((member) => `${member.seq} ${member.op}`)], [6, 'group', ['1 put', '2 put', '3 put', '4 put', '5 put', '6 doc']]);
  const again = await openFileStore({ dataDir: dir, ...noSync });
  assert.equal(again.size, 5);
  assert.deepEqual(again.documents('series').map((each) => each.json), ['{"title":"Lectures"}']);
  assert.equal(again.stats.lastSeq, 6);
  await again.close();
});

test('a log whose group lines are of the older layout (a tab before each member) opens as it did', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir, ...noSync });
  await store.writeGroup(plan(1, 3, '{"title":"Lectures"}'));
  await store.write(eventId(9), () => sampleRecord(9));
  await store.close();
  const file = path.join(dir, LOG_FILE);
  const whole = fs.readFileSync(file);
  const groupEnd = whole.indexOf(10);
  const { bounds } = groupBounds(whole, 0, groupEnd - ',"crc":"00000000"}'.length) as GroupBounds;
  const members = [];
  for (let i = 0; i < bounds.length; i += 2) members.push(Buffer.concat([Buffer.from('\t'), whole.subarray(bounds[i], bounds[i + 1])]));
  fs.writeFileSync(file, Buffer.concat([...members, whole.subarray(groupEnd)]));
  assert.equal(fs.readFileSync(file)[0], 0x09, 'the older layout');
  const again = await openFileStore({ dataDir: dir, ...noSync });
  assert.deepEqual([again.size, again.stats.lastSeq], [4, 5]);
  assert.deepEqual(again.documents('series').map((each) => each.json), ['{"title":"Lectures"}']);
  assert.equal(again.get(eventId(2))?.id, eventId(2));
  await again.close();
  const report = await verifyLog(dir);
  assert.deepEqual([report.liveEvents, report.liveDocuments, report.torn], [4, 1, undefined]);
});

test('a group line cut anywhere by a crash is a torn tail: replay keeps none of it, and the write before stays', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir, ...noSync });
  await store.write(eventId(100), () => sampleRecord(100));
  await store.writeGroup(plan(1, 4, '{"n":1}'));
  await store.close();
  const file = path.join(dir, LOG_FILE);
  const whole = fs.readFileSync(file);
  const firstLineEnd = whole.indexOf(10) + 1;
  for (const cut of [firstLineEnd + 1, firstLineEnd + 300, whole.length - 1]) {
    fs.writeFileSync(file, whole.subarray(0, cut));
    const report = await verifyLog(dir);
    assert.equal(report.liveEvents, 1, `cut at ${cut}`);
    assert.equal(report.liveDocuments, 0);
    assert.equal(report.torn?.offset, firstLineEnd);
    const reopened = await openFileStore({ dataDir: dir, ...noSync });
    assert.equal(reopened.size, 1, `cut at ${cut}: none of the group's events`);
    assert.equal(reopened.document('series', 'ser_0000000000000001'), undefined);
    await reopened.close();
  }
});

test('a group change that throws writes nothing, and a deleted document is gone after a reopen', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir, ...noSync });
  await store.writeGroup(plan(1, 3, '{"n":1}'));
  await assert.rejects(store.writeGroup(() => {
    throw new Error('refused');
  }), /refused/);
  await assert.rejects(store.writeGroup(() => ({ events: [{ id: eventId(1), record: null }, { id: eventId(1), record: null }], documents: [] })), /twice/);
  assert.equal(store.size, 3);
  await store.writeGroup(() => ({ events: [1, 2, 3].map((n) => ({ id: eventId(n), record: null })), documents: [{ collection: 'series', id: 'ser_0000000000000001', json: null }] }));
  assert.equal(store.size, 0);
  await store.close();
  const again = await openFileStore({ dataDir: dir, ...noSync });
  assert.equal(again.size, 0);
  assert.equal(again.documents('series').length, 0);
  await again.close();
});

test('compaction keeps live documents, and the compacted log replays to the same state', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir, ...noSync });
  await store.writeGroup(plan(1, 3, '{"v":1}'));
  await store.writeGroup((view) => ({ events: [], documents: [{ collection: 'series', id: 'ser_0000000000000001', json: `{"v":${JSON.parse(view.document('series', 'ser_0000000000000001')!.json).v + 1}}` }] }));
  for (let i = 0; i < 5; i++) await store.write(eventId(2), () => sampleRecord(2, { title: `Retitled ${i}` }));
  const before = store.stats.lastSeq;
  await store.compact();
  assert.equal(store.stats.supersededLines, 1, 'only the mark line that keeps the last seq');
  await store.close();
  const again = await openFileStore({ dataDir: dir, ...noSync });
  assert.equal(again.document('series', 'ser_0000000000000001')?.json, '{"v":2}');
  assert.equal(again.size, 3);
  assert.equal(again.stats.lastSeq, before);
  await again.writeGroup(plan(10, 1, '{"v":3}'));
  assert.ok(again.document('series', 'ser_0000000000000001')!.seq > before);
  await again.close();
});

test('backupLog() copies group lines whole: the restored copy has the series and its events', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir, ...noSync });
  await store.writeGroup(plan(1, 3, '{"v":1}'));
  const out = path.join(tempDir(t), LOG_FILE);
  await backupLog(dir, out);
  await store.close();
  const report = await verifyLog(path.dirname(out));
  assert.equal(report.liveEvents, 3);
  assert.equal(report.liveDocuments, 1);
});

test('MemoryStore.writeGroup() sees queued state and applies the group whole', async () => {
  const store = new MemoryStore();
  const first = store.writeGroup(plan(1, 2, '{"v":1}'));
  const second = store.writeGroup((view) => {
    assert.ok(view.event(eventId(1)) !== undefined, 'the queued event is seen');
    assert.equal(view.document('series', 'ser_0000000000000001')?.json, '{"v":1}');
    return { events: [{ id: eventId(1), record: null }], documents: [] };
  });
  await Promise.all([first, second]);
  assert.equal(store.size, 1);
});

test('a document written last is the newest durable write: compaction keeps the last seq, and the next write goes after it', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir, ...noSync });
  await store.writeGroup(plan(1, 2, '{"v":1}'));
  await store.writeGroup(() => ({ events: [], documents: [{ collection: 'series', id: 'ser_0000000000000001', json: '{"v":2}' }] }));
  const last = store.document('series', 'ser_0000000000000001')!.seq;
  assert.equal(store.changes.lastSeq, last);
  await store.compact();
  await store.close();
  const again = await openFileStore({ dataDir: dir, ...noSync });
  assert.equal(again.stats.lastSeq, last);
  const next = await again.write(eventId(50), () => sampleRecord(50));
  assert.ok(next!.seq > last, `seq ${next!.seq} after ${last}`);
  await again.close();
});
