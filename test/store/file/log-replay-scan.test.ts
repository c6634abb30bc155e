// scanLog and replayLog on small logs written line by line: progress at the clock's pace, the good bytes handed on
// chunk by chunk, group lines, errors that are and are not damage, a log that grows while it is read, and the order
// of what replay keeps (tombstones, events recounted by their registrations).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogDamageError } from '../../../src/store/file/log-damage-error.js';
import { replayLog } from '../../../src/store/file/log-replay.js';
import { scanLog, type ReplayProgress } from '../../../src/store/file/log-scan.js';
import { type LogRecord, type MetaRecord } from '../../../src/store/records/jsonl-record.js';
import { encodeCancel, encodeDelete, encodeDocument, encodeGroup, encodePut, encodeRegister, encodeStored } from '../../../src/store/records/encode-record.js';
import { viewJson } from '../../../src/events/event.js';
import { toStored } from '../../../src/store/views/served-event.js';
import { IdempotencyTable } from '../../../src/store/views/idempotency-table.js';
import { PackedEvent } from '../../../src/store/views/packed-events.js';
import type { Registration } from '../../../src/store/views/roster.js';
import { eventFields, eventId, sampleRecord } from '../helpers.js';
import { MemoryFileSystem } from './memory-file-system.js';
import { crc32, crc32Byte, crc32Hex } from '../../../src/lib/crc32.js';

const FILE = '/data/events.jsonl';

/** A log of `count` puts of events 1, 2, … at seqs 1, 2, …; returns the file system holding it and its line ends. */
function putLog(count: number): { fs: MemoryFileSystem; ends: number[] } {
  const fs = new MemoryFileSystem();
  const ends: number[] = [];
  for (let n = 1; n <= count; n++) {
    fs.append(FILE, encodePut(n, sampleRecord(n, { title: `Event ${'x'.repeat(n % 7)}` })));
    ends.push(fs.content(FILE).length);
  }
  return { fs, ends };
}

async function opened(fs: MemoryFileSystem): Promise<number> {
  return fs.open(FILE, 'r');
}

test('replayLog() reports progress when the clock reaches each report\'s time plus progressMs: whole lines read, and the file\'s length', async () => {
  const { fs, ends } = putLog(30);
  const length = ends.at(-1)!;
  const chunkBytes = 700;
  assert.ok(ends.every((end, k) => end - (ends[k - 1] ?? 0) < chunkBytes), 'every line fits a chunk');
  // The model: each read reaches chunkBytes past the last whole line read; the clock moves 10 ms a read.
  const expected: ReplayProgress[] = [];
  let next = 0 + 30;
  for (let reads = 1, consumed = 0; consumed < length; reads++) {
    const reach = Math.min(consumed + chunkBytes, length);
    consumed = Math.max(...ends.filter((end) => end <= reach));
    if (reads * 10 >= next) {
      next = reads * 10 + 30;
      expected.push({ lines: ends.filter((end) => end <= consumed).length, bytes: consumed, fileLength: length });
    }
  }
  assert.ok(expected.length >= 3, `${expected.length} reports`);
  const progress: ReplayProgress[] = [];
  await replayLog(fs, await opened(fs), { file: FILE, chunkBytes, progressMs: 30, now: () => fs.reads * 10, onProgress: (report) => progress.push(report) });
  assert.deepEqual(progress, expected);

  assert.equal(progress.at(-1)!.bytes, length, 'the read that reaches the end is reported too');
  // By default, a report about every second: here every third read.
  const byDefault: number[] = [];
  fs.reads = 0;
  await replayLog(fs, await opened(fs), { file: FILE, chunkBytes, now: () => fs.reads * 400, onProgress: ({ bytes }) => byDefault.push(bytes) });
  assert.deepEqual(byDefault, expected.map(({ bytes }) => bytes));
});

