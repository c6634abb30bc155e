// PostgresStore: the shared EventStore contract on a real PostgreSQL, and what only several instances on one database show.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openPostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { storeContract } from '../store-contract.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { eventId, sampleRecord } from '../helpers.js';

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
      for (const store of stores) assert.deepEqual(store.changes.after(0, 1000), follower.changes.after(0, 1000));
    } finally {
      await Promise.all([...stores, follower].map((store) => store.close()));
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
