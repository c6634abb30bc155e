// Replay of events.jsonl: torn tails are cut and kept aside, damage anywhere else stops the open, naming the line.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { openFileStore } from '../../../src/store/file/open-file-store.js';
import { nodeFileSystem } from '../../../src/store/file/file-system.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { encodeCancel, encodeCheckIn, encodeDelete, encodePut, encodeRegister, encodeRegistrationState } from '../../../src/store/records/encode-record.js';
import { LogDamageError } from '../../../src/store/file/log-damage-error.js';
import { crc32, crc32Byte, crc32Hex } from '../../../src/lib/crc32.js';
import { replayLog } from '../../../src/store/file/log-replay.js';
import { RosterInvariantError } from '../../../src/store/file/roster-invariant.js';
import { verifyLog } from '../../../src/store/file/log-verify.js';
import type { Registration } from '../../../src/store/views/roster.js';
import { eventId, sampleRecord, tempDir, TestFileSystem } from '../helpers.js';

/** Six lines: four creates, an update of 2, a delete of 3 (the last three mix every kind). */
function sampleLog(): string[] {
  return [
    encodePut(1, sampleRecord(1)),
    encodePut(2, sampleRecord(2, { title: 'Zoë — 日本' })),
    encodePut(5, sampleRecord(3)),
    encodePut(6, sampleRecord(4, { category: 'social' })),
    encodePut(9, sampleRecord(2, { title: 'Second' })),
    encodeDelete(10, eventId(3)),
  ];
}

/** The live state after the given lines, as [id, json, seq] sorted by id. */
function stateOf(lines: string[]): [string, string, number][] {
  const live = new Map<string, [string, string, number]>();
  for (const line of lines) {
    const buf = Buffer.from(line);
    const record = decodeRecord(buf, 0, buf.length - 1);
    assert.ok(typeof record !== 'string');
    if (record.op === 'put') live.set(record.stored.id, [record.stored.id, record.stored.json, record.seq]);
    else if (record.op === 'del') live.delete(record.id);
  }
  return [...live.values()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

function storeState(store: { list(q: { limit: number; page: number }): { events: { id: string; json: string; seq: number }[] } }): [string, string, number][] {
  return store.list({ limit: 100, page: 1 }).events.map((e): [string, string, number] => [e.id, e.json, e.seq]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

function tornFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((name) => name.startsWith('events.jsonl.torn-'));
}

test('openFileStore() cuts a log torn at every byte inside its last 3 lines back to the complete lines, keeping the cut bytes', async (t) => {
  const root = tempDir(t);
  const lines = sampleLog();
  const log = Buffer.from(lines.join(''));
  const ends = lines.map((_, k) => Buffer.byteLength(lines.slice(0, k + 1).join('')));
  const warnings: string[] = [];
  let tornCuts = 0;
  for (let cut = ends[2]!; cut <= log.length; cut++) {
    const dir = path.join(root, String(cut));
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'events.jsonl'), log.subarray(0, cut));
    const complete = ends.filter((end) => end <= cut).length;
    const store = await openFileStore({ dataDir: dir, fs: new TestFileSystem({ noSync: true }), logger: { info() {}, warn: (message) => warnings.push(message) } });
    assert.deepEqual(storeState(store), stateOf(lines.slice(0, complete)), `cut at ${cut}`);
    assert.equal(store.stats.lines, complete);
    await store.close();
    const goodLength = complete === 0 ? 0 : ends[complete - 1]!;
    assert.deepEqual(fs.readFileSync(path.join(dir, 'events.jsonl')), log.subarray(0, goodLength), `cut at ${cut}: the log keeps its complete lines`);
    const torn = tornFiles(dir);
    if (cut === goodLength) {
      assert.deepEqual(torn, [], `cut at ${cut} is a line boundary: nothing is torn`);
    } else {
      tornCuts++;
      assert.equal(torn.length, 1, `cut at ${cut}`);
      assert.deepEqual(fs.readFileSync(path.join(dir, torn[0]!)), log.subarray(goodLength, cut), `cut at ${cut}: the torn file holds the cut bytes`);
    }
    fs.rmSync(dir, { recursive: true });
  }
  assert.ok(tornCuts > 600);
  assert.equal(warnings.length, tornCuts);
  assert.ok(warnings.every((message) => message.includes('torn')));
});

test('openFileStore() treats a damaged last line, and garbage after the last good line, as a torn tail', async (t) => {
  const lines = sampleLog();
  const cases: [string, Buffer, number][] = [];
  const flipped = Buffer.from(lines.join(''));
  flipped[flipped.length - 10]! ^= 0x04;
  cases.push(['a flipped byte in the last line', flipped, 5]);
  cases.push(['garbage lines after the end', Buffer.from(lines.join('') + 'garbage\n{"seq":11}\n\n'), 6]);
  cases.push(['an empty line at the end', Buffer.from(lines.join('') + '\n'), 6]);
  for (const [name, content, complete] of cases) {
    const dir = tempDir(t);
    fs.writeFileSync(path.join(dir, 'events.jsonl'), content);
    const store = await openFileStore({ dataDir: dir, now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 6) });
    assert.deepEqual(storeState(store), stateOf(lines.slice(0, complete)), name);
    await store.close();
    assert.deepEqual(tornFiles(dir), ['events.jsonl.torn-2026-01-02T03-04-05-006Z'], name);
    const good = Buffer.byteLength(lines.slice(0, complete).join(''));
    assert.deepEqual(fs.readFileSync(path.join(dir, 'events.jsonl.torn-2026-01-02T03-04-05-006Z')), content.subarray(good), name);
  }
});

