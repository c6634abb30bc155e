// Replay of registration lines: a log torn through a promotion (a cancel or a capacity raise that confirms waitlisted ones) comes back consistent.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { openFileStore } from '../../../src/store/file/open-file-store.js';
import type { FileStore } from '../../../src/store/file/file-store.js';
import { eventId, sampleRecord, tempDir, TestFileSystem } from '../helpers.js';
import { invariantProblems, registrationId, visibleState, type VisibleEvent } from '../views/roster-helpers.js';

function open(dir: string, warn: (message: string) => void = () => {}): Promise<FileStore> {
  let now = Date.UTC(2026, 7, 1);
  return openFileStore({ dataDir: dir, fs: new TestFileSystem({ noSync: true }), now: () => (now += 5), logger: { info() {}, warn } });
}

/**
 * A log whose last two lines are promotions: a cancel that confirms the head of the waitlist, then a capacity raise
 * that confirms the next two. Returns the log's lines.
 */
async function promotionLog(dir: string): Promise<string[]> {
  const store = await open(dir);
  const event = eventId(1);
  await store.write(event, () => sampleRecord(1, { capacity: 2 }));
  await store.write(eventId(2), () => sampleRecord(2, { capacity: 1 }));
  const ids = [1, 2, 3, 4, 5].map(registrationId);
  for (const [k, id] of ids.entries()) {
    await store.changeRegistrations(event, () => ({ op: 'register', registration: { id, name: `Person ${k}`, email: `person${k}@campus.example` } }));
  }
  await store.changeRegistrations(eventId(2), () => ({ op: 'register', registration: { id: registrationId(6), name: 'Other', email: 'other@campus.example' } }));
  await store.changeRegistrations(event, () => ({ op: 'checkIn', id: ids[1]! }));
  await store.changeRegistrations(event, () => ({ op: 'cancel', id: ids[0]! }));
  await store.write(event, (current) => ({ ...sampleRecord(1), created_at: current!.createdAt, capacity: 4 }));
  await store.close();
  return fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8').match(/[^\n]*\n/g)!;
}

function tornFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((name) => name.startsWith('events.jsonl.torn-'));
}

function statuses(state: VisibleEvent[]): string[] {
  return state[0]!.registrations.map((registration) => `${registration.id.slice(-1)}:${registration.status}`);
}

test('openFileStore() on a log torn at every byte of a promoting cancel and a promoting capacity raise: the torn line is dropped whole and kept aside, the rest is consistent', async (t) => {
  const root = tempDir(t);
  const lines = await promotionLog(path.join(root, 'source'));
  const [cancelLine, raiseLine] = lines.slice(-2);
  assert.match(cancelLine!, /"op":"cancel".*"promoted":\["reg_0+3"\]/);
  assert.match(raiseLine!, /"op":"put".*"promoted":\["reg_0+4","reg_0+5"\]/);
  const log = Buffer.from(lines.join(''));
  const ends = lines.map((_, k) => Buffer.byteLength(lines.slice(0, k + 1).join('')));

  // The state of each line boundary the cuts fall back to, from a clean log of that many lines.
  const expected = new Map<number, VisibleEvent[]>();
  for (const complete of [lines.length - 2, lines.length - 1, lines.length]) {
    const dir = path.join(root, `whole-${complete}`);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'events.jsonl'), lines.slice(0, complete).join(''));
    const store = await open(dir);
    expected.set(complete, visibleState(store));
    assert.deepEqual(invariantProblems(store), []);
    await store.close();
  }
  // What each boundary holds, spelled out: before the cancel, after it (3 promoted), after the raise (4 and 5 promoted).
  assert.deepEqual(statuses(expected.get(lines.length - 2)!), ['1:confirmed', '2:confirmed', '3:waitlisted', '4:waitlisted', '5:waitlisted']);
  assert.deepEqual(statuses(expected.get(lines.length - 1)!), ['2:confirmed', '3:confirmed', '4:waitlisted', '5:waitlisted']);
  assert.deepEqual(statuses(expected.get(lines.length)!), ['2:confirmed', '3:confirmed', '4:confirmed', '5:confirmed']);
  assert.ok(expected.get(lines.length)![0]!.json.includes('"capacity":4,"registered_count":4'));

  let cuts = 0;
  const warnings: string[] = [];
  for (let cut = ends[lines.length - 3]! + 1; cut < log.length; cut++) {
    const complete = ends.filter((end) => end <= cut).length;
    const goodLength = ends[complete - 1]!;
    const dir = path.join(root, `cut-${cut}`);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'events.jsonl'), log.subarray(0, cut));
    const store = await open(dir, (message) => warnings.push(message));
    assert.deepEqual(visibleState(store), expected.get(complete), `cut at byte ${cut}: the state of the ${complete} whole lines`);
    assert.deepEqual(invariantProblems(store), [], `cut at byte ${cut}`);
    await store.close();
    assert.deepEqual(fs.readFileSync(path.join(dir, 'events.jsonl')), log.subarray(0, goodLength), `cut at byte ${cut}: the log keeps its whole lines`);
    const torn = tornFiles(dir);
    if (cut === goodLength) {
      assert.deepEqual(torn, [], `cut at byte ${cut} is a line boundary`);
    } else {
      cuts++;
      assert.equal(torn.length, 1, `cut at byte ${cut}`);
      assert.deepEqual(fs.readFileSync(path.join(dir, torn[0]!)), log.subarray(goodLength, cut), `cut at byte ${cut}: the torn file holds the cut bytes`);
    }
    fs.rmSync(dir, { recursive: true });
  }
  assert.equal(cuts, cancelLine!.length + raiseLine!.length - 2, 'every byte inside the two lines was a cut');
  assert.equal(warnings.length, cuts);
});
