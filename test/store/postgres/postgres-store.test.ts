// PostgresStore: the shared EventStore contract on a real PostgreSQL, and what only several instances on one database show.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.js';
import { storeContract } from '../store-contract.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { eventId, sampleRecord } from '../helpers.js';
import { connect } from '../../../src/store/postgres/client.js';
import { LOG_LOCK } from '../../../src/store/postgres/log-table.js';
import { encodeStored } from '../../../src/store/records/encode-record.js';
import { toStored } from '../../../src/store/views/served-event.js';
import { viewJson } from '../../../src/events/event.js';
import { AlreadyAnswered } from '../../../src/store/store-errors.js';

const pg = usePostgres();
let databases = 0;

if (skip === false) {
  storeContract('PostgresStore', async () => openPostgresStore({ url: await pg.database(`contract${++databases}`) }));
}

describe('PostgresStore on one database shared by instances', { skip }, () => {
  it('a write on one instance reaches another instance, and its stream listeners, in seq order', async () => {
    const url = await pg.database('follow');
    const [a, b] = await Promise.all([openPostgresStore({ url }), openPostgresStore({ url })]);
    try {
      let woken = 0;
      const unsubscribe = b.changes.subscribe(() => woken++);
      const created = (await a.write(eventId(1), () => sampleRecord(1)))!;
      await waitFor(() => b.get(eventId(1)) !== undefined);
      assert.equal(b.get(eventId(1))!.json, created.json);
      assert.equal(b.get(eventId(1))!.seq, created.seq);
      assert.ok(woken > 0);
      unsubscribe();
      assert.deepEqual(b.changes.after(0, 10), a.changes.after(0, 10));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('two instances racing with the same expected seq: exactly one write passes', async () => {
    const url = await pg.database('race');
    const [a, b] = await Promise.all([openPostgresStore({ url }), openPostgresStore({ url })]);
    try {
      const original = (await a.write(eventId(1), () => sampleRecord(1)))!;
      await waitFor(() => b.get(eventId(1)) !== undefined);
      const ifMatch = (title: string) => (current: { seq: number } | undefined) => {
        if (current?.seq !== original.seq) throw new Error('changed meanwhile');
        return sampleRecord(1, { title });
      };
      const results = await Promise.allSettled([a.write(eventId(1), ifMatch('A')), b.write(eventId(1), ifMatch('B'))]);
      assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('seqs are never skipped by a follower while three writers commit concurrently', async () => {
    const url = await pg.database('noskip');
    const stores = await Promise.all([0, 1, 2].map(() => openPostgresStore({ url, pollMs: 50 })));
    const follower = await openPostgresStore({ url, pollMs: 20 });
    try {
      // The follower's change log must grow by whole prefixes: record every seq it sees, in the order it applies them.
      const seen: number[] = [];
      follower.changes.subscribe(() => seen.push(follower.changes.lastSeq));
      await Promise.all(stores.flatMap((store, s) => Array.from({ length: 40 }, (_, n) => store.write(eventId(1000 + s * 100 + n), () => sampleRecord(1000 + s * 100 + n)))));
      const last = Math.max(...stores.map((store) => store.lastSeq));
      await waitFor(() => follower.lastSeq === last);
      const page = follower.changes.after(0, 1000);
      assert.equal(page.changes.length, 120);
      assert.deepEqual(page.changes.map((change) => change.seq), Array.from({ length: 120 }, (_, i) => i + 1));
      for (const store of stores) {
        // A writer learns of the others' last batches as a follower does: wait for it, then compare.
        await waitFor(() => store.lastSeq === last);
        assert.deepEqual(store.changes.after(0, 1000), follower.changes.after(0, 1000));
      }
    } finally {
      await Promise.all([...stores, follower].map((store) => store.close()));
    }
  });
});

describe('PostgresStore: what serialised sequence numbers and the write-time catch-up guarantee', { skip }, () => {
  it('a follower never skips a record that commits late: a writer holding the log lock holds back every later seq', async () => {
    const url = await pg.database('late');
    const [writer, follower] = await Promise.all([openPostgresStore({ url }), openPostgresStore({ url, pollMs: 10 })]);
    const raw = await connect(url);
    try {
      await writer.write(eventId(1), () => sampleRecord(1));
      await waitFor(() => follower.lastSeq === 1);
      // A slow transaction: it took the lock and seq 2, and has not committed yet.
      let commit!: () => void;
      const held = new Promise<void>((resolve) => (commit = resolve));
      let inserted!: () => void;
      const hasInserted = new Promise<void>((resolve) => (inserted = resolve));
      const slow = raw.transaction(async (tx) => {
        await tx.query(`INSERT INTO campus_log (seq, line) VALUES (2, $1)`, [encodeStored(toStored(sampleRecord(2), 2, viewJson(sampleRecord(2)), Date.parse('2026-01-01T00:00:00Z')))]);
        inserted();
        await held;
      }, `SELECT pg_advisory_xact_lock(${LOG_LOCK})`);
      await hasInserted;
      // Meanwhile another write: it must wait for the lock, so it can never commit seq 3 before 2 is visible.
      const later = writer.write(eventId(3), () => sampleRecord(3));
      // A catch-up now (as a notification or the poll would run one) finds nothing: seq 2 is not committed.
      assert.equal(await follower.catchUp(), false);
      assert.equal(follower.lastSeq, 1, 'nothing after seq 1 is visible while seq 2 is uncommitted');
      assert.equal(writer.get(eventId(3)), undefined, 'the later write is still waiting for the lock');
      commit();
      await slow;
      const third = (await later)!;
      assert.equal(third.seq, 3, 'the later write caught up with seq 2 first and took the next seq');
      await waitFor(() => follower.lastSeq === 3);
      assert.deepEqual(follower.changes.after(0, 10).changes.map((change) => change.seq), [1, 2, 3]);
      assert.ok(follower.get(eventId(2)) !== undefined && writer.get(eventId(2)) !== undefined);
    } finally {
      await raw.end();
      await Promise.all([writer.close(), follower.close()]);
    }
  });

  it('the same Idempotency-Key written on two instances at once: one writes, the other is told the first answer (it writes nothing)', async () => {
    const url = await pg.database('idem');
    const [a, b] = await Promise.all([openPostgresStore({ url }), openPostgresStore({ url })]);
    try {
      const idem = { key: 'same-key', keyId: 'key_a', requestHash: 'hash1' };
      const results = await Promise.allSettled([a.write(eventId(1), () => sampleRecord(1), { idem }), b.write(eventId(2), () => sampleRecord(2), { idem })]);
      const written = results.filter((result) => result.status === 'fulfilled');
      const told = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
      assert.equal(written.length, 1);
      assert.equal(told.length, 1);
      assert.ok(told[0]!.reason instanceof AlreadyAnswered);
      assert.equal((told[0]!.reason as AlreadyAnswered).entry.requestHash, 'hash1');
      await waitFor(() => a.lastSeq === b.lastSeq);
      assert.equal(a.size + b.size, 2, 'one event, seen by both');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
