// The store's change history: what a read of the log gives back equals what listeners heard as each batch committed,
// so messages derived after a restart are the ones a running server derives (same ids, same bodies).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startHarness } from '../../helpers/harness.js';
import { ChangeHistory, type CommittedChange } from '../../../src/store/views/change-history.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { RosterTable } from '../../../src/store/views/roster-table.js';
import { StoreUnavailable } from '../../../src/store/store-errors.js';
import { WriteQueue } from '../../../src/store/write/write-queue.js';
import { eventId, sampleRecord } from '../helpers.js';
import { messagesOf } from '../../../src/webhooks/messages.js';

/** The messages of some changes, with a deletion's time (the read's, not the commit's) left out. */
function derived(changes: readonly CommittedChange[]): { id: string; type: string; data: unknown }[] {
  return changes.flatMap(messagesOf).map((message) => {
    const body = JSON.parse(message.body) as { type: string; data: unknown; timestamp: string };
    return { id: message.idIn('L'), type: body.type, data: body.data, ...(body.type === 'event.deleted' ? {} : { timestamp: body.timestamp }) };
  });
}

test('history.readAfter gives back from the log exactly the changes listeners heard, from any position', async () => {
  const h = await startHarness();
  try {
    const heard: CommittedChange[] = [];
    const unsubscribe = h.app.store.history!.subscribe((changes) => heard.push(...changes));
    const key = h.keys.admin;
    const event = (await h.request('POST', '/events', { key, body: { title: 'Seminar', category: 'academic', location: 'Room 1', start_time: '2027-03-01T10:00:00Z', end_time: '2027-03-01T11:00:00Z', capacity: 1 } })).json;
    const other = (await h.request('POST', '/events', { key, body: { title: 'Party', category: 'social', location: 'Quad', start_time: '2027-03-02T10:00:00Z', end_time: '2027-03-02T11:00:00Z', capacity: 2 } })).json;
    const people = [];
    for (const name of ['ana', 'ben', 'cai', 'dee']) people.push((await h.request('POST', `/events/${event.id}/registrations`, { key, body: { name, email: `${name}@campus.edu` } })).json);
    await h.request('PUT', `/events/${event.id}`, { key, body: { capacity: 2 } });
    await h.request('POST', `/events/${event.id}/registrations/${people[0].id}/check-in`, { key });
    await h.request('DELETE', `/events/${event.id}/registrations/${people[1].id}`, { key });
    await h.request('DELETE', `/events/${event.id}/registrations/${people[3].id}`, { key });
    await h.request('POST', `/events/${other.id}/registrations`, { key, body: { name: 'eve', email: 'eve@campus.edu' } });
    await h.request('DELETE', `/events/${other.id}`, { key });
    unsubscribe();
    const types = derived(heard).map((message) => message.type);
    assert.deepEqual(types, [
      'event.created', 'event.created',
      'registration.created', 'event.updated', 'registration.created', 'registration.created', 'registration.created',
      'event.updated', 'registration.promoted',
      'registration.checked_in',
      'registration.cancelled', 'registration.promoted',
      'registration.cancelled',
      'registration.created', 'event.updated',
      'event.deleted',
    ]);
    assert.deepEqual(derived((await h.app.store.history!.readAfter(0)).changes), derived(heard));
    for (const since of [1, 5, heard.at(-3)!.record.seq]) {
      assert.deepEqual(derived((await h.app.store.history!.readAfter(since)).changes), derived(heard.filter((change) => change.record.seq > since)), `after ${since}`);
    }
    assert.equal((await h.app.store.history!.readAfter(0)).compactedThrough, 0);
  } finally {
    await h.close();
  }
});

test('WriteQueue tells history listeners of a batch only after it is durable, and never of a batch that failed', async () => {
  const history = new ChangeHistory();
  const heard: number[] = [];
  history.subscribe((changes) => heard.push(...changes.map((change) => change.record.seq)));
  let release: (() => void) | undefined;
  let fail = false;
  const writes = new WriteQueue({
    index: new EventIndex(),
    rosters: new RosterTable(),
    now: () => Date.parse('2030-01-01T00:00:00.000Z'),
    nextSeq: 1,
    history,
    persist: () => (fail ? Promise.reject(Object.assign(new Error('no space'), { code: 'ENOSPC' })) : new Promise<void>((resolve) => (release = resolve))),
  });
  const first = writes.write(eventId(1), () => sampleRecord(1));
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  assert.notEqual(release, undefined, 'the batch is being persisted');
  assert.deepEqual(heard, [], 'nothing is heard before the batch is durable');
  release!();
  await first;
  assert.deepEqual(heard, [1]);
  fail = true;
  await assert.rejects(writes.write(eventId(2), () => sampleRecord(2)), StoreUnavailable);
  assert.deepEqual(heard, [1], 'a failed batch is never heard');
});

test('compactionHeld() warns of a lasting hold when it begins, again each day it lasts, and at once when its reason changes', () => {
  const history = new ChangeHistory();
  let hold: { reason: string; lasting: boolean } | undefined = { reason: 'webhook whk_a is failing', lasting: true };
  history.holdCompaction(() => hold);
  const heard: [number, string][] = [];
  const DAY = 24 * 60 * 60 * 1000;
  for (const at of [0, 1000, DAY - 1, DAY, DAY + 1, 2 * DAY]) history.compactionHeld((reason) => heard.push([at, reason]), at);
  assert.deepEqual(heard, [[0, 'webhook whk_a is failing'], [DAY, 'webhook whk_a is failing'], [2 * DAY, 'webhook whk_a is failing']]);
  hold = { reason: 'webhook whk_b is paused', lasting: true };
  history.compactionHeld((reason) => heard.push([2 * DAY + 1, reason]), 2 * DAY + 1);
  hold = { reason: 'webhook whk_a is delivering the changes after seq 3', lasting: false };
  history.compactionHeld((reason) => heard.push([2 * DAY + 2, reason]), 2 * DAY + 2);
  assert.deepEqual(heard.slice(3), [[2 * DAY + 1, 'webhook whk_b is paused']]);
});
