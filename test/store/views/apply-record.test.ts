// applyRecord: another instance that applies a writer's durable lines (the PostgreSQL store's catch-up) ends with the
// writer's views after every batch, and its history listeners hear what the writer's heard; a compacted log (events,
// registration states, remembered answers, documents, a mark) gives back the state it was written from. APPLY_SEED=n replays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeDocument, encodeIdempotency, encodeMark, encodeRegistrationState, encodeStored } from '../../../src/store/records/encode-record.js';
import { seqOfLine } from '../../../src/store/postgres/log-table.js';
import { applyRecord, type Views } from '../../../src/store/views/apply-record.js';
import type { CommittedChange } from '../../../src/store/views/change-history.js';
import { mulberry32 } from '../../helpers/random.js';
import { assertSameViews, catchUpWith, changeFields, emptyViews, newWriter, randomWrites, recordsOf, type Writer } from './random-writes.js';
import { registrationId } from './roster-helpers.js';
import { eventId, sampleRecord } from '../helpers.js';

const SEED = Number(process.env['APPLY_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

const rows = (lines: string): { seq: number; line: string }[] => lines.split('\n').filter((line) => line !== '').map((line) => ({ seq: seqOfLine(line), line }));

/** One seat, two registrations, the confirmed one cancelled: the waitlisted one is promoted (a cancel line that touches two). */
async function promotion(writer: Writer): Promise<void> {
  await writer.queue.write(eventId(1), () => sampleRecord(1, { capacity: 1 }));
  const register = (n: number) => () => ({ op: 'register' as const, registration: { id: registrationId(900_000 + n), name: `W ${n}`, email: `w${n}@campus.edu` } });
  await writer.queue.changeRegistrations(eventId(1), register(1));
  await writer.queue.changeRegistrations(eventId(1), register(2));
  await writer.queue.changeRegistrations(eventId(1), () => ({ op: 'cancel', id: registrationId(900_001) }));
}

test(`an instance that applies a writer's durable batches has the writer's views after each, and hears what it heard (APPLY_SEED=${SEED})`, async (t) => {
  t.diagnostic(`seed ${SEED}`);
  const random = mulberry32(SEED);
  const writer = newWriter();
  // One reader with a history listener (webhooks on), one with a history nobody listens to, one with none at all.
  const listened = emptyViews();
  const heard: CommittedChange[] = [];
  listened.history.subscribe((changes) => heard.push(...changes));
  const quiet = emptyViews();
  const bare: Views = { ...emptyViews(), history: undefined };
  let applied = 0;
  for (let round = 0; round < 60; round++) {
    const heardBefore = writer.heard.length;
    if (round === 0) await promotion(writer);
    else await randomWrites(random, writer, 1);
    const fresh = writer.batches.slice(applied);
    applied = writer.batches.length;
    for (const views of [listened, quiet, bare]) await catchUpWith(views, fresh, writer.clock.now);
    const where = `seed ${SEED}, round ${round}`;
    for (const views of [listened, quiet, bare]) assertSameViews(views, writer.views, writer.clock.now, where);
    assert.deepEqual(heard.map(changeFields), writer.heard.map(changeFields), `${where}: what the listener heard`);
    assert.deepEqual(heard.slice(heardBefore).map((change) => change.atMs), writer.heard.slice(heardBefore).map(() => writer.clock.now), `${where}: heard at the catch-up's time`);
  }
  const ops = new Set(writer.heard.map((change) => change.record.op));
  assert.deepEqual([...ops].sort(), ['cancel', 'checkin', 'del', 'put', 'reg'], `seed ${SEED}: every kind of event line was written`);
  assert.ok(recordsOf(writer.batches).some((record) => record.op === 'docdel'), `seed ${SEED}: a document was deleted`);

  // The writer deletes every event left, then its compaction drops some deletions and writes a mark: the reader that
  // applies the mark forgets the same tombstones.
  await Promise.all([...writer.views.index.values()].map((event) => writer.queue.write(event.id, () => null)));
  for (const views of [listened, quiet, bare]) await catchUpWith(views, writer.batches.slice(applied), writer.clock.now);
  for (const views of [listened, quiet, bare]) assertSameViews(views, writer.views, writer.clock.now, `seed ${SEED}, after deleting every event`);
  const tombstones = [...writer.views.changes.tombstones.values()].sort((a, b) => a - b);
  assert.ok(tombstones.length >= 2, `seed ${SEED}: tombstones to drop`);
  const gone = tombstones[Math.floor(tombstones.length / 2)]!;
  writer.views.changes.dropDeletionsThrough(gone);
  const mark = rows(encodeMark(writer.queue.nextSeq, gone));
  for (const views of [listened, quiet, bare]) await catchUpWith(views, [mark], writer.clock.now);
  for (const views of [listened, quiet, bare]) assertSameViews(views, writer.views, writer.clock.now, `seed ${SEED}, after a mark through ${gone}`);
  assert.equal(listened.changes.horizon, gone);
  assert.equal(heard.length, writer.heard.length, 'a mark is no change to an event: nobody hears of it');
});

test(`a compacted log applied to empty views gives back the events, rosters, remembered answers and documents it was written from (APPLY_SEED=${SEED})`, async () => {
  const random = mulberry32(SEED + 1);
  const writer = newWriter();
  await randomWrites(random, writer, 40);
  // The last rounds within the hour, so answers are still remembered when the log is compacted.
  await randomWrites(random, writer, 10, 0);
  await writer.queue.writeGroup(() => ({ events: [], documents: [{ collection: 'series', id: `ser_${'9'.repeat(22)}`, json: '{"kept":true}' }] }));
  const now = writer.clock.now;
  const state = writer.views;
  // As compaction writes it: answers, documents, then events and registration states in seq order, a mark last.
  let text = '';
  for (const answer of state.idempotency.live(now)) text += encodeIdempotency(answer);
  for (const document of state.documents.all()) text += encodeDocument(document, 'docstate');
  const lines: { seq: number; line: string }[] = [];
  for (const event of state.index.values()) lines.push({ seq: event.seq, line: encodeStored(event) });
  for (let n = 1; n <= 10; n++) for (const registration of state.rosters.get(eventId(n)).values()) lines.push({ seq: registration.seq, line: encodeRegistrationState(registration) });
  lines.sort((a, b) => a.seq - b.seq);
  for (const { line } of lines) text += line;
  text += encodeMark(state.changes.lastSeq, 0);
  const compacted = rows(text);
  for (const op of ['regstate', 'idem', 'docstate', 'put']) assert.ok(compacted.some((row) => row.line.includes(`"op":"${op}"`)), `seed ${SEED}: a compacted ${op} line`);

  const views = emptyViews();
  const heard: CommittedChange[] = [];
  views.history.subscribe((changes) => heard.push(...changes));
  for (const record of recordsOf([compacted])) applyRecord(views, record, now);
  const where = `seed ${SEED}, compacted`;
  const events = (of: Views) => [...of.index.values()].map((event) => [event.id, event.json, event.seq, event.modifiedMs]).sort();
  assert.deepEqual(events(views), events(state), `${where}: events`);
  for (let n = 1; n <= 10; n++) {
    const id = eventId(n);
    assert.deepEqual([...views.rosters.get(id).values()], [...state.rosters.get(id).values()], `${where}: roster of ${id}`);
  }
  assert.deepEqual(views.idempotency.live(now), state.idempotency.live(now), `${where}: remembered answers`);
  assert.deepEqual(views.documents.all(), state.documents.all(), `${where}: documents`);
  // Each event line is heard as a change (a put: the event after it; a registration state: the event as it was), nothing else is.
  assert.deepEqual(heard.map((change) => [change.record.op, change.record.seq]), lines.map(({ seq, line }) => [line.includes('"op":"regstate"') ? 'regstate' : 'put', seq]), `${where}: heard`);
  for (const change of heard) {
    if (change.record.op === 'put') assert.deepEqual([change.before, change.after], [undefined, change.record.stored], where);
    else assert.deepEqual([change.after, change.touched], [undefined, []], where);
    assert.equal(change.atMs, now, where);
  }
  // A registration state is the newest durable write when it is the last line: next_since counts it.
  const last = lines.at(-1)!;
  const bare = emptyViews();
  for (const record of recordsOf([rows(lines.map(({ line }) => line).join(''))])) applyRecord(bare, record, now);
  assert.equal(bare.changes.lastSeq, last.seq, `${where}: the last seq`);
});

test('a mark applied to views that never held its tombstones (a PostgreSQL store migrated from a compacted folder) still answers 410 before it', () => {
  const views = emptyViews();
  applyRecord(views, { seq: 31, op: 'mark', gone: 17 }, 0);
  assert.equal(views.changes.horizon, 17, 'the newest deletion the compaction dropped');
  // A second, older mark never lowers it; a newer one raises it.
  applyRecord(views, { seq: 32, op: 'mark', gone: 9 }, 0);
  assert.equal(views.changes.horizon, 17);
  applyRecord(views, { seq: 33, op: 'mark', gone: 25 }, 0);
  assert.equal(views.changes.horizon, 25);
});

test('a registration line for an event this instance does not hold changes only the roster; an unknown kind of line is refused by name', () => {
  const views = emptyViews();
  const registration = { id: registrationId(1), eventId: eventId(7), name: 'Ana', email: 'ana@campus.edu', status: 'confirmed' as const, createdAt: '2030-01-01T00:00:00.000Z', checkedInAt: null, seq: 4 };
  applyRecord(views, { seq: 4, op: 'reg', registration }, 0);
  assert.deepEqual([...views.rosters.get(eventId(7)).values()], [registration]);
  assert.deepEqual([views.index.size, views.changes.lastSeq, views.changes.after(0, 10).changes], [0, 4, []]);
  assert.throws(() => applyRecord(views, { seq: 5, op: 'rename', id: eventId(7) } as never, 0), /cannot apply the record \{"seq":5,"op":"rename","id":"evt_0000000000000007"\}/);
});
