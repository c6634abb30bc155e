// WriteQueue's registration path: the seat rules run in the one writer against queued state, and memory changes only after the disk.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seatsOf, toRecord } from '../../../src/events/event.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { decodeRecord } from '../../../src/store/records/jsonl-record.js';
import { RosterTable } from '../../../src/store/views/roster-table.js';
import { StoreUnavailable } from '../../../src/store/store-errors.js';
import { WriteQueue } from '../../../src/store/views/write-queue.js';
import { eventId, sampleRecord } from '../helpers.js';

const NOW = Date.parse('2030-01-01T00:00:00.000Z');

function queue(persist: (text: string) => Promise<void> = () => Promise.resolve()) {
  const index = new EventIndex();
  const rosters = new RosterTable();
  const lines: string[] = [];
  const writes = new WriteQueue({
    index,
    rosters,
    now: () => NOW,
    nextSeq: 1,
    persist: async (text) => {
      await persist(text);
      lines.push(...text.split('\n').filter((line) => line !== ''));
    },
  });
  return { index, rosters, writes, lines };
}

function registerChange(n: number) {
  return () => ({ op: 'register' as const, registration: { id: `reg_${String(n).padStart(22, '0')}`, name: `P ${n}`, email: `p${n}@x.edu` } });
}

test('changeRegistrations() queued together: 500 for 100 seats confirm exactly 100, the rest waitlisted in order', async () => {
  const { index, rosters, writes } = queue();
  await writes.write(eventId(1), () => sampleRecord(1, { capacity: 100 }));
  const results = await Promise.all(Array.from({ length: 500 }, (_, n) => writes.changeRegistrations(eventId(1), registerChange(n))));
  assert.deepEqual(results.map((r) => r.registration!.status), [...Array(100).fill('confirmed'), ...Array(400).fill('waitlisted')]);
  const roster = rosters.get(eventId(1));
  assert.equal(roster.confirmed, 100);
  assert.equal(roster.waitlisted, 400);
  assert.equal(seatsOf(index.get(eventId(1))!).registered, 100);
  assert.deepEqual(roster.page('waitlisted', 0, 3).registrations.map((r) => r.name), ['P 100', 'P 101', 'P 102']);
});

test('changeRegistrations() changes the committed roster only once the batch is durable, and not at all when it fails', async () => {
  let release!: () => void;
  let fail = false;
  const { index, rosters, writes } = queue(async () => {
    await new Promise<void>((resolve) => (release = resolve));
    if (fail) throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
  });
  const created = writes.write(eventId(1), () => sampleRecord(1, { capacity: 1 }));
  await new Promise((resolve) => setImmediate(resolve));
  release();
  await created;
  const pending = writes.changeRegistrations(eventId(1), registerChange(1));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(rosters.get(eventId(1)).size, 0, 'not visible before it is durable');
  fail = true;
  release();
  await assert.rejects(pending, StoreUnavailable);
  assert.equal(rosters.get(eventId(1)).size, 0);
  assert.equal(seatsOf(index.get(eventId(1))!).registered, 0);
  await assert.rejects(writes.changeRegistrations(eventId(1), registerChange(2)), StoreUnavailable);
});

test('a cancel queued behind registrations frees its seat for the oldest waitlisted one, as one line', async () => {
  const { rosters, writes, lines } = queue();
  await writes.write(eventId(1), () => sampleRecord(1, { capacity: 2 }));
  const queued = [0, 1, 2, 3].map((n) => writes.changeRegistrations(eventId(1), registerChange(n)));
  const cancel = writes.changeRegistrations(eventId(1), () => ({ op: 'cancel', id: `reg_${'0'.repeat(22)}` }));
  await Promise.all([...queued, cancel]);
  const roster = rosters.get(eventId(1));
  assert.deepEqual([...roster.values()].map((r) => `${r.name}:${r.status}`), ['P 1:confirmed', 'P 2:confirmed', 'P 3:waitlisted']);
  const cancelLine = lines.map((line) => decodeRecord(Buffer.from(line), 0, line.length)).find((record) => typeof record !== 'string' && record.op === 'cancel');
  assert.deepEqual(typeof cancelLine === 'object' && cancelLine.op === 'cancel' ? cancelLine.promoted : undefined, [`reg_${'2'.padStart(22, '0')}`]);
});

