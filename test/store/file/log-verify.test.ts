// verifyLog (the `verify` command's check of a data folder) and the invariant replay holds a log's registrations to,
// on logs in a MemoryFileSystem.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogDamageError } from '../../../src/store/file/log-damage-error.js';
import { RosterInvariantError } from '../../../src/store/file/roster-invariant.js';
import { verifyLog } from '../../../src/store/file/log-verify.js';
import { encodeDelete, encodeDocument, encodeMark, encodePut, encodeRegister, encodeRegistrationState } from '../../../src/store/records/encode-record.js';
import type { Registration } from '../../../src/store/views/roster.js';
import { eventId, sampleRecord } from '../helpers.js';
import { MemoryFileSystem } from './memory-file-system.js';

const DIR = '/data';
const FILE = '/data/events.jsonl';

function attendee(n: number, status: Registration['status'], seq: number, event = 1): Registration {
  return { id: `reg_${String(n).padStart(22, '0')}`, eventId: eventId(event), name: `P ${n}`, email: `p${n}@x.edu`, status, createdAt: '2030-01-01T00:00:00.000Z', checkedInAt: null, seq };
}

function logOf(lines: string[]): MemoryFileSystem {
  const fs = new MemoryFileSystem();
  for (const line of lines) fs.append(FILE, line);
  return fs;
}

test('verifyLog() of a folder without a log: an empty store', async () => {
  const fs = new MemoryFileSystem();
  assert.deepEqual(await verifyLog(DIR, { fs }), { file: FILE, exists: false, lines: 0, liveEvents: 0, liveRegistrations: 0, liveDocuments: 0, rememberedAnswers: 0, supersededLines: 0, lastSeq: 0, goodLength: 0, fileLength: 0, torn: undefined });
  fs.openError = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
  await assert.rejects(verifyLog(DIR, { fs }), { code: 'EACCES' });
});

test('verifyLog() counts lines, live events, registrations and documents, the superseded rest, and a torn tail; it closes the log', async () => {
  const lines = [
    encodePut(1, sampleRecord(1, { capacity: 5 })),
    encodePut(2, sampleRecord(2)),
    encodePut(3, sampleRecord(3)),
    encodeRegister(attendee(1, 'confirmed', 4)),
    encodeRegister(attendee(2, 'confirmed', 5)),
    encodePut(6, sampleRecord(1, { capacity: 6, title: 'Moved', registered_count: 2 })),
    encodeDelete(7, eventId(2)),
    encodeDocument({ collection: 'series', id: `ser_${'1'.repeat(22)}`, json: '{"n":1}', seq: 8 }),
  ];
  const fs = logOf(lines);
  const good = fs.content(FILE).length;
  fs.append(FILE, '{"seq":9,"op"');
  const report = await verifyLog(DIR, { fs });
  assert.deepEqual(report, {
    file: FILE,
    exists: true,
    lines: 8,
    liveEvents: 2,
    liveRegistrations: 2,
    liveDocuments: 1,
    rememberedAnswers: 0,
    // A compaction would write the two events, the two registrations, the series and a mark (saying seq 7's deletion).
    supersededLines: 2,
    lastSeq: 8,
    goodLength: good,
    fileLength: good + 13,
    torn: { line: 9, offset: good, reason: 'the last line is incomplete (no newline)' },
  });
  assert.deepEqual([fs.opens, fs.openCount], [1, 0]);
  assert.equal(fs.content(FILE).length, good + 13, 'nothing is cut');

  // Damage before the end: refused, naming the line, and the log is closed all the same.
  const damaged = logOf([lines[1]!, lines[0]!]);
  await assert.rejects(verifyLog(DIR, { fs: damaged }), (error) => error instanceof LogDamageError && error.line === 2 && error.file === FILE);
  assert.equal(damaged.openCount, 0);
});

test('verifyLog() of a log a compaction just wrote: nothing superseded, its mark line counted as kept', async () => {
  const compacted = [
    encodePut(3, sampleRecord(3)),
    encodeRegistrationState(attendee(1, 'confirmed', 4)),
    encodeRegistrationState(attendee(2, 'confirmed', 5)),
    encodePut(6, sampleRecord(1, { capacity: 6, registered_count: 2 })),
    encodeMark(7, 7),
  ];
  const report = await verifyLog(DIR, { fs: logOf(compacted) });
  assert.deepEqual([report.lines, report.liveEvents, report.liveRegistrations, report.supersededLines, report.lastSeq], [5, 2, 2, 0, 7]);
  // One more line that replaces a live one: that one is superseded, and the mark still counts as kept.
  const edited = await verifyLog(DIR, { fs: logOf([...compacted, encodePut(8, sampleRecord(3, { title: 'Moved' }))]) });
  assert.deepEqual([edited.lines, edited.supersededLines], [6, 1]);
  // A log that never lost a line writes no mark: every line is live.
  const whole = await verifyLog(DIR, { fs: logOf([encodePut(1, sampleRecord(1)), encodePut(2, sampleRecord(2))]) });
  assert.deepEqual([whole.lines, whole.supersededLines], [2, 0]);
});

/** Asserts that verifyLog refuses the log of `lines` with a RosterInvariantError saying `problem`. */
async function assertContradiction(lines: string[], problem: string): Promise<void> {
  const fs = logOf(lines);
  await assert.rejects(verifyLog(DIR, { fs }), (error) => {
    assert.ok(error instanceof RosterInvariantError);
    assert.equal(error.name, 'RosterInvariantError');
    assert.equal(error.file, FILE);
    assert.equal(error.message, `${FILE}: the registrations contradict the events: ${problem}. The store will not start; restore the file from a backup.`);
    return true;
  });
  assert.equal(fs.openCount, 0);
}

test('replay refuses a log whose registrations contradict its events, saying how', async () => {
  const confirmed = [encodeRegistrationState(attendee(1, 'confirmed', 1)), encodeRegistrationState(attendee(2, 'confirmed', 2))];
  await assertContradiction([...confirmed, encodePut(3, sampleRecord(1, { capacity: 3, registered_count: 1 }))], `event ${eventId(1)} says registered_count 1, but 2 registrations are confirmed`);
  await assertContradiction([...confirmed, encodePut(3, sampleRecord(1, { capacity: 1, registered_count: 2 }))], `event ${eventId(1)} has 2 confirmed registrations for 1 seats`);
  await assertContradiction([encodeRegistrationState(attendee(1, 'waitlisted', 1)), encodePut(3, sampleRecord(1, { capacity: 3 }))], `event ${eventId(1)} has 1 waitlisted while 3 seats are free`);
  await assertContradiction([encodeRegistrationState(attendee(1, 'waitlisted', 1)), encodeRegistrationState(attendee(2, 'confirmed', 2)), encodePut(3, sampleRecord(1, { capacity: 3, registered_count: 1 }))], `event ${eventId(1)} has 1 waitlisted while 2 seats are free`);
  await assertContradiction([encodePut(1, sampleRecord(2)), encodeRegistrationState(attendee(1, 'confirmed', 2, 5))], `event ${eventId(5)} has registrations but is not live`);
  // The same registrations, consistent with their event: no contradiction.
  const fine = await verifyLog(DIR, { fs: logOf([...confirmed, encodeRegistrationState(attendee(3, 'waitlisted', 3)), encodePut(4, sampleRecord(1, { capacity: 2, registered_count: 2 }))]) });
  assert.deepEqual([fine.liveEvents, fine.liveRegistrations, fine.supersededLines], [1, 3, 0]);
});
