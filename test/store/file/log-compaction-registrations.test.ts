// Compaction of a log holding registrations: the state a reopen finds equals the state before, with writes racing it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openFileStore } from '../../../src/store/file/open-file-store.js';
import type { FileStore } from '../../../src/store/file/file-store.js';
import type { RosterDecision } from '../../../src/store/event-store.js';
import { verifyLog } from '../../../src/store/file/log-verify.js';
import { COMPACTION_STEPS } from '../../../src/store/file/log-compaction.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, logLines, sampleRecord, tempDir, TestFileSystem } from '../helpers.js';
import { invariantProblems, registrationId, visibleState } from '../views/roster-helpers.js';

/** A clock that moves 7 ms per reading, so every change has its own time. */
function steppingClock(): () => number {
  let now = Date.UTC(2026, 7, 1);
  return () => (now += 7);
}

function open(dir: string, options: { now?: () => number; onCompactionStep?: (step: number) => void } = {}): Promise<FileStore> {
  return openFileStore({ dataDir: dir, fs: new TestFileSystem({ noSync: true }), compactMinBytes: Number.MAX_SAFE_INTEGER, now: options.now ?? steppingClock(), onCompactionStep: options.onCompactionStep });
}

let nextRegistration = 0;

function register(store: FileStore, event: string, email = `person${nextRegistration}@campus.example`): Promise<unknown> {
  const id = registrationId(++nextRegistration);
  return store.changeRegistrations(event, () => ({ op: 'register', registration: { id, name: `Person ${nextRegistration}`, email } }));
}

function decide(store: FileStore, event: string, decision: RosterDecision): Promise<unknown> {
  return store.changeRegistrations(event, () => decision);
}

/** Sets an event's capacity (the store confirms the waitlisted ones a raise makes room for). */
function setCapacity(store: FileStore, n: number, capacity: number): Promise<unknown> {
  return store.write(eventId(n), (current) => ({ ...sampleRecord(n), created_at: current!.createdAt, capacity }));
}

test('compact() keeps a registration its own line confirmed and the event that line changed, each at its own seq; a reopen finds both', async (t) => {
  const dir = tempDir(t);
  const store = await open(dir);
  await store.write(eventId(1), () => sampleRecord(1, { capacity: 1 }));
  await register(store, eventId(1));
  await register(store, eventId(1));
  const before = visibleState(store);
  assert.equal(before[0]!.registrations[0]!.status, 'confirmed');
  await store.compact();
  assert.deepEqual(visibleState(store), before);
  await store.close();
  const report = await verifyLog(dir);
  assert.equal(report.liveRegistrations, 2);
  const reopened = await open(dir);
  t.after(() => reopened.close());
  assert.deepEqual(visibleState(reopened), before);
  // A second compaction of the compacted log keeps it too.
  await reopened.compact();
  assert.deepEqual(visibleState(reopened), before);
});

test('compact() with writes racing at every step: a reopen finds the same events (seqs, ETags), rosters, statuses, check-ins and counts', async (t) => {
  const dir = tempDir(t);
  const seed = Number(process.env['COMPACTION_SEED'] ?? 424_242);
  const random = mulberry32(seed);
  const racing: Promise<unknown>[] = [];
  let store!: FileStore;
  /** A random registration change to one of events 1–4, not awaited: refusals (an unknown id) are fine. */
  const raceOne = (): void => {
    const n = 1 + Math.floor(random() * 4);
    const roster = [...store.roster(eventId(n)).values()];
    const pick = roster[Math.floor(random() * roster.length)];
    const roll = random();
    const change =
      roll < 0.5 || pick === undefined
        ? register(store, eventId(n))
        : roll < 0.75
          ? decide(store, eventId(n), { op: 'cancel', id: pick.id })
          : roll < 0.9
            ? decide(store, eventId(n), { op: 'checkIn', id: pick.id })
            : setCapacity(store, n, store.roster(eventId(n)).confirmed + 1 + Math.floor(random() * 3));
    racing.push(change.catch(() => undefined));
  };
  store = await open(dir, {
    onCompactionStep: () => {
      for (let k = 0; k < 3; k++) raceOne();
    },
  });
  t.after(() => store.close());
  for (let n = 1; n <= 5; n++) await store.write(eventId(n), () => sampleRecord(n, { capacity: 2 + n }));
  // History for the compaction to drop: registrations, promotions by cancel and by capacity, check-ins, a deleted event's roster.
  for (let k = 0; k < 40; k++) await register(store, eventId(1 + (k % 5)));
  for (let n = 1; n <= 5; n++) {
    const [first, second] = [...store.roster(eventId(n)).values()];
    await decide(store, eventId(n), { op: 'checkIn', id: second!.id });
    await decide(store, eventId(n), { op: 'cancel', id: first!.id });
  }
  await setCapacity(store, 2, 9);
  await store.write(eventId(5), () => null);
  assert.deepEqual(invariantProblems(store), []);
  const linesBefore = logLines(store.file).length;

  const compaction = store.compact();
  for (let k = 0; k < 5; k++) raceOne();
  const result = await compaction;
  await Promise.all(racing);
  assert.ok(result !== undefined, 'the compaction ran');
  assert.ok(result.tailLines > 0, `seed ${seed}: writes landed while the snapshot was written`);
  assert.ok(racing.length >= 5 + 3 * COMPACTION_STEPS.length);
  assert.ok(logLines(store.file).length < linesBefore + racing.length, 'superseded lines were dropped');
  assert.deepEqual(invariantProblems(store), [], `seed ${seed}`);
  const before = visibleState(store);
  assert.ok(before.some((event) => event.registrations.some((registration) => registration.checkedInAt !== null)));
  await store.close();
  assert.equal((await verifyLog(dir)).torn, undefined);

  const reopened = await open(dir);
  store = reopened;
  assert.deepEqual(visibleState(reopened), before, `seed ${seed}`);
  // The next writes go on from there: a seq above every one the log holds.
  const seqs = before.flatMap((event) => [event.seq, ...[...reopened.roster(event.id).values()].map((registration) => registration.seq)]);
  await register(reopened, eventId(1));
  const added = [...reopened.roster(eventId(1)).values()].at(-1)!;
  assert.ok(added.seq > Math.max(...seqs), `the new registration's seq ${added.seq} is above every seq before`);
});
