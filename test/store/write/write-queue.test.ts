// WriteQueue's registration path: the seat rules run in the one writer against queued state, and memory changes only after the disk.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seatsOf } from '../../../src/store/views/served-event.js';
import { toRecord } from '../../../src/events/event.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { RosterTable } from '../../../src/store/views/roster-table.js';
import { StoreUnavailable } from '../../../src/store/store-errors.js';
import { WriteQueue } from '../../../src/store/write/write-queue.js';
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

/** A queue whose disk holds every batch until the test lets it go; `batches` are the texts it was given. */
function heldQueue(options: { gatherTurn?: boolean; maxBatchChars?: number } = {}) {
  const index = new EventIndex();
  const rosters = new RosterTable();
  const batches: string[] = [];
  const held: { resolve: () => void }[] = [];
  const writes = new WriteQueue({
    index,
    rosters,
    now: () => NOW,
    nextSeq: 1,
    ...options,
    persist: (text) => {
      batches.push(text);
      return new Promise<void>((resolve) => held.push({ resolve }));
    },
  });
  const release = async (): Promise<void> => {
    held.shift()!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
  };
  /** Lets every batch through, those queued meanwhile too. */
  const releaseAll = async (): Promise<void> => {
    while (held.length > 0) await release();
  };
  return { index, rosters, writes, batches, release, releaseAll };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('by default a batch waits one turn: writes queued a microtask apart go out together; gatherTurn false sends the first alone', async () => {
  for (const [options, expected] of [[{}, [2]], [{ gatherTurn: true }, [2]], [{ gatherTurn: false }, [1, 1]]] as const) {
    const { writes, batches, releaseAll } = heldQueue(options);
    const first = writes.write(eventId(1), () => sampleRecord(1));
    await null;
    const second = writes.write(eventId(2), () => sampleRecord(2));
    await turn();
    await releaseAll();
    await Promise.all([first, second]);
    assert.deepEqual(batches.map((text) => text.split('\n').length - 1), expected, JSON.stringify(options));
  }
});

test('a batch takes lines up to maxBatchChars exactly, and the next line starts a new batch', async () => {
  const lengths: number[] = [];
  {
    const { writes, batches, release } = heldQueue();
    const all = [1, 2, 3].map((n) => writes.write(eventId(n), () => sampleRecord(n)));
    await turn();
    await release();
    await Promise.all(all);
    lengths.push(...batches[0]!.split('\n').slice(0, -1).map((line) => line.length + 1));
  }
  const [a, b, c] = lengths as [number, number, number];
  for (const [limit, expected] of [[a + b + c, [3]], [a + b + c - 1, [2, 1]], [a + b, [2, 1]], [a + b - 1, [1, 1, 1]], [1, [1, 1, 1]]] as const) {
    const { writes, batches, releaseAll } = heldQueue({ maxBatchChars: limit });
    const all = [1, 2, 3].map((n) => writes.write(eventId(n), () => sampleRecord(n)));
    await turn();
    await releaseAll();
    await Promise.all(all);
    assert.deepEqual(batches.map((text) => text.split('\n').length - 1), expected, `limit ${limit}`);
  }
});

test('a capacity raised and still queued: the next registration change sees the promoted ones confirmed', async () => {
  const { writes, release, rosters } = heldQueue();
  const created = writes.write(eventId(1), () => sampleRecord(1, { capacity: 1 }));
  const registered = [1, 2, 3].map((n) => writes.changeRegistrations(eventId(1), registerChange(n)));
  await turn();
  await release();
  await Promise.all([created, ...registered]);
  const raised = writes.write(eventId(1), (current) => ({ ...toRecord(current!), capacity: 2 }));
  let seen: number[] = [];
  const next = writes.changeRegistrations(eventId(1), (_event, roster) => {
    seen = [roster.confirmed, roster.waitlisted];
    return { op: 'register', registration: registerChange(4)().registration };
  });
  assert.deepEqual(seen, [2, 1], 'the queued raise confirmed the oldest waitlisted one');
  await turn();
  await release();
  assert.equal((await next).registration!.status, 'waitlisted');
  assert.equal(seatsOf((await raised)!).registered, 2);
  assert.deepEqual([...rosters.get(eventId(1)).values()].map((r) => r.status), ['confirmed', 'confirmed', 'waitlisted', 'waitlisted']);
});

test('changeRegistrations() refuses a decision it does not know, and queues nothing', async () => {
  const { writes } = queue();
  await writes.write(eventId(1), () => sampleRecord(1));
  const seq = writes.nextSeq;
  await assert.rejects(writes.changeRegistrations(eventId(1), () => ({ op: 'transfer', id: 'x' }) as never), { name: 'TypeError', message: 'unknown registration change {"op":"transfer","id":"x"}' });
  assert.equal(writes.nextSeq, seq);
});

test('a document written twice while queued: a later group sees the newest, before and after the first write is durable', async () => {
  const { writes, release } = heldQueue();
  const put = (n: number) => writes.writeGroup(() => ({ events: [], documents: [{ collection: 'series', id: 's1', json: `{"v":${n}}` }] }));
  const seen = (): string | undefined => {
    let json: string | undefined;
    void writes.writeGroup((view) => {
      json = view.document('series', 's1')?.json;
      return { events: [], documents: [] };
    });
    return json;
  };
  const first = put(1);
  await turn();
  const second = put(2);
  assert.equal(seen(), '{"v":2}');
  await release();
  await first;
  assert.equal(writes.document('series', 's1')!.json, '{"v":1}');
  assert.equal(seen(), '{"v":2}', 'the second is still queued: it is what the next change sees');
  await release();
  await second;
  assert.equal(seen(), '{"v":2}');
});

test('fail() while a group with a document is being written: that batch still lands, later writes are refused', async () => {
  const { writes, release } = heldQueue();
  const group = writes.writeGroup(() => ({ events: [{ id: eventId(1), record: sampleRecord(1) }], documents: [{ collection: 'series', id: 's1', json: '{"v":1}' }] }));
  await turn();
  writes.fail(new Error('swap failed'));
  await release();
  const result = await group;
  assert.equal(result.documents.get('s1')!.json, '{"v":1}');
  assert.equal(writes.document('series', 's1')!.json, '{"v":1}');
  await assert.rejects(writes.write(eventId(2), () => sampleRecord(2)), /an unexpected write error/);
});

test('a group raising a capacity, still queued: the next registration change sees the promoted one confirmed', async () => {
  const { writes, release } = heldQueue();
  const created = writes.write(eventId(1), () => sampleRecord(1, { capacity: 1 }));
  const registered = [1, 2].map((n) => writes.changeRegistrations(eventId(1), registerChange(n)));
  await turn();
  await release();
  await Promise.all([created, ...registered]);
  const group = writes.writeGroup((view) => ({ events: [{ id: eventId(1), record: { ...toRecord(view.event(eventId(1))!), capacity: 2 } }], documents: [] }));
  let seen: number[] = [];
  void writes.changeRegistrations(eventId(1), (_event, roster) => {
    seen = [roster.confirmed, roster.waitlisted];
    return undefined;
  });
  assert.deepEqual(seen, [2, 0]);
  await turn();
  await release();
  assert.equal(seatsOf((await group).events.get(eventId(1))!).registered, 2);
});

test('cancelling a confirmed registration with a waitlist: its seat goes to the oldest waitlisted one, and the event is not rewritten', async () => {
  const { index, writes } = queue();
  await writes.write(eventId(1), () => sampleRecord(1, { capacity: 2 }));
  for (const n of [1, 2, 3]) await writes.changeRegistrations(eventId(1), registerChange(n));
  const before = index.get(eventId(1))!;
  const cancelled = await writes.changeRegistrations(eventId(1), () => ({ op: 'cancel', id: `reg_${'1'.padStart(22, '0')}` }));
  assert.equal(cancelled.registration!.status, 'confirmed');
  assert.equal(cancelled.event, before);
  assert.equal(index.get(eventId(1)), before, 'registered_count stays 2: no new state of the event');
  const waitlisted = await writes.changeRegistrations(eventId(1), registerChange(4));
  const dropped = await writes.changeRegistrations(eventId(1), () => ({ op: 'cancel', id: waitlisted.registration!.id }));
  assert.equal(dropped.event, before, 'a waitlisted one cancelled frees no seat');
  const freed = await writes.changeRegistrations(eventId(1), () => ({ op: 'cancel', id: `reg_${'2'.padStart(22, '0')}` }));
  assert.equal(seatsOf(freed.event!).registered, 1, 'with nobody waiting, the count goes down');
});

test('checking in: a waitlisted registration is refused; a second check-in keeps the first time and writes nothing', async () => {
  let now = NOW;
  const index = new EventIndex();
  const writes = new WriteQueue({ index, rosters: new RosterTable(), now: () => now, nextSeq: 1, persist: () => Promise.resolve() });
  await writes.write(eventId(1), () => sampleRecord(1, { capacity: 1 }));
  const confirmed = (await writes.changeRegistrations(eventId(1), registerChange(1))).registration!;
  const waitlisted = (await writes.changeRegistrations(eventId(1), registerChange(2))).registration!;
  await assert.rejects(writes.changeRegistrations(eventId(1), () => ({ op: 'checkIn', id: waitlisted.id })), { name: 'TypeError', message: `registration ${waitlisted.id} is waitlisted: it cannot be checked in` });
  const first = await writes.changeRegistrations(eventId(1), () => ({ op: 'checkIn', id: confirmed.id }));
  assert.equal(first.registration!.checkedInAt, '2030-01-01T00:00:00.000Z');
  now += 60_000;
  const seq = writes.nextSeq;
  const again = await writes.changeRegistrations(eventId(1), () => ({ op: 'checkIn', id: confirmed.id }));
  assert.deepEqual(again, { event: index.get(eventId(1)), registration: first.registration });
  assert.equal(writes.nextSeq, seq, 'nothing written');
});


test('once writes are refused, a change is still decided first: one that could never be made gets its own error, one that would write the 503', async () => {
  const { writes } = queue();
  await writes.write(eventId(1), () => sampleRecord(1, { capacity: 1 }));
  writes.fail(Object.assign(new Error('no space'), { code: 'ENOSPC' }));
  const notFound = new Error('no event has that id');
  const missing = (current: unknown) => {
    if (current === undefined) throw notFound;
    return null;
  };
  await assert.rejects(writes.write(eventId(9), missing), (error) => error === notFound, 'an unknown event: its 404, not the 503');
  await assert.rejects(writes.writeGroup((view) => missing(view.event(eventId(9))) ?? { events: [], documents: [] }), (error) => error === notFound);
  await assert.rejects(writes.changeRegistrations(eventId(9), registerChange(1)), { name: 'TypeError', message: `a change to the registrations of event ${eventId(9)}, which does not exist` }, 'a registration of an unknown event is no 503');
  // A change that changes nothing answers as it always does; one that writes is refused.
  assert.equal((await writes.write(eventId(1), (current) => toRecord(current!)))?.id, eventId(1));
  await assert.rejects(writes.write(eventId(1), (current) => ({ ...toRecord(current!), capacity: 5 })), StoreUnavailable);
  await assert.rejects(writes.changeRegistrations(eventId(1), registerChange(2)), StoreUnavailable);
});
