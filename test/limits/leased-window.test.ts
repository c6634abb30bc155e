// LeasedWindowLimiter over a real PostgreSQL: three instances' limiters never admit one more than the limit in any window.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LeasedWindowLimiter } from '../../src/limits/leased-window.js';
import { connect } from '../../src/store/postgres/client.js';
import { RateLeaseTable } from '../../src/store/postgres/rate-leases.js';
import { migrateSchema } from '../../src/store/postgres/schema.js';
import { skip, usePostgres } from '../helpers/postgres-fixture.js';
import { mulberry32 } from '../helpers/random.js';

const pg = usePostgres();

describe('LeasedWindowLimiter on one database', { skip, timeout: 60_000 }, () => {
  it('take() on three instances, at random times over three windows, never admits more than the limit in any window, and admits the limit when asked enough', async () => {
    const db = await connect(await pg.database('rate'));
    try {
      await migrateSchema(db);
      const seed = Date.now() % 100_000;
      const random = mulberry32(seed);
      const limit = 50;
      const windowMs = 60_000;
      const limiters = [0, 1, 2].map(() => new LeasedWindowLimiter({ limit, windowMs, source: new RateLeaseTable(db) }));
      const admitted: number[] = [];
      let clock = 1_000_000_000;
      // Bursts of concurrent requests on all three, the clock moving on between them by up to a tenth of a window.
      for (let burst = 0; burst < 40; burst++) {
        clock += Math.floor(random() * windowMs / 10);
        const at = clock;
        const decisions = await Promise.all(Array.from({ length: 12 }, (_, n) => limiters[n % 3]!.take('key_a', at)));
        for (const decision of decisions) if (decision.allowed) admitted.push(at);
        // A sub-window passed: what an instance leased and did not use is given back.
        await Promise.all(limiters.map((limiter) => limiter.sweep(at)));
      }
      for (const start of admitted) {
        const inWindow = admitted.filter((time) => time >= start && time < start + windowMs).length;
        assert.ok(inWindow <= limit, `seed ${seed}: ${inWindow} admitted in the window from ${start}`);
      }
      // A fresh key asked 3 × limit times at once over three instances: exactly the limit.
      const all = await Promise.all(Array.from({ length: 3 * limit }, (_, n) => limiters[n % 3]!.take('key_b', clock)));
      assert.equal(all.filter((decision) => decision.allowed).length, limit, `seed ${seed}`);
      const refused = all.find((decision) => !decision.allowed)!;
      assert.equal(refused.remaining, 0);
      assert.ok(refused.resetSeconds >= 1 && refused.resetSeconds <= windowMs / 1000 + windowMs / 60_000);
    } finally {
      await db.end();
    }
  });


  it('RateLeaseTable.lease() grants up to the limit over every lease of a key, for a key with quotes and backslashes too (sent as escaped literals)', async () => {
    const db = await connect(await pg.database('rate_literal'));
    try {
      await migrateSchema(db);
      const table = new RateLeaseTable(db);
      const key = "203.0.113.7'; DROP TABLE campus_rate; --\\'";
      assert.deepEqual(await table.lease(key, 1000, 5, 7), { granted: 5, total: 5, oldest: 1000 });
      assert.deepEqual(await table.lease(key, 1001, 5, 7), { granted: 2, total: 7, oldest: 1000 });
      assert.deepEqual(await table.lease(key, 1001, 5, 7), { granted: 0, total: 7, oldest: 1000 });
      // Another key is counted apart; a whole window later the first key's slots are free again.
      assert.deepEqual(await table.lease('key_other', 1001, 3, 7), { granted: 3, total: 3, oldest: 1001 });
      assert.deepEqual(await table.lease(key, 1061, 5, 7), { granted: 5, total: 7, oldest: 1001 });
    } finally {
      await db.end();
    }
  });
});

describe('LeasedWindowLimiter', () => {
  /** A source granting what is asked, counting the asks; `total` as a database would: every grant so far. */
  function countingSource(): { asked: number[]; source: ConstructorParameters<typeof LeasedWindowLimiter>[0]['source'] } {
    const asked: number[] = [];
    let total = 0;
    return {
      asked,
      source: {
        lease: (_key, _bucket, want, limit) => {
          const granted = Math.min(want, limit - total);
          total += granted;
          asked.push(want);
          return Promise.resolve({ granted, total, oldest: 0 });
        },
        giveBack: () => Promise.resolve(),
      },
    };
  }
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('take() answers from a lease held without asking the database, and asks for the next batch when half is used, before it runs out', async () => {
    const { asked, source } = countingSource();
    const limiter = new LeasedWindowLimiter({ limit: 100_000, windowMs: 3_600_000, maxBatch: 32, source });
    const first = await limiter.take('key_a', 0);
    assert.equal(first.allowed, true);
    assert.deepEqual(asked, [32]);
    // Slots 2..32 of the first batch: the 16th used (16 left) asks for the next in the background.
    for (let n = 1; n < 32; n++) {
      const decision = limiter.take('key_a', 0);
      assert.ok(!(decision instanceof Promise), `request ${n} was answered from the lease`);
      assert.equal(decision.allowed, true);
      assert.equal(asked.length, n < 15 ? 1 : 2, `request ${n}`);
    }
    await settle();
    // The second batch arrived before the first ran out: 32 more requests, none waiting; one more ask ahead.
    for (let n = 0; n < 32; n++) assert.ok(!(limiter.take('key_a', 0) instanceof Promise), `request ${32 + n} was answered from the lease`);
    assert.equal(asked.length, 3);
  });

  it('take() near the limit asks one slot at a time and never ahead, so no slot sits unused on one instance', async () => {
    const { asked, source } = countingSource();
    const limiter = new LeasedWindowLimiter({ limit: 10, windowMs: 3_600_000, source });
    const decisions = [];
    for (let n = 0; n < 12; n++) decisions.push(await limiter.take('key_a', 0));
    await settle();
    assert.deepEqual(asked, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    assert.deepEqual(decisions.map((decision) => decision.allowed), [...Array(10).fill(true), false, false]);
  });
});
