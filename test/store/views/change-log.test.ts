import assert from 'node:assert/strict';
import test from 'node:test';
import { toStored } from '../../../src/store/views/served-event.js';
import type { StoredEvent } from '../../../src/events/event.js';
import { ChangeLog } from '../../../src/store/views/change-log.js';
import { eventId, sampleRecord } from '../helpers.js';

/** A change log over a plain map, written to as the write queue does at commit. */
function fixture(): { log: ChangeLog; put: (n: number, seq: number) => void; del: (n: number, seq: number) => void } {
  const events = new Map<string, StoredEvent>();
  const log = new ChangeLog((id) => events.get(id));
  return {
    log,
    put(n, seq) {
      const stored = toStored(sampleRecord(n), seq);
      events.delete(stored.id);
      events.set(stored.id, stored);
      log.committed(seq, stored.id, stored);
      log.batchCommitted(events.values(), events.size);
    },
    del(n, seq) {
      events.delete(eventId(n));
      log.committed(seq, eventId(n), null);
      log.batchCommitted(events.values(), events.size);
    },
  };
}

const seqs = (page: { changes: { seq: number }[] }): number[] => page.changes.map((change) => change.seq);

test('ChangeLog.after() gives the latest change of each event after since, in seq order, skipping superseded ones', () => {
  const { log, put, del } = fixture();
  put(1, 1);
  put(2, 2);
  put(1, 3);
  del(2, 4);
  put(3, 5);
  assert.deepEqual(seqs(log.after(1, 100)), [3, 4, 5]);
  assert.equal(log.after(1, 100).changes[1]!.event, null, 'a deletion is a tombstone');
  assert.deepEqual(seqs(log.after(3, 100)), [4, 5]);
  assert.deepEqual(log.after(5, 100), { changes: [], more: false, through: 5 });
  assert.equal(log.lastSeq, 5);
});

test('ChangeLog.after(0) is a full copy: the live events, no deletions', () => {
  const { log, put, del } = fixture();
  put(1, 1);
  put(2, 2);
  del(1, 3);
  assert.deepEqual(seqs(log.after(0, 100)), [2]);
});

test('ChangeLog.after() pages with more, and the pages together are the whole', () => {
  const { log, put } = fixture();
  for (let n = 1; n <= 10; n++) put(n, n);
  const first = log.after(0, 4);
  assert.deepEqual(seqs(first), [1, 2, 3, 4]);
  assert.equal(first.more, true);
  assert.deepEqual(seqs(log.after(8, 2)), [9, 10]);
  assert.equal(log.after(8, 2).more, false, 'exactly the last entries: no more');
});

test('ChangeLog stays right across its rebuilds (many updates of few events)', () => {
  const { log, put } = fixture();
  let seq = 0;
  for (let round = 0; round < 1500; round++) put(round % 3, ++seq);
  assert.deepEqual(seqs(log.after(0, 100)), [seq - 2, seq - 1, seq]);
  assert.deepEqual(seqs(log.after(seq - 2, 100)), [seq - 1, seq]);
});

test('ChangeLog.dropDeletionsThrough() forgets tombstones up to a seq and raises the horizon to the newest', () => {
  const { log, put, del } = fixture();
  put(1, 1);
  put(2, 2);
  del(1, 3);
  del(2, 4);
  assert.equal(log.dropDeletionsThrough(3), 3);
  assert.equal(log.horizon, 3);
  assert.deepEqual(seqs(log.after(1, 100)), [4], 'the tombstone at 4 is kept');
  assert.equal(log.dropDeletionsThrough(2), 3, 'the horizon never goes back');
});

test('ChangeLog.markDropped() (a compacted log read by another instance) takes the mark as the horizon, held tombstones or not', () => {
  const { log, put, del } = fixture();
  put(1, 1);
  put(2, 2);
  del(1, 3);
  del(2, 9);
  // The mark says deletions through 5 are gone: the tombstone at 3 goes, the one at 9 stays, the horizon is 5, not 3.
  log.markDropped(5);
  assert.equal(log.horizon, 5);
  assert.deepEqual([...log.tombstones.values()], [9], 'the tombstone at 3 is forgotten');
  assert.deepEqual(seqs(log.after(5, 100)), [9]);
  log.markDropped(4);
  assert.equal(log.horizon, 5, 'an older mark never lowers it');
  const empty = fixture().log;
  empty.markDropped(7);
  assert.equal(empty.horizon, 7, 'no tombstone held: the mark alone sets it');
});

test('ChangeLog.subscribe() hears each batch until unsubscribed', () => {
  const { log, put } = fixture();
  let heard = 0;
  const stop = log.subscribe(() => heard++);
  put(1, 1);
  stop();
  put(2, 2);
  assert.equal(heard, 1);
});

test('ChangeLog rebuilds merge live events and tombstones in seq order (many creates and deletes)', () => {
  const { log, put, del } = fixture();
  let seq = 0;
  const deletedAt = new Map<number, number>();
  for (let n = 0; n < 3000; n++) {
    put(n, ++seq);
    if (n % 3 === 0) {
      del(n, ++seq);
      deletedAt.set(n, seq);
    }
    if (n % 3 === 1) put(n, ++seq);
  }
  const page = log.after(1, 100_000);
  const pageSeqs = seqs(page);
  assert.deepEqual(pageSeqs, [...pageSeqs].sort((a, b) => a - b), 'in seq order');
  assert.equal(page.changes.length, 3000, 'one entry per event ever created after since');
  assert.equal(page.changes.filter((change) => change.event === null).length, 1000);
});

test('ChangeLog.after() leaves out deletions at or before liveThrough (what a copy that began there never held), and only those', () => {
  const { log, put, del } = fixture();
  for (let n = 1; n <= 6; n++) put(n, n);
  del(1, 7);
  del(2, 8);
  put(3, 9);
  del(4, 10);
  assert.deepEqual(seqs(log.after(2, 100)), [5, 6, 7, 8, 9, 10], 'by default, every deletion after since');
  assert.deepEqual(seqs(log.after(2, 100, 8)), [5, 6, 9, 10], 'deletions at 7 and 8 are before the copy began; 10 after');
  assert.deepEqual(seqs(log.after(2, 100, 7)), [5, 6, 8, 9, 10]);
  assert.deepEqual(seqs(log.after(0, 100)), [5, 6, 9], 'since=0: live events only');
  assert.deepEqual(seqs(log.after(0, 100, 8)), [5, 6, 9, 10], 'since=0 in a copy that began at 8');
  // Read through 8: the two changes sent (5, 6), then the deletions at 7 and 8 it leaves out; it stops before 9.
  assert.deepEqual(log.after(2, 2, 8), { changes: log.after(2, 100, 8).changes.slice(0, 2), more: true, through: 8 });
});

test('ChangeLog signs copy tokens with its key: another key reads them as forged', () => {
  const mine = new ChangeLog(() => undefined, { copyKey: 'one' });
  const theirs = new ChangeLog(() => undefined, { copyKey: 'two' });
  const token = mine.copyToken({ began: 42, startedMs: 1_764_000_000_000 });
  assert.deepEqual(mine.readCopyToken(token), { began: 42, startedMs: 1_764_000_000_000 });
  assert.equal(theirs.readCopyToken(token), undefined);
  assert.deepEqual(new ChangeLog(() => undefined).readCopyToken(new ChangeLog(() => undefined).copyToken({ began: 1, startedMs: 0 })), { began: 1, startedMs: 0 }, 'the default key is the same everywhere');
});