test('scanLog() hands on the bytes of the whole good lines of each chunk, after the caller is done with the one before, and no empty ones', async () => {
  const { fs, ends } = putLog(12);
  const whole = fs.content(FILE);
  fs.append(FILE, '{"seq":13,"op":"put"');
  for (const chunkBytes of [1, 5, 64, 333, 4096]) {
    const chunks: Buffer[] = [];
    const records: number[] = [];
    const result = await scanLog(fs, await opened(fs), { file: FILE, chunkBytes }, {
      onRecord: (record) => records.push(record.seq),
      async onGoodBytes(bytes) {
        // The caller reads the bytes later: the scan must not reuse its buffer meanwhile.
        await new Promise((resolve) => setImmediate(resolve));
        chunks.push(Buffer.from(bytes));
      },
    });
    assert.deepEqual(Buffer.concat(chunks), whole, `chunk ${chunkBytes}`);
    assert.ok(chunks.every((chunk) => chunk.length > 0 && ends.includes(chunks.slice(0, chunks.indexOf(chunk) + 1).reduce((sum, c) => sum + c.length, 0))), `chunk ${chunkBytes}: each ends a line`);
    assert.deepEqual(records, ends.map((_, k) => k + 1));
    assert.deepEqual(result, { lines: 12, lastSeq: 12, goodLength: whole.length, endOfFile: whole.length + 20, torn: { line: 13, offset: whole.length, reason: 'the last line is incomplete (no newline)' } });
  }
});

test('scanLog() lets an error of its caller through as it is; a registration that does not fit the state is damage at its line', async () => {
  const { fs, ends } = putLog(3);
  const failure = new Error('the caller failed');
  await assert.rejects(scanLog(fs, await opened(fs), { file: FILE }, {
    onRecord(record) {
      if (record.seq === 2) throw failure;
    },
  }), (error) => error === failure);

  fs.append(FILE, encodeRegister(attendee(1, 'confirmed', 4, 9)));
  await assert.rejects(replayLog(fs, await opened(fs), { file: FILE }), (error) => {
    assert.ok(error instanceof LogDamageError);
    assert.deepEqual([error.line, error.offset, error.reason], [4, ends[2], `it changes the registrations of event ${eventId(9)}, which is not in the log before it`]);
    return true;
  });
});