test('write() raising capacity confirms the oldest waitlisted in the same line; registered_count is the roster\'s', async () => {
  const { index, rosters, writes } = queue();
  await writes.write(eventId(1), () => sampleRecord(1, { capacity: 1 }));
  await Promise.all([0, 1, 2, 3].map((n) => writes.changeRegistrations(eventId(1), registerChange(n))));
  const raised = await writes.write(eventId(1), (current) => ({ ...toRecord(current!), capacity: 3 }));
  assert.equal(seatsOf(raised!).registered, 3);
  assert.equal(rosters.get(eventId(1)).waitlisted, 1);
  const stale = await writes.write(eventId(1), (current) => ({ ...toRecord(current!), registered_count: 0, title: 'Renamed' }));
  assert.equal(seatsOf(stale!).registered, 3, 'a change cannot set registered_count');
  assert.equal(index.get(eventId(1)), stale);
});

test('a registration that changes registered_count gives the event a new seq and modified time; a waitlisted one does not', async () => {
  const { index, writes } = queue();
  const created = (await writes.write(eventId(1), () => sampleRecord(1, { capacity: 1 })))!;
  const confirmed = await writes.changeRegistrations(eventId(1), registerChange(1));
  assert.ok(confirmed.event!.seq > created.seq);
  assert.equal(confirmed.event!.modifiedMs, NOW);
  const before = index.get(eventId(1));
  await writes.changeRegistrations(eventId(1), registerChange(2));
  assert.equal(index.get(eventId(1)), before);
});

test('a confirming registration takes two seqs: its own, and the next for the event, so compaction never writes two lines at one seq', async () => {
  const { index, rosters, writes, lines } = queue();
  await writes.write(eventId(1), () => sampleRecord(1, { capacity: 1 }));
  const confirmed = await writes.changeRegistrations(eventId(1), registerChange(1));
  const waitlisted = await writes.changeRegistrations(eventId(1), registerChange(2));
  assert.equal(confirmed.registration!.seq, 2);
  assert.equal(index.get(eventId(1))!.seq, 3);
  assert.equal(waitlisted.registration!.seq, 4);
  assert.equal(writes.nextSeq, 5);
  assert.deepEqual(lines.map((line) => JSON.parse(line).seq), [1, 3, 4]);
  assert.equal(rosters.get(eventId(1)).get(confirmed.registration!.id)!.seq, 2);
});

test('changeRegistrations() refuses a registration whose id or e-mail the roster holds, and the next change still sees the true state', async () => {
  const { rosters, writes } = queue();
  await writes.write(eventId(1), () => sampleRecord(1, { capacity: 5 }));
  await writes.changeRegistrations(eventId(1), registerChange(1));
  await assert.rejects(writes.changeRegistrations(eventId(1), () => ({ op: 'register', registration: { id: `reg_${'9'.padStart(22, '0')}`, name: 'X', email: 'P1@X.EDU' } })), TypeError);
  await assert.rejects(writes.changeRegistrations(eventId(1), () => ({ op: 'register', registration: { id: `reg_${'1'.padStart(22, '0')}`, name: 'X', email: 'other@x.edu' } })), TypeError);
  const next = await writes.changeRegistrations(eventId(1), registerChange(2));
  assert.equal(next.registration!.status, 'confirmed');
  assert.equal(rosters.get(eventId(1)).size, 2);
});

test('fail() while paused with writes queued refuses them, and drain() and close() resolve at once, without a resume()', async () => {
  const { writes, index } = queue();
  await writes.pause();
  const queued = writes.write(eventId(1), () => sampleRecord(1));
  let drained = false;
  void writes.drain().then(() => (drained = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(drained, false, 'a paused queue with a write queued is not idle');
  writes.fail(Object.assign(new Error('rename failed'), { code: 'EIO' }));
  await assert.rejects(queued, { name: 'StoreUnavailable', message: 'The store cannot write (EIO: input/output error on the disk); nothing of this request was saved. Writes are refused until the server is restarted.' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(drained, true);
  await writes.close();
  assert.equal(index.get(eventId(1)), undefined);
});