/** Opening `content` must fail with LogDamageError at `line`, leave the file as it was, and release LOCK. */
async function assertRefused(t: { after(fn: () => void): void }, lines: string[], line: number, reason: RegExp, flipAt?: number): Promise<void> {
  const dir = tempDir(t);
  const file = path.join(dir, 'events.jsonl');
  const offset = Buffer.byteLength(lines.slice(0, line - 1).join(''));
  const content = Buffer.from(lines.join(''));
  if (flipAt !== undefined) content[offset + flipAt]! ^= 0x01;
  fs.writeFileSync(file, content);
  await assert.rejects(openFileStore({ dataDir: dir }), (error) => {
    assert.ok(error instanceof LogDamageError);
    assert.equal(error.line, line);
    assert.equal(error.offset, offset);
    assert.ok(error.message.startsWith(`${file}: line ${line} (byte offset ${offset}) is damaged`), error.message);
    assert.match(error.reason, reason);
    return true;
  });
  assert.deepEqual(fs.readFileSync(file), content, 'nothing is cut or dropped');
  assert.deepEqual(fs.readdirSync(dir), ['events.jsonl'], 'no torn file, LOCK released');
}

test('openFileStore() refuses a log with a flipped byte before its last line, naming the line and byte offset', async (t) => {
  for (const line of [1, 2, 5]) await assertRefused(t, sampleLog(), line, /checksum does not match.*line \d+ after it is good/, 30);
});

test('openFileStore() refuses a duplicated or out-of-order sequence number, naming the line', async (t) => {
  const lines = sampleLog();
  await assertRefused(t, [lines[0]!, lines[1]!, lines[1]!, lines[2]!], 3, /sequence number 2 is not greater than the 2/);
  await assertRefused(t, [lines[0]!, lines[1]!, lines[3]!, lines[2]!], 4, /sequence number 5 is not greater than the 6/);
  await assertRefused(t, [...lines, lines[5]!], 7, /sequence number 10 is not greater/);
});

test('openFileStore() refuses a whole last line whose checksum holds but whose kind it does not know (a newer build\'s), cutting nothing', async (t) => {
  const head = '{"seq":11,"op":"future","id":"evt_AAAAAAAAAAAAAAAA"';
  const future = `${head},"crc":"${crc32Hex(crc32Byte(crc32(head), 0x7d))}"}\n`;
  await assertRefused(t, [...sampleLog(), future], 7, /unknown record kind "op":"future".*whole.*not a torn tail \(a log written by a newer version/);
  // The same line cut short is a torn tail, as before (the write stopped in it).
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'events.jsonl'), sampleLog().join('') + future.slice(0, -3));
  const store = await openFileStore({ dataDir: dir });
  assert.deepEqual(storeState(store), stateOf(sampleLog()));
  await store.close();
});

test('replayLog() finds the same lines whatever its chunk size, lines longer than a chunk included', async (t) => {
  const dir = tempDir(t);
  const lines = [...sampleLog(), encodePut(11, sampleRecord(7, { description: 'long '.repeat(1000) }))];
  const file = path.join(dir, 'events.jsonl');
  fs.writeFileSync(file, lines.join('') + '{"seq":12,"op":"pu');
  const fd = await nodeFileSystem.open(file, 'r');
  t.after(() => fs.closeSync(fd));
  const expected = stateOf(lines);
  for (const chunkBytes of [1, 7, 64, 1000, 4 * 1024 * 1024]) {
    const result = await replayLog(nodeFileSystem, fd, { file, chunkBytes });
    const state = [...result.events.values()].map((e): [string, string, number] => [e.id, e.json, e.seq]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    assert.deepEqual(state, expected, `chunk ${chunkBytes}`);
    assert.deepEqual(
      { lines: result.lines, lastSeq: result.lastSeq, goodLength: result.goodLength, fileLength: result.fileLength, torn: result.torn },
      { lines: 7, lastSeq: 11, goodLength: Buffer.byteLength(lines.join('')), fileLength: fs.statSync(file).size, torn: { line: 8, offset: Buffer.byteLength(lines.join('')), reason: 'the last line is incomplete (no newline)' } },
    );
  }
});

test('replayLog() reports progress about every progressMs', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'events.jsonl');
  fs.writeFileSync(file, sampleLog().join(''));
  const fd = await nodeFileSystem.open(file, 'r');
  t.after(() => fs.closeSync(fd));
  let clock = 0;
  const progress: number[] = [];
  await replayLog(nodeFileSystem, fd, { file, chunkBytes: 100, progressMs: 100, now: () => (clock += 400), onProgress: ({ bytes }) => progress.push(bytes) });
  assert.ok(progress.length >= 3, `${progress.length} reports`);
  assert.deepEqual(progress, [...progress].sort((a, b) => a - b));
});