test('scanLog() reads a group line as its members, or as damage: the line\'s own checksum, then the member at fault', async () => {
  const fs = new MemoryFileSystem();
  const members = [encodePut(1, sampleRecord(1)), encodePut(2, sampleRecord(2)), encodeDocument({ collection: 'series', id: `ser_${'1'.repeat(22)}`, json: '{"n":1}', seq: 3 })];
  fs.append(FILE, encodeGroup(members));
  fs.append(FILE, encodeDelete(4, eventId(1)));
  const seen: (LogRecord | MetaRecord)[] = [];
  const result = await scanLog(fs, await opened(fs), { file: FILE }, { onRecord: (record) => seen.push(record) });
  assert.deepEqual(seen.map((record) => [record.seq, record.op]), [[1, 'put'], [2, 'put'], [3, 'doc'], [4, 'del']]);
  assert.deepEqual([result.lines, result.lastSeq, result.torn], [4, 4, undefined]);
  // Progress counts as the result does (a group's members each), so the start's progress and its last line agree.
  const progress: ReplayProgress[] = [];
  let clock = 0;
  await scanLog(fs, await opened(fs), { file: FILE, chunkBytes: 64 * 1024, progressMs: 1, now: () => (clock += 10), onProgress: (report) => progress.push(report) }, {});
  assert.deepEqual(progress.map((report) => report.lines), [4]);

  const expectDamage = async (content: Buffer, reason: RegExp): Promise<void> => {
    const other = new MemoryFileSystem();
    other.files.set(FILE, content);
    await assert.rejects(scanLog(other, await other.open(FILE, 'r'), { file: FILE }, {}), (error) => {
      assert.ok(error instanceof LogDamageError);
      assert.deepEqual([error.line, error.offset], [1, 0]);
      assert.match(error.reason, reason);
      return true;
    });
  };
  // A flipped bit anywhere in the line (its head, a member, its own checksum) breaks the line's checksum.
  const group = fs.content(FILE).subarray(0, fs.content(FILE).indexOf(10) + 1);
  for (const at of [3, 30, 60, members[0]!.length + 60, group.length - 5]) {
    const damaged = Buffer.from(fs.content(FILE));
    damaged[at]! ^= 0x01;
    await expectDamage(damaged, /^the checksum does not match .*; line 2 after it is good, so this is not a torn tail$/);
  }
  // A line whose own checksum holds but whose second member's does not (written so on purpose) names that member.
  const badMember = members.map((line, at) => (at === 1 ? line.replace('"crc":"', '"crc":"0').replace(/"crc":"(\w{8})\w"/, '"crc":"$1"') : line));
  assert.notEqual(badMember[1], members[1]);
  await expectDamage(Buffer.concat([Buffer.from(sealed(groupHead(badMember))), fs.content(FILE).subarray(group.length)]), /^member 2 of an atomic group: the checksum does not match/);
  // A head whose seq is not its newest member's is damage: PostgreSQL keeps the row under it.
  await expectDamage(Buffer.concat([Buffer.from(sealed(groupHead(members).replace('{"seq":3,', '{"seq":1,'))), fs.content(FILE).subarray(group.length)]), /^the group line's seq 1 is not its newest member's, 3/);
  // Sizes that do not fit the members are damage too.
  const head = groupHead(members);
  await expectDamage(Buffer.concat([Buffer.from(sealed(head.replace(/"sizes":\[(\d+)/, (_, size: string) => `"sizes":[${Number(size) + 1}`))), fs.content(FILE).subarray(group.length)]), /^member 1 of an atomic group is not the \d+ bytes its "sizes" say/);

  // The layout written before (a tab before each member) still reads, and names the member at fault.
  const tabbed = new MemoryFileSystem();
  tabbed.append(FILE, members.map((line) => `\t${line.slice(0, -1)}`).join('') + '\n');
  tabbed.append(FILE, encodeDelete(4, eventId(1)));
  const old: (LogRecord | MetaRecord)[] = [];
  await scanLog(tabbed, await tabbed.open(FILE, 'r'), { file: FILE }, { onRecord: (record) => old.push(record) });
  assert.deepEqual(old.map((record) => [record.seq, record.op]), [[1, 'put'], [2, 'put'], [3, 'doc'], [4, 'del']]);
  for (const [member, at] of [[1, 30], [2, members[0]!.length + 30], [3, members[0]!.length + members[1]!.length + members[2]!.length - 5]] as const) {
    const damaged = Buffer.from(tabbed.content(FILE));
    damaged[at]! ^= 0x01;
    await expectDamage(damaged, new RegExp(`^member ${member} of an atomic group: the checksum does not match .*; line 2 after it is good, so this is not a torn tail$`));
  }
  // A tabbed group line with an empty member (two tabs in a row, or a tab before its newline) is bad too.
  for (const [line, member] of [[`\t\t${members[0]}`, 1], [`\t${members[0]!.slice(0, -1)}\t\n`, 2]] as const) {
    const empty = new MemoryFileSystem();
    empty.append(FILE, line);
    const torn = await scanLog(empty, await empty.open(FILE, 'r'), { file: FILE }, {});
    assert.deepEqual(torn.torn, { line: 1, offset: 0, reason: `member ${member} of an atomic group: the line does not end with its checksum ,"crc":"…"}` }, line);
  }
});

/** A group line's text before its checksum, as encodeGroup writes it, of `lines` as they are. */
function groupHead(lines: readonly string[]): string {
  const members = lines.map((line) => line.slice(0, -1));
  return `{"seq":${members.length},"op":"group","sizes":[${members.map((member) => Buffer.byteLength(member)).join(',')}],"lines":[${members.join(',')}]`;
}

/** `head` closed with its checksum, as the encoders seal a line. */
function sealed(head: string): string {
  return `${head},"crc":"${crc32Hex(crc32Byte(crc32(head), 0x7d))}"}\n`;
}

test('replayLog() without a progress listener reports nothing, however long it takes', async () => {
  const { fs } = putLog(20);
  const result = await replayLog(fs, await opened(fs), { file: FILE, chunkBytes: 500, progressMs: 1, now: () => fs.reads * 5000 });
  assert.deepEqual([result.lines, result.torn], [20, undefined]);
  assert.ok(fs.reads > 10);
});

test('scanLog() reads a log of less than 4 MiB in one read (and one more that finds its end), without asking its size unless it reports progress', async () => {
  const { fs, ends } = putLog(40);
  const result = await scanLog(fs, await opened(fs), { file: FILE }, {});
  assert.deepEqual([result.lines, result.goodLength, fs.reads, fs.sizes], [40, ends.at(-1), 2, 0]);
});

test('replayLog() packs the views it reads, and remembers only the answers still younger than the TTL at its clock\'s time', async () => {
  const fs = new MemoryFileSystem();
  const at = Date.parse('2031-05-01T00:00:00.000Z');
  const record = sampleRecord(1, { created_at: new Date(at).toISOString() });
  fs.append(FILE, encodeStored(toStored(record, 1, viewJson(record), at), [], { key: 'k', keyId: 'key1', requestHash: 'h' }));
  for (const [nowMs, remembered] of [[at + 3_600_000, 1], [at + 25 * 3_600_000, 0]] as const) {
    const answers = new IdempotencyTable();
    const result = await replayLog(fs, await opened(fs), { file: FILE, now: () => nowMs, idempotency: answers });
    assert.ok(result.events.get(eventId(1)) instanceof PackedEvent);
    assert.equal(answers.size, remembered, `at ${new Date(nowMs).toISOString()}`);
  }
  // Without a table to fill, the answer is not remembered anywhere, and nothing fails.
  assert.equal((await replayLog(fs, await opened(fs), { file: FILE })).events.size, 1);
});

test('replayLog() counts in what was appended while it read, and reports the file\'s length at its end', async () => {
  const { fs, ends } = putLog(4);
  let appended = false;
  fs.beforeRead = () => {
    if (appended) return;
    appended = true;
    fs.append(FILE, encodePut(5, sampleRecord(5)));
  };
  const result = await replayLog(fs, await opened(fs), { file: FILE });
  const length = fs.content(FILE).length;
  assert.ok(length > ends.at(-1)!);
  assert.deepEqual([result.lines, result.lastSeq, result.goodLength, result.fileLength, result.events.size], [5, 5, length, length, 5]);
});

function attendee(n: number, status: Registration['status'], seq: number, event = 1): Registration {
  return { id: `reg_${String(n).padStart(22, '0')}`, eventId: eventId(event), name: `P ${n}`, email: `p${n}@x.edu`, status, createdAt: `2030-01-0${n}T00:00:00.000Z`, checkedInAt: null, seq };
}

test('replayLog() keeps tombstones in the order of their deletions, an id deleted twice at its second', async () => {
  const fs = new MemoryFileSystem();
  for (const line of [encodePut(1, sampleRecord(1)), encodePut(2, sampleRecord(2)), encodeDelete(3, eventId(1)), encodeDelete(4, eventId(2)), encodeDelete(5, eventId(1)), encodePut(6, sampleRecord(3))]) fs.append(FILE, line);
  const result = await replayLog(fs, await opened(fs), { file: FILE });
  assert.deepEqual([...result.tombstones], [[eventId(2), 4], [eventId(1), 5]]);
  assert.deepEqual([...result.events.keys()], [eventId(3)]);
  assert.deepEqual(result.work, { moved: 0, interned: 0, recounted: 0 }, 'a put after a deletion adds its event');

  // An update moves its event to the end of the map; a first put only adds one.
  for (const line of [encodePut(7, sampleRecord(4)), encodePut(8, sampleRecord(3, { title: 'Again' })), encodePut(9, sampleRecord(4, { title: 'Again' }))]) fs.append(FILE, line);
  const updated = await replayLog(fs, await opened(fs), { file: FILE });
  assert.deepEqual([[...updated.events.keys()], updated.work], [[eventId(3), eventId(4)], { moved: 2, interned: 0, recounted: 0 }]);
});

test('replayLog() recounts an event whose view it could not pack (a layout of its own) from its registrations, in seq order', async () => {
  const fs = new MemoryFileSystem();
  const record = sampleRecord(1, { capacity: 1 });
  // The same fields, keys in another order: read by JSON.parse, not packed.
  const view = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(viewJson(record)) as Record<string, unknown>).reverse()));
  fs.append(FILE, encodePut(1, record, view));
  fs.append(FILE, encodePut(2, sampleRecord(2)));
  fs.append(FILE, encodeRegister(attendee(1, 'confirmed', 3)));
  fs.append(FILE, encodeRegister(attendee(2, 'waitlisted', 4)));
  fs.append(FILE, encodePut(5, sampleRecord(3)));
  fs.append(FILE, encodeCancel({ seq: 6, eventId: eventId(1), id: attendee(1, 'confirmed', 3).id, atMs: Date.parse('2030-02-01T00:00:00.000Z'), promoted: [attendee(2, 'waitlisted', 4).id] }));
  fs.append(FILE, encodeRegister(attendee(3, 'confirmed', 7, 2)));
  fs.append(FILE, encodeRegister(attendee(4, 'confirmed', 8, 3)));
  fs.append(FILE, encodeCancel({ seq: 9, eventId: eventId(3), id: attendee(4, 'confirmed', 8, 3).id, atMs: Date.parse('2030-03-01T00:00:00.000Z'), promoted: [] }));
  const result = await replayLog(fs, await opened(fs), { file: FILE });
  // The cancel that promotes leaves one confirmed: the count last moved with the first registration. The cancel
  // without a waitlist moved it: its time.
  assert.deepEqual([...result.events.values()].map((event) => [event.id, event.seq, event.modifiedMs]), [
    [eventId(1), 3, Date.parse('2030-01-01T00:00:00.000Z')],
    [eventId(2), 7, Date.parse('2030-01-03T00:00:00.000Z')],
    [eventId(3), 9, Date.parse('2030-03-01T00:00:00.000Z')],
  ]);
  // Every event copied into the recounted map once; the unpacked view's e-mail and each event id of a registration
  // line copied once to be shared.
  assert.deepEqual(result.work, { moved: 0, interned: 4, recounted: 3 });
  assert.equal(JSON.parse(result.events.get(eventId(1))!.json).registered_count, 1);
  assert.equal(eventFields(result.events.get(eventId(1)))!['json'], view.replace('"registered_count":0', '"registered_count":1'));
});

