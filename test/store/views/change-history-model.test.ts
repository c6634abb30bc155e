// The change history's pure parts against what a writer's listeners heard: a walk of the writer's durable lines from
// any position, with any limit, gives back exactly the changes heard after it (the event before and after, the
// registrations touched), skips what is no event line, and says how far a compaction rewrote history; ChangeHistory
// hands each batch to the listeners of the moment. HISTORY_SEED=n replays a run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LogRecord, MetaRecord } from '../../../src/store/records/jsonl-record.js';
import { ChangeHistory, eventIdOf, HistoryWalk, isEventRecord, touchedBy, type CommittedChange } from '../../../src/store/views/change-history.js';
import { RosterTable } from '../../../src/store/views/roster-table.js';
import { mulberry32 } from '../../helpers/random.js';
import { changeFields, newWriter, randomWrites, recordsOf } from './random-writes.js';

const SEED = Number(process.env['HISTORY_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const EVENT_OPS = ['put', 'del', 'reg', 'cancel', 'checkin', 'regstate'];

/** Walks `records` until the walk has what it asked for; returns the walk and how many records it took. */
function walk(records: readonly (LogRecord | MetaRecord)[], since: number, limit: number, nowMs: number): { walk: HistoryWalk; taken: number } {
  const history = new HistoryWalk(since, limit, nowMs);
  let taken = 0;
  for (const record of records) {
    taken++;
    if (!history.take(record)) break;
  }
  return { walk: history, taken };
}

/** The registrations a line touches, by id, as the contract names them: the cancelled one and those it promoted, the one checked in, those a raised capacity confirmed. */
function touchedIds(record: LogRecord): string[] {
  if (record.op === 'cancel') return [record.id, ...record.promoted];
  if (record.op === 'checkin') return [record.id];
  if (record.op === 'put') return [...(record.promoted ?? [])];
  return [];
}

test(`a walk of a writer's lines from any position gives back what its listeners heard after it, up to the limit (HISTORY_SEED=${SEED})`, async (t) => {
  t.diagnostic(`seed ${SEED}`);
  const random = mulberry32(SEED);
  const writer = newWriter();
  await randomWrites(random, writer, 80);
  const records = recordsOf(writer.batches);
  const heard = writer.heard;
  const lastSeq = records.at(-1)!.seq;
  assert.deepEqual(heard.map((change) => change.record.seq), records.filter(isEventRecord).map((record) => record.seq), `seed ${SEED}: every event line was heard, nothing else`);

  // The plain facts of each heard change, independent of the history's code: which registrations, in which state.
  for (const change of heard) {
    const where = `seed ${SEED}, seq ${change.record.seq}`;
    assert.deepEqual(change.touched.map((registration) => registration.id), touchedIds(change.record), `${where}: touched`);
    const record = change.record;
    if (record.op === 'cancel') assert.ok(change.touched.slice(1).every((registration) => registration.status === 'waitlisted'), `${where}: the promoted were waitlisted before`);
    if (record.op === 'put' && record.promoted !== undefined) assert.ok(change.touched.every((registration) => registration.status === 'waitlisted'), where);
    assert.equal((change.after ?? change.before)?.id ?? eventIdOf(record), eventIdOf(record), where);
  }

  const positions = [0, 1, lastSeq - 1, lastSeq, lastSeq + 5, ...Array.from({ length: 25 }, () => Math.floor(random() * lastSeq))];
  for (const since of positions) {
    for (const limit of [Infinity, 1, 2, 1 + Math.floor(random() * 40)]) {
      const nowMs = 1_000 + Math.floor(random() * 1e9);
      const { walk: history, taken } = walk(records, since, limit, nowMs);
      const expected = heard.filter((change) => change.record.seq > since).slice(0, limit);
      const where = `seed ${SEED}, since ${since}, limit ${limit}`;
      const { changes, compactedThrough } = history.result;
      assert.deepEqual(changes.map(changeFields), expected.map(changeFields), `${where}: changes`);
      assert.ok(changes.every((change) => change.atMs === nowMs), `${where}: every change at the read's time`);
      assert.equal(compactedThrough, 0, `${where}: nothing compacted`);
      // The walk stops at the line that completes it, not before nor after.
      const stopAt = expected.length === limit ? records.findIndex((record) => record.seq === expected.at(-1)!.record.seq) + 1 : records.length;
      assert.equal(taken, stopAt, `${where}: lines taken`);
    }
  }
});

test(`a walk says how far a compaction rewrote history: the newest mark or registration-state line, or what it is told (HISTORY_SEED=${SEED})`, async () => {
  const random = mulberry32(SEED + 7);
  const writer = newWriter();
  await randomWrites(random, writer, 30);
  const written = recordsOf(writer.batches).filter(isEventRecord);
  // A registration state of a live event, confirmed: it moves the roster's count, yet the event stays as it was.
  const confirmed = written.find((record) => record.op === 'reg' && record.registration.status === 'confirmed' && writer.views.index.get(record.registration.eventId) !== undefined);
  assert.ok(confirmed !== undefined && confirmed.op === 'reg', `seed ${SEED}: a confirmed registration`);
  const base = written.at(-1)!.seq;
  // A compacted log: remembered answers and documents first (no change to any event), a registration state, a mark.
  const idem: MetaRecord = { seq: 2, op: 'idem', entry: { key: 'k', keyId: 'a', requestHash: 'h', atMs: 0, seq: 2, answer: { kind: 'registration', registration: confirmed.registration } } };
  const doc: MetaRecord = { seq: 3, op: 'docstate', document: { collection: 'series', id: 'ser_1', json: '{}', seq: 3 } };
  const docdel: MetaRecord = { seq: base + 1, op: 'docdel', collection: 'series', id: 'ser_1' };
  const state: LogRecord = { seq: base + 2, op: 'regstate', registration: { ...confirmed.registration, id: `reg_${'7'.repeat(22)}`, email: 'compacted@campus.edu', seq: base + 2 } };
  const mark: MetaRecord = { seq: base + 3, op: 'mark', gone: 1 };
  const records = [idem, doc, ...written, docdel, state, mark];

  const all = walk(records, 0, Infinity, 5);
  assert.equal(all.walk.result.compactedThrough, base + 3, 'the mark is the newest');
  assert.deepEqual(all.walk.result.changes.map((change) => change.record.seq), [...written.map((record) => record.seq), base + 2], 'answers, documents and marks are no change');
  const stateChange = all.walk.result.changes.at(-1)!;
  assert.deepEqual([stateChange.after, stateChange.touched, stateChange.before?.id], [undefined, [], confirmed.registration.eventId], 'a registration state changes no event');
  assert.equal(walk([...written, state], 0, Infinity, 5).walk.result.compactedThrough, base + 2, 'a registration state alone');
  assert.equal(walk([...written, mark, { ...state, seq: base + 4 }], 0, Infinity, 5).walk.result.compactedThrough, base + 4, 'the newest of both');
  assert.equal(walk(written, 0, Infinity, 5).walk.result.compactedThrough, 0);
  // Skipped lines never count toward the limit: a limit of one is the first event line however many precede it.
  const first = walk(records, 0, 1, 5);
  assert.deepEqual([first.taken, first.walk.result.changes.map((change) => change.record.seq)], [3, [written[0]!.seq]]);
  const told = new HistoryWalk(0, 10, 5);
  told.compacted(40);
  told.compacted(12);
  assert.equal(told.result.compactedThrough, 40, 'told of two compactions: the later history is the newer one');
  told.take({ ...mark, seq: 30 });
  assert.equal(told.result.compactedThrough, 40);
  told.take({ ...mark, seq: 50 });
  assert.equal(told.result.compactedThrough, 50);
});

test('isEventRecord and eventIdOf name every kind of line', () => {
  const registration = { id: 'reg_1', eventId: 'evt_R', name: 'n', email: 'e@x', status: 'confirmed' as const, createdAt: '2030-01-01T00:00:00.000Z', checkedInAt: null, seq: 1 };
  const lines: [LogRecord | MetaRecord, string | undefined][] = [
    [{ seq: 1, op: 'put', stored: { id: 'evt_P' } as never }, 'evt_P'],
    [{ seq: 1, op: 'del', id: 'evt_D' }, 'evt_D'],
    [{ seq: 1, op: 'reg', registration }, 'evt_R'],
    [{ seq: 1, op: 'regstate', registration: { ...registration, eventId: 'evt_S' } }, 'evt_S'],
    [{ seq: 1, op: 'cancel', eventId: 'evt_C', id: 'reg_1', atMs: 0, promoted: [] }, 'evt_C'],
    [{ seq: 1, op: 'checkin', eventId: 'evt_K', id: 'reg_1', at: '2030-01-01T00:00:00.000Z' }, 'evt_K'],
    [{ seq: 1, op: 'mark', gone: 0 }, undefined],
    [{ seq: 1, op: 'idem', entry: {} as never }, undefined],
    [{ seq: 1, op: 'doc', document: { collection: 'series', id: 'ser_1', json: '{}', seq: 1 } }, undefined],
    [{ seq: 1, op: 'docstate', document: { collection: 'series', id: 'ser_1', json: '{}', seq: 1 } }, undefined],
    [{ seq: 1, op: 'docdel', collection: 'series', id: 'ser_1' }, undefined],
  ];
  for (const [record, id] of lines) {
    assert.equal(isEventRecord(record), id !== undefined, record.op);
    if (isEventRecord(record)) assert.equal(eventIdOf(record), id, record.op);
    assert.equal(EVENT_OPS.includes(record.op), id !== undefined, record.op);
  }
});

test('ChangeHistory hands each batch to the listeners subscribed when it is handed out, and each compaction to its listeners', () => {
  const history = new ChangeHistory();
  assert.equal(history.listened, false);
  const heard: string[] = [];
  const batch = (seq: number): CommittedChange[] => [{ record: { seq, op: 'del', id: 'evt_1' }, before: undefined, after: null, touched: [], atMs: seq }];
  let offB: (() => void) | undefined;
  const offA = history.subscribe((changes) => {
    heard.push(`a${changes[0]!.record.seq}`);
    // Unsubscribing B and subscribing C while a batch is handed out: B still hears this one, C only the next.
    if (changes[0]!.record.seq === 1) {
      offB!();
      history.subscribe((more) => heard.push(`c${more[0]!.record.seq}`));
    }
  });
  offB = history.subscribe((changes) => heard.push(`b${changes[0]!.record.seq}`));
  assert.equal(history.listened, true);
  history.committed(batch(1));
  history.committed(batch(2));
  assert.deepEqual(heard, ['a1', 'b1', 'a2', 'c2']);
  assert.equal(offA(), true);
  assert.equal(offA(), false, 'a second unsubscribe removes nothing');
  assert.equal(history.listened, true, 'C still listens');

  const compactions: string[] = [];
  let offY: (() => void) | undefined;
  const offX = history.onCompacted((seq) => {
    compactions.push(`x${seq}`);
    if (seq === 10) {
      offY!();
      history.onCompacted((later) => compactions.push(`z${later}`));
    }
  });
  offY = history.onCompacted((seq) => compactions.push(`y${seq}`));
  history.compacted(10);
  history.compacted(20);
  assert.deepEqual(compactions, ['x10', 'y10', 'x20', 'z20']);
  assert.equal(offX(), true);
  history.compacted(30);
  assert.deepEqual(compactions.slice(4), ['z30']);
  assert.deepEqual(heard, ['a1', 'b1', 'a2', 'c2'], 'compactions are not batches');
});

test('a line whose registrations or event a history does not hold touches none and changes no event', () => {
  const registration = { id: 'reg_0000000000000000000001', eventId: 'evt_0000000000000009', name: 'n', email: 'e@x.edu', status: 'confirmed' as const, createdAt: '2030-01-01T00:00:00.000Z', checkedInAt: null, seq: 3 };
  const empty = new RosterTable().get('evt_0000000000000009');
  const lines: LogRecord[] = [
    { seq: 3, op: 'cancel', eventId: registration.eventId, id: registration.id, atMs: 0, promoted: ['reg_0000000000000000000002'] },
    { seq: 3, op: 'checkin', eventId: registration.eventId, id: registration.id, at: registration.createdAt },
    { seq: 3, op: 'put', stored: { id: registration.eventId } as never, promoted: [registration.id] },
  ];
  for (const record of lines) assert.deepEqual(touchedBy(record, empty), [], record.op);
  // A registration for an event the walk never saw (a log that starts later): the roster takes it, no event changes.
  const walk = new HistoryWalk(0, 10, 5);
  walk.take({ seq: 3, op: 'reg', registration });
  walk.take({ seq: 4, op: 'checkin', eventId: registration.eventId, id: registration.id, at: '2030-01-02T00:00:00.000Z' });
  assert.deepEqual(walk.result.changes.map((change) => [change.record.seq, change.before, change.after, change.touched.map((each) => each.id)]), [[3, undefined, undefined, []], [4, undefined, undefined, [registration.id]]]);
});
