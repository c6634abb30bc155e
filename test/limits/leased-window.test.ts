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

});

describe('LeasedWindowLimiter', () => {
  it('take() answers from a lease held without asking the database: one round trip per batch', async () => {
    let asked = 0;
    const limiter = new LeasedWindowLimiter({
      limit: 1000,
      windowMs: 3_600_000,
      maxBatch: 32,
      source: {
        lease: (_key, _bucket, want) => {
          asked++;
          return Promise.resolve({ granted: want, total: want, oldest: 0 });
        },
        giveBack: () => Promise.resolve(),
      },
    });
    const first = await limiter.take('key_a', 0);
    assert.equal(first.allowed, true);
    for (let n = 1; n < 32; n++) {
      const decision = limiter.take('key_a', 0);
      assert.ok(!(decision instanceof Promise), `request ${n} was answered from the lease`);
      assert.equal(decision.allowed, true);
    }
    assert.equal(asked, 1);
    await limiter.take('key_a', 0);
    assert.equal(asked, 2);
  });
});
