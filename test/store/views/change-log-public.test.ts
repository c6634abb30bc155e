// The change log's public view (API.md §14): drafts and pending events are no entry; becoming public is a creation,
// leaving public view a deletion whose tombstone survives a compaction (its line says where), and a rebuild keeps it all.
import assert from 'node:assert/strict';
import test from 'node:test';
import { toStored } from '../../../src/store/views/served-event.js';
import type { EventStatus, StoredEvent } from '../../../src/events/event.js';
import { ChangeLog, publicChange } from '../../../src/store/views/change-log.js';
import { eventId, sampleRecord } from '../helpers.js';

/** A change log over a plain map, written as commit-batch writes it: each change through publicChange. */
function fixture(): { log: ChangeLog; events: Map<string, StoredEvent>; put: (n: number, seq: number, status?: EventStatus) => void; del: (n: number, seq: number) => void } {
  const events = new Map<string, StoredEvent>();
  const log = new ChangeLog((id) => events.get(id));
  return {
    log,
    events,
    put(n, seq, status) {
      const before = events.get(eventId(n));
      const hiddenAt = status === 'draft' || status === 'pending' ? (before === undefined ? undefined : before.hiddenAt ?? (before.status === 'draft' || before.status === 'pending' ? undefined : seq)) : undefined;
      const stored = toStored(sampleRecord(n, status === undefined ? {} : { status }), seq, undefined, undefined, hiddenAt);
      events.delete(stored.id);
      events.set(stored.id, stored);
      log.committed(seq, stored.id, publicChange(before, stored));
      log.batchCommitted(events.values(), events.size);
    },
    del(n, seq) {
      const before = events.get(eventId(n));
      events.delete(eventId(n));
      log.committed(seq, eventId(n), publicChange(before, null));
      log.batchCommitted(events.values(), events.size);
    },
  };
}

const entries = (log: ChangeLog, since: number): [number, string, boolean][] => log.after(since, 100).changes.map((change) => [change.seq, change.id, change.event === null]);

test('publicChange(): public after is the event; hidden after a public before is a deletion; anything else nothing', () => {
  const published = toStored(sampleRecord(1), 1);
  const cancelled = toStored(sampleRecord(1, { status: 'cancelled' }), 2);
  const draft = toStored(sampleRecord(1, { status: 'draft' }), 3);
  assert.equal(publicChange(undefined, published), published);
  assert.equal(publicChange(draft, cancelled), cancelled);
  assert.equal(publicChange(published, draft), null);
  assert.equal(publicChange(cancelled, null), null);
  assert.equal(publicChange(undefined, draft), undefined);
  assert.equal(publicChange(draft, draft), undefined);
  assert.equal(publicChange(draft, null), undefined);
  assert.equal(publicChange(published, undefined), undefined);
});

test('a draft is no entry; published, its entry is a creation after any position; hidden again, a deletion', () => {
  const { log, put } = fixture();
  put(1, 1);
  put(2, 2, 'draft');
  put(2, 3, 'pending');
  assert.deepEqual(entries(log, 0), [[1, eventId(1), false]]);
  assert.deepEqual(entries(log, 1), []);
  assert.equal(log.lastSeq, 3, 'the newest write still counts for next_since');
  put(2, 4);
  assert.deepEqual(entries(log, 1), [[4, eventId(2), false]]);
  put(2, 5, 'cancelled');
  put(2, 6, 'pending');
  assert.deepEqual(entries(log, 1), [[6, eventId(2), true]]);
  assert.deepEqual(entries(log, 0), [[1, eventId(1), false]], 'a full copy holds no deletion');
  put(2, 7, 'draft');
  assert.deepEqual(entries(log, 1), [[6, eventId(2), true]], 'its changes while hidden move nothing');
  assert.deepEqual(entries(log, 6), []);
});

test('a compaction keeps the tombstone of a hidden event (its line stays) and drops only deletions, raising the horizon to theirs', () => {
  const { log, put, del } = fixture();
  put(1, 1);
  put(2, 2);
  put(2, 3, 'pending');
  del(1, 4);
  put(3, 5, 'draft');
  del(3, 6);
  assert.deepEqual([...log.deletions()], [[eventId(1), 4]], "a draft's deletion leaves no tombstone; a hidden event is not deleted");
  log.dropDeletionsThrough(6);
  assert.equal(log.horizon, 4);
  assert.deepEqual(entries(log, 4), []);
  assert.deepEqual(entries(log, 2), [[3, eventId(2), true]]);
});

test('hiddenAt() places a tombstone met only in a later line (a compacted log) at its seq, in order among the entries', () => {
  const { log, put, events } = fixture();
  put(1, 1);
  put(2, 5);
  const hidden = toStored(sampleRecord(3, { status: 'pending' }), 7, undefined, undefined, 3);
  events.set(hidden.id, hidden);
  log.hiddenAt(3, hidden.id);
  log.committed(7, hidden.id, publicChange(undefined, hidden));
  assert.deepEqual(entries(log, 0), [[1, eventId(1), false], [5, eventId(2), false]]);
  assert.deepEqual(entries(log, 2), [[3, eventId(3), true], [5, eventId(2), false]]);
  log.hiddenAt(3, hidden.id);
  assert.deepEqual(entries(log, 2), [[3, eventId(3), true], [5, eventId(2), false]], 'once');
});

test('a rebuild from live events and tombstones (a replay) leaves hidden events out and keeps their tombstones', () => {
  const events = new Map<string, StoredEvent>();
  const add = (stored: StoredEvent): void => void events.set(stored.id, stored);
  add(toStored(sampleRecord(1), 1));
  add(toStored(sampleRecord(2, { status: 'draft' }), 2));
  add(toStored(sampleRecord(3, { status: 'cancelled' }), 4));
  add(toStored(sampleRecord(4, { status: 'pending' }), 6, undefined, undefined, 5));
  const log = new ChangeLog((id) => events.get(id), { events: events.values(), tombstones: new Map([[eventId(4), 5]]), lastSeq: 6 });
  assert.deepEqual(entries(log, 0), [[1, eventId(1), false], [4, eventId(3), false]]);
  assert.deepEqual(entries(log, 3), [[4, eventId(3), false], [5, eventId(4), true]]);
});

test('hiddenAt() of 2,000 events met in a random order (a compacted log read on PostgreSQL) places each tombstone at its seq, live events between (seeded)', () => {
  const seed = Date.now() % 1_000_000;
  let state = seed;
  const random = (): number => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const events = new Map<string, StoredEvent>();
  const log = new ChangeLog((id) => events.get(id));
  // Live events at odd seqs 1..3999 come first; hidden events' tombstones at even seqs, met afterwards in any order.
  for (let n = 0; n < 2000; n++) {
    const live = toStored(sampleRecord(n), 2 * n + 1);
    events.set(live.id, live);
    log.committed(live.seq, live.id, publicChange(undefined, live));
  }
  const hidden = Array.from({ length: 2000 }, (_, n) => 2 * n + 2).sort(() => random() - 0.5);
  for (const [k, seq] of hidden.entries()) {
    const stored = toStored(sampleRecord(10_000 + k, { status: 'pending' }), 5000 + k, undefined, undefined, seq);
    events.set(stored.id, stored);
    log.hiddenAt(seq, stored.id);
    log.committed(5000 + k, stored.id, publicChange(undefined, stored));
  }
  log.batchCommitted(events.values(), events.size);
  const seqs = log.after(0, 10_000, 0).changes.map((change) => change.seq);
  assert.deepEqual(seqs, Array.from({ length: 4000 }, (_, n) => n + 1), `seed ${seed}`);
});