test('scanLog() reads a log converted to CRLF as damage at its first line, not as a torn tail of every line', async () => {
  const { fs, ends } = putLog(4);
  const log = fs.content(FILE);
  const crlf = new MemoryFileSystem();
  crlf.append(FILE, log.toString('latin1').replaceAll('\n', '\r\n'));
  await assert.rejects(scanLog(crlf, await opened(crlf), { file: FILE }, {}), (error) => {
    assert.ok(error instanceof LogDamageError);
    assert.deepEqual([error.line, error.offset], [1, 0]);
    assert.match(error.reason, /^line 1 ends in CR before its LF, its checksum holding without: the file was converted by an editor or a copy, so this is not a torn tail/);
    return true;
  });
  // Only the last lines converted (a hand edit on Windows appended to it): damage named at the first of them.
  const tail = new MemoryFileSystem();
  tail.append(FILE, Buffer.concat([log.subarray(0, ends[1]), Buffer.from(log.subarray(ends[1]).toString('latin1').replaceAll('\n', '\r\n'), 'latin1')]));
  await assert.rejects(scanLog(tail, await opened(tail), { file: FILE }, {}), (error) => error instanceof LogDamageError && error.line === 3 && error.offset === ends[1]);
  // Converted twice (CR CR LF), or to CR alone: the same.
  const twice = new MemoryFileSystem();
  twice.append(FILE, log.toString('latin1').replaceAll('\n', '\r\r\n'));
  await assert.rejects(scanLog(twice, await opened(twice), { file: FILE }, {}), (error) => error instanceof LogDamageError && error.line === 1);
  const mac = new MemoryFileSystem();
  mac.append(FILE, log.toString('latin1').replaceAll('\n', '\r'));
  await assert.rejects(scanLog(mac, await opened(mac), { file: FILE }, {}), (error) => error instanceof LogDamageError && error.line === 1 && /ends in CR without LF/.test(error.reason));
  // A byte order mark before the first line (an editor's), the log one line long or more: damage, not a tail.
  for (const lines of [1, 4]) {
    const bom = new MemoryFileSystem();
    bom.append(FILE, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), log.subarray(0, ends[lines - 1])]));
    await assert.rejects(scanLog(bom, await opened(bom), { file: FILE }, {}), (error) => error instanceof LogDamageError && error.line === 1 && /^line 1 begins with a byte order mark, /.test(error.reason));
  }
  // Garbage ending in CR LF is still a torn tail.
  const garbage = new MemoryFileSystem();
  garbage.append(FILE, Buffer.concat([log, Buffer.from('{"seq":5,"op":"put"\r\n')]));
  const torn = await scanLog(garbage, await opened(garbage), { file: FILE }, {});
  assert.deepEqual([torn.lines, torn.torn?.line, torn.torn?.offset], [4, 5, log.length]);
});