test('verifyLog() counts lines and live events and reports a torn tail without changing anything', async (t) => {
  const dir = tempDir(t);
  assert.equal((await verifyLog(dir)).exists, false);
  const lines = sampleLog();
  const content = lines.join('') + '{"seq":11,';
  fs.writeFileSync(path.join(dir, 'events.jsonl'), content);
  const report = await verifyLog(dir);
  assert.deepEqual(
    { lines: report.lines, liveEvents: report.liveEvents, supersededLines: report.supersededLines, lastSeq: report.lastSeq, torn: report.torn?.line },
    { lines: 6, liveEvents: 3, supersededLines: 2, lastSeq: 10, torn: 7 },
  );
  assert.equal(fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8'), content);
  fs.writeFileSync(path.join(dir, 'events.jsonl'), [lines[1], lines[0]].join(''));
  await assert.rejects(verifyLog(dir), LogDamageError);
});

function attendee(n: number, status: Registration['status'], seq: number, event = 1): Registration {
  return { id: `reg_${String(n).padStart(22, '0')}`, eventId: eventId(event), name: `P ${n}`, email: `p${n}@x.edu`, status, createdAt: '2030-01-01T00:00:00.000Z', checkedInAt: null, seq };
}

test('replayLog() applies registrations, cancels with promotions and check-ins, recounting the event once', async (t) => {
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'events.jsonl'), [
    encodePut(1, sampleRecord(1, { capacity: 1 })),
    encodeRegister(attendee(1, 'confirmed', 2)),
    encodeRegister(attendee(2, 'waitlisted', 3)),
    encodeCancel({ seq: 4, eventId: eventId(1), id: attendee(1, 'confirmed', 2).id, atMs: Date.parse('2030-01-02T00:00:00.000Z'), promoted: [attendee(2, 'waitlisted', 3).id] }),
    encodeCheckIn({ seq: 5, eventId: eventId(1), id: attendee(2, 'waitlisted', 3).id, at: '2030-01-03T00:00:00.000Z' }),
    encodeRegister(attendee(3, 'waitlisted', 6)),
  ].join(''));
  const store = await openFileStore({ dataDir: dir });
  t.after(() => store.close());
  assert.deepEqual([...store.roster(eventId(1)).values()].map((r) => `${r.name}:${r.status}:${r.checkedInAt}`), ['P 2:confirmed:2030-01-03T00:00:00.000Z', 'P 3:waitlisted:null']);
  const event = store.get(eventId(1))!;
  assert.match(event.json, /"registered_count":1,/);
  assert.equal(event.seq, 2, 'the last line that changed registered_count');
  assert.equal(store.stats.liveRegistrations, 2);
});

test('replayLog() takes registration state lines before their event\'s put line, as compaction writes them', async (t) => {
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'events.jsonl'), [
    encodeRegistrationState(attendee(1, 'confirmed', 2)),
    encodeRegistrationState(attendee(2, 'waitlisted', 3)),
    encodePut(4, sampleRecord(1, { capacity: 1, registered_count: 1 })),
  ].join(''));
  const store = await openFileStore({ dataDir: dir });
  t.after(() => store.close());
  assert.equal(store.roster(eventId(1)).waitlisted, 1);
  assert.equal(store.get(eventId(1))!.seq, 4);
});

test('replayLog() refuses a registration of an event not in the log before it, naming the line', async (t) => {
  await assertRefused(t, [encodePut(1, sampleRecord(1)), encodeRegister(attendee(1, 'confirmed', 2, 9))], 2, /registrations of event evt_0000000000000009/);
});

test('replayLog() refuses a log whose registrations contradict registered_count, and verifyLog() says so', async (t) => {
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'events.jsonl'), [encodeRegistrationState(attendee(1, 'confirmed', 1)), encodeRegistrationState(attendee(2, 'confirmed', 2)), encodePut(3, sampleRecord(1, { capacity: 1, registered_count: 1 }))].join(''));
  await assert.rejects(openFileStore({ dataDir: dir }), (error) => error instanceof RosterInvariantError && /evt_0000000000000001 says registered_count 1, but 2/.test(error.message));
  await assert.rejects(verifyLog(dir), RosterInvariantError);
  fs.writeFileSync(path.join(dir, 'events.jsonl'), [encodeRegistrationState(attendee(1, 'waitlisted', 1)), encodePut(3, sampleRecord(1, { capacity: 2 }))].join(''));
  await assert.rejects(verifyLog(dir), (error) => error instanceof RosterInvariantError && /waitlisted while 2 seats are free/.test(error.message));
});
