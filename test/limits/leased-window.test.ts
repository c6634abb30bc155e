// LeasedWindowLimiter over a real PostgreSQL: three instances' limiters never admit one more than the limit in any window.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LeasedWindowLimiter } from '../../src/limits/leased-window.js';
import type { LeaseSource } from '../../src/limits/lease-source.js';
import type { Want } from '../../src/limits/lease-ahead.js';
import type { LimitDecision } from '../../src/limits/sliding-window.js';
import { connect } from '../../src/store/postgres/client.js';
import { grantsWithin, RateLeaseTable, type Held } from '../../src/store/postgres/rate-leases.js';
import { migrateSchema } from '../../src/store/postgres/schema.js';
import { skip, usePostgres } from '../helpers/postgres-fixture.js';
import { mulberry32 } from '../helpers/random.js';

const pg = usePostgres();

describe('LeasedWindowLimiter on one database', { skip, timeout: 60_000 }, () => {
  // A window of 6 s has sub-windows of 100 ms, so slots are leased ahead in ranges of ten (about a second).
  for (const windowMs of [60_000, 6_000]) it(`take() on three instances, at random times over three windows of ${windowMs / 1000} s, never admits more than the limit in any window, and admits the limit when asked enough`, async () => {
    const db = await connect(await pg.database(`rate_${windowMs}`));
    try {
      await migrateSchema(db);
      const seed = Date.now() % 100_000;
      const random = mulberry32(seed);
      const limit = 50;
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
      // At most a window and a sixtieth, in whole seconds.
      assert.ok(refused.resetSeconds >= 1 && refused.resetSeconds <= Math.ceil(windowMs / 1000 + windowMs / 60_000), `Retry-After ${refused.resetSeconds}`);
    } finally {
      await db.end();
    }
  });


  it('RateLeaseTable.lease() grants up to the limit over every lease of a key, for a key with quotes and backslashes too (sent as escaped literals)', async () => {
    const db = await connect(await pg.database('rate_literal'));
    try {
      await migrateSchema(db);
      const leases = new RateLeaseTable(db);
      // The limiter names the range lengths it leases in (one per window length), so a lease reads the key's rows alone.
      const table = { lease: (key: string, now: number, wants: readonly Want[], limit: number) => leases.lease(key, now, wants, limit, [1, 6]) };
      const key = "203.0.113.7'; DROP TABLE campus_rate; --\\'";
      const one = (bucket: number, want: number): { bucket: number; want: number }[] => [{ bucket, want }];
      assert.deepEqual(await table.lease(key, 1000, one(1000, 5), 28), { granted: [5], total: 5, oldest: 1000, used: 0, usedOver: 0 });
      // A batch of the sub-window under way: a quarter of what is left at most (23, then 18); ahead, what fits.
      assert.deepEqual(await table.lease(key, 1001, one(1001, 20), 28), { granted: [5], total: 10, oldest: 1000, used: 0, usedOver: 0 });
      assert.deepEqual(await table.lease(key, 1001, one(1001, 20), 28), { granted: [4], total: 14, oldest: 1000, used: 0, usedOver: 0 });
      assert.deepEqual(await table.lease(key, 1001, one(1002, 20), 28), { granted: [14], total: 28, oldest: 1000, used: 0, usedOver: 0 });
      assert.deepEqual(await table.lease(key, 1001, one(1001, 5), 28), { granted: [0], total: 28, oldest: 1000, used: 0, usedOver: 0 });
      // Another key is counted apart; a whole window after the last sub-window holding slots, they are free again.
      assert.deepEqual(await table.lease('key_other', 1001, one(1001, 3), 7), { granted: [1], total: 1, oldest: 1001, used: 0, usedOver: 0 });
      assert.deepEqual(await table.lease(key, 1063, one(1063, 5), 28), { granted: [5], total: 5, oldest: 1063, used: 0, usedOver: 0 });
      // Several sub-windows at once, in order: the current one first (a quarter of the 7 left), then ahead, each counted from now on.
      assert.deepEqual(await table.lease('key_ahead', 2000, [{ bucket: 2000, want: 3 }, { bucket: 2001, want: 3 }, { bucket: 2002, want: 3 }], 7), { granted: [1, 3, 3], total: 7, oldest: 2000, used: 0, usedOver: 0 });
      // Slots leased ahead count until a window after their own sub-window: at 2061 only sub-window 2000's is free.
      assert.deepEqual(await table.lease('key_ahead', 2061, one(2061, 7), 7), { granted: [1], total: 7, oldest: 2001, used: 6, usedOver: 59 });
      // A range's slots free when its last sub-window leaves the window: `oldest` (from which Retry-After is told) is
      // that one, 3005 for the range 3000..3005, not its first; a slot of sub-window 3001 frees before it.
      assert.deepEqual(await table.lease('key_range', 3000, [{ bucket: 3000, want: 2, span: 6 }], 10), { granted: [2], total: 2, oldest: 3005, used: 0, usedOver: 0 });
      assert.deepEqual(await table.lease('key_range', 3001, one(3001, 1), 10), { granted: [1], total: 3, oldest: 3001, used: 0, usedOver: 0 });
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
        lease: (_key, _now, wants, limit) => {
          const granted = wants.map(({ want }) => {
            const given = Math.max(0, Math.min(want, limit - total));
            total += given;
            return given;
          });
          asked.push(...wants.map(({ want }) => want));
          return Promise.resolve({ granted, total, oldest: 0 });
        },
        giveBack: () => Promise.resolve(),
      },
    };
  }
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('sweep() forgets the slots of every key of its prefix two windows back and older, about once a window, and a failure waits for the next window', async () => {
    const forgotten: [string, number][] = [];
    let failing = false;
    const source = {
      ...countingSource().source,
      forget: (prefix: string, before: number) => {
        forgotten.push([prefix, before]);
        return failing ? Promise.reject(new Error('the database is away')) : Promise.resolve();
      },
    };
    const windowMs = 60_000; // sub-windows of 1 s
    const limiter = new LeasedWindowLimiter({ limit: 10, windowMs, source, keyPrefix: 'auth ' });
    for (const at of [1_000_000, 1_000_500, 1_030_000, 1_059_999]) await limiter.sweep(at);
    assert.deepEqual(forgotten, [['auth ', 1000 - 120]]);
    failing = true;
    await limiter.sweep(1_060_000);
    await limiter.sweep(1_061_000);
    assert.deepEqual(forgotten, [['auth ', 880], ['auth ', 940]], 'once a window, failed or not');
    failing = false;
    await limiter.sweep(1_120_000);
    assert.deepEqual(forgotten.at(-1), ['auth ', 1000]);
    const without = new LeasedWindowLimiter({ limit: 10, windowMs, source });
    await without.sweep(2_000_000);
    assert.equal(forgotten.length, 3, 'no prefix, nothing forgotten');
  });

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
    // The second batch arrived before the first ran out, and each next one before the one before runs out: none waits.
    for (let n = 0; n < 500; n++) {
      assert.ok(!(limiter.take('key_a', 0) instanceof Promise), `request ${32 + n} was answered from the lease`);
      await settle();
    }
    assert.ok(asked.length > 3, `${asked.length} asks`);
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

describe('grantsWithin', () => {
  it('grants a sub-window what fits in every span of 61 sub-windows holding it, so a slot leased ahead holds back only the spans it is in', () => {
    const held: Held[] = [{ bucket: 100, span: 1, count: 5 }];
    // 100..160 holds 5: sub-window 160 gets 2 of 3 under a limit of 7; 161 shares 101..161 with 160 only: 5.
    assert.deepEqual(grantsWithin(held, 120, [{ bucket: 160, want: 3 }, { bucket: 161, want: 7 }], 7), { granted: [2, 5], total: 7, used: 5, usedOver: 19 });
    assert.deepEqual(grantsWithin(held, 120, [{ bucket: 162, want: 1 }], 7).granted, [0]);
    // A sub-window 61 after the last full one is free again.
    assert.deepEqual(grantsWithin(held, 221, [{ bucket: 222, want: 9 }], 7).granted, [7]);
  });

  it('grants a batch of the sub-window under way a quarter of what is left at most, one at least, so that others get theirs', () => {
    assert.deepEqual(grantsWithin([{ bucket: 100, span: 1, count: 10 }], 120, [{ bucket: 120, want: 30 }], 50).granted, [10]);
    assert.deepEqual(grantsWithin([{ bucket: 100, span: 1, count: 47 }], 120, [{ bucket: 120, want: 30 }], 50).granted, [1]);
    assert.deepEqual(grantsWithin([{ bucket: 100, span: 1, count: 50 }], 120, [{ bucket: 120, want: 30 }], 50).granted, [0]);
  });

  it('grants slots of later sub-windows (held ahead, by any instance) only while they leave `reserve` free in every span they meet; the sub-window under way may use the reserve', () => {
    // 22 in the spans around 150..155 (used in 90, ranges 130.. and 140..): a limit of 40 and a reserve of 8 leave 10 ahead.
    const held = (): Held[] => [{ bucket: 90, span: 1, count: 10 }, { bucket: 130, span: 6, count: 6 }, { bucket: 140, span: 6, count: 6 }];
    assert.deepEqual(grantsWithin(held(), 120, [{ bucket: 150, want: 15, span: 6 }], 40, 60, 8).granted, [10]);
    assert.deepEqual(grantsWithin(held(), 120, [{ bucket: 150, want: 15, span: 6 }], 40, 60, 0).granted, [15]);
    assert.deepEqual(grantsWithin(held(), 120, [{ bucket: 220, want: 15, span: 6 }], 40, 60, 8).granted, [15], '220..225 shares no span with 130 or 140');
    assert.deepEqual(grantsWithin(held(), 120, [{ bucket: 120, want: 8 }], 40, 60, 8).granted, [4], 'a batch of now: a quarter of the 18 left, reserve and all');
    // Ahead and now in one lease: the reserve stays for now.
    assert.deepEqual(grantsWithin(held(), 120, [{ bucket: 150, want: 30, span: 6 }, { bucket: 120, want: 2 }], 40, 60, 8).granted, [10, 2]);
  });

  it('tells what the key used in the sub-windows that ended in the last window but the last, and how many they cover', () => {
    const held: Held[] = [{ bucket: 50, span: 1, count: 9 }, { bucket: 70, span: 1, count: 3 }, { bucket: 100, span: 6, count: 4 }, { bucket: 119, span: 1, count: 8 }, { bucket: 118, span: 6, count: 5 }, { bucket: 121, span: 1, count: 2 }];
    // 50 ended more than a window ago; 119 last (its unused slots may not be back yet); 118..123 and 121 have not ended.
    const { used, usedOver } = grantsWithin(held, 120, [], 40);
    assert.deepEqual({ used, usedOver }, { used: 7, usedOver: 49 });
    assert.equal(grantsWithin([{ bucket: 119, span: 1, count: 8 }], 120, [], 40).usedOver, 0, 'none counted: no pace told');
  });

  it('counts a range of sub-windows in every span it meets', () => {
    const held: Held[] = [{ bucket: 100, span: 6, count: 4 }];
    // Spans meeting 100..105 hold 4: 165 is in 105..165, so it gets 3 of a limit of 7; 166 is in no span with the range.
    assert.deepEqual(grantsWithin(held, 100, [{ bucket: 165, want: 7 }, { bucket: 166, want: 7 }], 7).granted, [3, 4]);
    // A range asked for meets the spans of both ends.
    assert.deepEqual(grantsWithin([{ bucket: 40, span: 1, count: 6 }, { bucket: 170, span: 1, count: 6 }], 100, [{ bucket: 100, want: 5, span: 10 }], 7).granted, [1]);
  });
});

describe('LeasedWindowLimiter with the database away', () => {
  /**
   * A source that counts as campus_rate does (grantsWithin, in memory) and can be switched off, as a database gone
   * away: then every lease and give-back fails.
   */
  function memorySource(): { down: boolean; granted: number; source: ConstructorParameters<typeof LeasedWindowLimiter>[0]['source'] } {
    const rows = new Map<string, Held[]>();
    const state = {
      down: false,
      granted: 0,
      source: {
        lease: (key: string, now: number, wants: readonly { bucket: number; want: number; span?: number | undefined }[], limit: number, _spans: readonly number[], aheadMost?: number) => {
          if (state.down) return Promise.reject(new Error('ECONNREFUSED'));
          const held = (rows.get(key) ?? []).filter((slot) => slot.bucket + slot.span > now - 60 && slot.count > 0);
          rows.set(key, held);
          const { granted, total, used, usedOver } = grantsWithin(held, now, wants, limit, 60, aheadMost);
          state.granted += granted.reduce((sum, n) => sum + n, 0);
          const oldest = held.length === 0 ? undefined : Math.min(...held.map((slot) => slot.bucket));
          return Promise.resolve({ granted, total, oldest, used, usedOver });
        },
        giveBack: (key: string, bucket: number, count: number, span = 1) => {
          if (state.down) return Promise.reject(new Error('ECONNREFUSED'));
          let left = count;
          for (const slot of rows.get(key) ?? []) {
            if (slot.bucket !== bucket || slot.span !== span || left === 0) continue;
            const back = Math.min(left, slot.count);
            slot.count -= back;
            left -= back;
          }
          state.granted -= count - left;
          return Promise.resolve();
        },
      },
    };
    return state;
  }
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('take() of a key polling twice a second goes on through a 10 s outage across a sub-window boundary, from slots held and leased ahead', async () => {
    const db = memorySource();
    const limiter = new LeasedWindowLimiter({ limit: 1000, windowMs: 3_600_000, source: db.source });
    // A minute of steady use, up to 5 s before a sub-window boundary (sub-windows of 60 s).
    let clock = 60_000 * 1000;
    const outageAt = clock + 115_000;
    for (; clock < outageAt; clock += 500) {
      assert.equal((await limiter.take('key_follower', clock)).allowed, true);
      await settle();
    }
    db.down = true;
    const refused: number[] = [];
    for (; clock < outageAt + 10_000; clock += 500) {
      const decision = limiter.take('key_follower', clock);
      // Answered from memory: no wait for the database.
      assert.ok(!(decision instanceof Promise), `at ${clock - outageAt} ms into the outage the request waited for the database`);
      if (!decision.allowed) refused.push(clock);
    }
    assert.deepEqual(refused, [], 'no request of the key was refused during the outage');
    // A key the instance never saw gets 503 with a Retry-After, never a slot nobody granted.
    await assert.rejects(async () => limiter.take('key_new', clock), (error: Error & { retryAfterSeconds?: number }) => error.name === 'StoreUnavailable' && (error.retryAfterSeconds ?? 0) >= 1);
  });

  it('take() with a window of 10 s (sub-windows of 166 ms): a key reading 5 times a second goes on through a 10 s outage, never over the limit in any window', async () => {
    const db = memorySource();
    const limit = 150;
    const windowMs = 10_000;
    const limiters = [0, 1, 2].map(() => new LeasedWindowLimiter({ limit, windowMs, source: db.source }));
    const admitted: number[] = [];
    const refused: number[] = [];
    let clock = 7_000_000;
    const outage = { from: clock + 30_000, to: clock + 40_000 };
    for (let n = 0; clock < outage.to + 5_000; n++, clock += 200) {
      db.down = clock >= outage.from && clock < outage.to;
      try {
        const decision = await limiters[n % 3]!.take('key_follower', clock);
        (decision.allowed ? admitted : refused).push(clock);
      } catch {
        refused.push(clock);
      }
      await settle();
    }
    assert.deepEqual(refused, [], 'no request of the key was refused');
    for (const start of admitted) assert.ok(admitted.filter((at) => at >= start && at < start + windowMs).length <= limit);
  });

  it('take() admits no more during an outage than the slots granted before it', async () => {
    const db = memorySource();
    const limiter = new LeasedWindowLimiter({ limit: 40, windowMs: 60_000, source: db.source });
    let clock = 1_000_000;
    for (let n = 0; n < 10; n++, clock += 100) await limiter.take('key_a', clock);
    await settle();
    const grantedBefore = db.granted;
    db.down = true;
    let admitted = 10;
    for (let n = 0; n < 200; n++, clock += 50) {
      try {
        if ((await limiter.take('key_a', clock)).allowed) admitted++;
      } catch (error) {
        assert.equal((error as Error).name, 'StoreUnavailable');
      }
    }
    assert.ok(admitted <= grantedBefore, `${admitted} admitted, ${grantedBefore} granted`);
  });

  it('RateLimit-Remaining over three instances never says more is left than the limit less every request admitted on any of them', async () => {
    const db = memorySource();
    const limit = 30;
    const limiters = [0, 1, 2].map(() => new LeasedWindowLimiter({ limit, windowMs: 3_600_000, source: db.source }));
    const remaining: number[] = [];
    let admitted = 0;
    for (let n = 0; n < 40; n++) {
      const decision = await limiters[n % 3]!.take('key_a', 5_000_000 + n * 10);
      await settle();
      if (decision.allowed) admitted++;
      remaining.push(decision.remaining);
      assert.ok(decision.remaining <= limit - admitted, `request ${n + 1}: RateLimit-Remaining ${decision.remaining} with ${admitted} of ${limit} admitted (${remaining.join(', ')})`);
    }
    assert.equal(admitted, limit);
  });
});

describe('LeasedWindowLimiter leasing ahead (issue 34: reads through an outage, no 429 short of the limit)', () => {
  /** campus_rate in memory (grantsWithin), one source per instance, each of which can be cut off; leases answer after `delay`. */
  function sharedRows(): { down: boolean[]; source(instance: number): LeaseSource; total(key: string, now: number): number; limiters: LeasedWindowLimiter[]; now: number } {
    const rows = new Map<string, Held[]>();
    const down = [false, false, false];
    /** The instances asked back (as a NOTIFY reaches every listener): those the test puts here. */
    const limiters: LeasedWindowLimiter[] = [];
    const shared = {
      down,
      limiters,
      /** The time the instances asked back read (the test's clock). */
      now: -Infinity,
      source: (instance: number): LeaseSource => ({
        askBack: (key) => {
          if (down[instance]) return Promise.reject(new Error('ECONNREFUSED'));
          setImmediate(() => limiters.forEach((limiter) => limiter.yieldKey(key, shared.now)));
          return Promise.resolve();
        },
        lease: (key, now, wants, limit, _spans, reserve) => {
          if (down[instance]) return Promise.reject(new Error('ECONNREFUSED'));
          const held = (rows.get(key) ?? []).filter((slot) => slot.bucket + slot.span > now - 60 && slot.count > 0);
          rows.set(key, held);
          return Promise.resolve({ ...grantsWithin(held, now, wants, limit, 60, reserve), oldest: undefined });
        },
        giveBack: (key, bucket, count, span = 1) => {
          if (down[instance]) return Promise.reject(new Error('ECONNREFUSED'));
          // As campus_rate's one row per key and sub-window: what is given back comes off every grant there.
          let left = count;
          for (const slot of rows.get(key) ?? []) {
            if (slot.bucket !== bucket || slot.span !== span) continue;
            const back = Math.min(left, slot.count);
            slot.count -= back;
            left -= back;
          }
          return Promise.resolve();
        },
      }),
      total: (key: string, now: number) => grantsWithin(rows.get(key) ?? [], now, [], Infinity).total,
    };
    return shared;
  }
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  const BUCKET_MS = 10_000 / 60;

  it('take() of a busy key (40 a second, a 60 s window) leases about once a second, not after nearly every request', async () => {
    const rows = sharedRows();
    let leases = 0;
    const counting: LeaseSource = { ...rows.source(0), lease: (...args) => {
      leases++;
      return rows.source(0).lease(...args);
    } };
    const limiter = new LeasedWindowLimiter({ limit: 3600, windowMs: 60_000, source: counting });
    let clock = 12_000_000;
    for (let n = 0; n < 40 * 20; n++, clock += 25) {
      assert.equal((await limiter.take('key_busy', clock)).allowed, true);
      await settle();
    }
    // Each 1 s sub-window's own batch is asked for once or twice, plus the ranges ahead: before, the low-water mark was
    // 12 s of the key's rate, more than a sub-window can use, and the key asked again after nearly every request.
    assert.ok(leases <= 30, `${leases} leases in 20 s`);
  });

  it('take() of a follower that began 1.6 s before an outage of its instance is refused nothing through 10 s of it (10 s window)', async () => {
    const rows = sharedRows();
    const limiter = new LeasedWindowLimiter({ limit: 300, windowMs: 10_000, source: rows.source(2) });
    const start = 9_000_000;
    const refused: number[] = [];
    for (let clock = start; clock < start + 11_600; clock += 180) {
      rows.down[2] = clock >= start + 1_600;
      if (Math.floor(clock / BUCKET_MS) !== Math.floor((clock - 180) / BUCKET_MS)) await limiter.sweep(clock);
      try {
        if (!(await limiter.take('key_follower', clock)).allowed) refused.push(clock - start);
      } catch {
        refused.push(clock - start);
      }
      await settle();
    }
    assert.deepEqual(refused, []);
  });

  it('take() of a key that began with a burst of 25 leases ahead by its rate after it: its other instances are not refused', async () => {
    const rows = sharedRows();
    const [home, other] = [0, 1].map((instance) => new LeasedWindowLimiter({ limit: 300, windowMs: 10_000, source: rows.source(instance) }));
    const start = 9_000_000;
    await Promise.all(Array.from({ length: 25 }, () => home!.take('key_client', start)));
    for (let clock = start + 250; clock < start + 3_000; clock += 250) {
      assert.equal((await home!.take('key_client', clock)).allowed, true);
      await settle();
    }
    // About 4 a second after the burst: held ahead, 6 or 7 a second for 15 s, not the 300 of the window.
    assert.ok(rows.total('key_client', Math.floor((start + 3_000) / BUCKET_MS)) < 200, `${rows.total('key_client', Math.floor((start + 3_000) / BUCKET_MS))} of 300 held`);
    assert.equal((await other!.take('key_client', start + 3_000)).allowed, true);
  });

  for (const { limit, windowMs, instances, gapMs, what } of [
    { limit: 5, windowMs: 60_000, instances: 1, gapMs: 300, what: '5 a minute, one request every 300 ms' },
    { limit: 20, windowMs: 60_000, instances: 3, gapMs: 10, what: '20 a minute over three instances in turn, 10 ms apart' },
    { limit: 10, windowMs: 6_000, instances: 1, gapMs: 100, what: '10 in 6 s, one request every 100 ms' },
    { limit: 100, windowMs: 900_000, instances: 1, gapMs: 20, what: 'the failed-authentication throttle, 100 in 15 minutes, 20 ms apart' },
    { limit: 100, windowMs: 900_000, instances: 3, gapMs: 20, what: 'the same over three instances in turn' },
    { limit: 40, windowMs: 10_000, instances: 3, gapMs: 120, what: '40 in 10 s over three instances in turn, 120 ms apart' },
    { limit: 40, windowMs: 10_000, instances: 2, gapMs: 120, what: 'the same over two' },
  ]) {
    it(`take() admits exactly the limit to a key that uses it all, before any refusal (${what})`, async () => {
      const rows = sharedRows();
      const limiters = Array.from({ length: instances }, (_, i) => new LeasedWindowLimiter({ limit, windowMs, source: rows.source(i) }));
      const allowed: boolean[] = [];
      let clock = 30_000_000;
      for (let n = 0; n < limit + 5; n++, clock += gapMs) {
        allowed.push((await limiters[n % instances]!.take('key_a', clock)).allowed);
        await settle();
      }
      // Before, slots leased ahead for an outage made the window full early: 5 a minute refused the 3rd, 100 the 91st.
      assert.deepEqual(allowed, [...Array(limit).fill(true), ...Array(5).fill(false)], `refused first at request ${allowed.indexOf(false) + 1}`);
    });
  }

  for (const { gapMs, count, most } of [
    { gapMs: 600, count: 30, most: 17 },
    { gapMs: 300, count: 60, most: 34 },
    { gapMs: 1_000, count: 30, most: 10 },
  ]) {
    it(`take() never refuses a key under its limit in turn over three instances (40 in 10 s, one request every ${gapMs} ms: at most ${most} in any window)`, async () => {
      const rows = sharedRows();
      const limiters = [0, 1, 2].map((i) => new LeasedWindowLimiter({ limit: 40, windowMs: 10_000, source: rows.source(i) }));
      const refused: number[] = [];
      let clock = 60_000_000;
      for (let n = 0; n < count; n++, clock += gapMs) {
        // Each instance sweeps once a sub-window, as the app's timer does.
        await Promise.all(limiters.map((limiter) => limiter.sweep(clock)));
        if (!(await limiters[n % 3]!.take('key_a', clock)).allowed) refused.push(n + 1);
        await settle();
      }
      // Before, each instance judged the key by its own third of the requests and held slots ahead by it; the three held
      // more than the window had room for beside what the key used (the 12th request at 600 ms was refused).
      assert.deepEqual(refused, []);
    });
  }

  it('take() of a key steady at a fifth of its pace in turn over three instances, then as fast as it can: its whole limit, the others giving back what they held when asked', async () => {
    const rows = sharedRows();
    const limiters = [0, 1, 2].map((i) => new LeasedWindowLimiter({ limit: 60, windowMs: 10_000, source: rows.source(i) }));
    rows.limiters.push(...limiters);
    const start = 9_000_000;
    const admitted: number[] = [];
    let [clock, swept] = [start, start];
    for (let n = 0; ; n++) {
      // Each instance sweeps once a sub-window, as the app's timer does.
      for (; swept + BUCKET_MS <= clock; ) {
        swept += BUCKET_MS;
        for (const limiter of limiters) await limiter.sweep(swept);
        await settle();
      }
      rows.now = clock;
      if (!(await limiters[n % 3]!.take('key_a', clock)).allowed) break;
      admitted.push(clock);
      await settle();
      // 12 s at 1.2 a second (a fifth of 60 a 10 s), then one every 20 ms.
      clock += clock - start < 12_000 ? 10_000 / 60 / 0.2 : 20;
    }
    // Before, the other instances' slots held ahead (for an outage) made the window full at the 38th.
    assert.ok(admitted.filter((at) => at > clock - 10_000 - BUCKET_MS).length >= 60, `refused with ${admitted.filter((at) => at > clock - 10_000 - BUCKET_MS).length} of 60 in the window`);
  });

  it('take() of a key that polled and then bursts admits its whole limit: the slots its instance leased ahead are given back for the burst', async () => {
    const rows = sharedRows();
    const limiter = new LeasedWindowLimiter({ limit: 100, windowMs: 60_000, source: rows.source(0) });
    let clock = 40_000_000;
    // Once a second for 5 s: within its limit (60 a minute of 100), so slots are leased ahead for an outage.
    for (let n = 0; n < 6; n++, clock += 1_000) {
      assert.equal((await limiter.take('key_a', clock)).allowed, true);
      await settle();
    }
    assert.ok(rows.total('key_a', Math.floor(clock / 1_000)) > 6, 'slots were held ahead');
    const burst: boolean[] = [];
    for (let n = 0; n < 99; n++) burst.push((await limiter.take('key_a', clock)).allowed);
    assert.equal(burst.indexOf(false), 94, 'the 100th request of the window is the last admitted');
  });

  it('take() on one instance after another polled fast: the other held nothing ahead, so the key gets its whole limit here', async () => {
    const rows = sharedRows();
    const [poller, burster] = [0, 1].map((instance) => new LeasedWindowLimiter({ limit: 60, windowMs: 60_000, source: rows.source(instance) }));
    let clock = 50_000_000;
    // Ten a second on the first instance: 600 a minute, far over the limit of 60, which such a key reaches in seconds.
    for (let n = 0; n < 20; n++, clock += 100) {
      assert.equal((await poller!.take('key_a', clock)).allowed, true);
      await settle();
    }
    // A second later the poller has given back what was left of its last sub-window's batch (held ahead: nothing).
    clock += 1_000;
    await poller!.sweep(clock);
    const burst: boolean[] = [];
    for (let n = 0; n < 45; n++) burst.push((await burster!.take('key_a', clock)).allowed);
    assert.equal(burst.indexOf(false), 40, 'the other 40 of the 60 are admitted on the second instance');
  });

  it('take() of a key hammering past its limit asks the source about once per refusal, not once per range it would lease ahead', async () => {
    const rows = sharedRows();
    let calls = 0;
    const counting: LeaseSource = {
      lease: (...args) => {
        calls++;
        return rows.source(0).lease(...args);
      },
      giveBack: (...args) => {
        calls++;
        return rows.source(0).giveBack(...args);
      },
    };
    const limiter = new LeasedWindowLimiter({ limit: 20, windowMs: 6_000, source: counting });
    let clock = 60_000_000;
    let refused = 0;
    for (let n = 0; n < 300; n++, clock += 10) {
      if (!(await limiter.take('key_a', clock)).allowed) refused++;
      await settle();
    }
    assert.ok(refused > 200, `${refused} refused`);
    // Before, each refusal gave back the ranges held ahead one by one and leased them again: 12 to 16 calls.
    assert.ok(calls / refused < 1.5, `${calls} calls to the source for ${refused} refusals`);
  });

  it('take() whose lease came back after its sub-window passed asks again for the current one rather than answering 429', async () => {
    const rows = sharedRows();
    let release!: () => void;
    const slow: LeaseSource = { ...rows.source(0), lease: async (...args) => {
      await new Promise<void>((resolve) => (release = resolve));
      return rows.source(0).lease(...args);
    } };
    let now = 9_000_000;
    const limiter = new LeasedWindowLimiter({ limit: 300, windowMs: 10_000, source: slow, clock: () => now });
    const first = limiter.take('key_a', now);
    // A second request a sub-window later, while the first one's lease is still out.
    now += 2 * BUCKET_MS;
    const second = limiter.take('key_a', now);
    for (let i = 0; i < 3; i++) {
      await settle();
      release();
    }
    assert.deepEqual([(await first).allowed, (await second).allowed], [true, true]);
  });

  it('take() asks once more when its lease failed while the instance itself was stalled (a paused machine), not 503 at once', async () => {
    const rows = sharedRows();
    let now = 9_000_000;
    let calls = 0;
    const stalling: LeaseSource = { ...rows.source(0), lease: (...args) => {
      calls++;
      if (calls > 1) return rows.source(0).lease(...args);
      // The process stopped for 6.5 s while the lease was out; its session was ended meanwhile.
      now += 6_500;
      return Promise.reject(new Error('Connection terminated unexpectedly'));
    } };
    const limiter = new LeasedWindowLimiter({ limit: 300, windowMs: 10_000, source: stalling, clock: () => now });
    assert.equal((await limiter.take('key_a', now)).allowed, true);
    assert.equal(calls, 2);
    // Without a stall a failure is the 503 at once.
    rows.down[0] = true;
    await assert.rejects(async () => limiter.take('key_b', now), /cannot be reached/);
  });

  it('take() after a lease that failed at once (a link reset) asks again; after one that failed after a wait, 503 at once for a second', async () => {
    const rows = sharedRows();
    let now = 9_500_000;
    let calls = 0;
    let waitMs = 0;
    let failing = true;
    const source: LeaseSource = { ...rows.source(0), lease: (...args) => {
      calls++;
      if (!failing) return rows.source(0).lease(...args);
      now += waitMs;
      return Promise.reject(Object.assign(new Error('read ECONNRESET 10.0.0.5:5432'), { code: 'ECONNRESET' }));
    } };
    const limiter = new LeasedWindowLimiter({ limit: 300, windowMs: 10_000, source, clock: () => now });
    // The 503 names the error's code, not the database's address.
    await assert.rejects(async () => limiter.take('key_a', now), (error: Error) => /\(ECONNRESET\)/.test(error.message) && !error.message.includes('10.0.0.5'));
    // The link is back 50 ms later: the next request asks, and is admitted.
    failing = false;
    now += 50;
    assert.equal((await limiter.take('key_a', now)).allowed, true);
    assert.equal(calls, 2);
    // A failure after a 1 s wait (a database that does not answer): the next ask within the second is not sent.
    failing = true;
    waitMs = 1_000;
    await assert.rejects(async () => limiter.take('key_b', now), /ECONNRESET/);
    failing = false;
    await assert.rejects(async () => limiter.take('key_b', now + 100), /did not answer a moment ago/);
    assert.equal(calls, 3);
  });

  it('take() after a refusal that took 300 ms to come back (a loaded machine) asks again when the source calls it a refusal; otherwise 503 at once for a second', async () => {
    const rows = sharedRows();
    let now = 9_500_000;
    let calls = 0;
    let failing = true;
    const lease: LeaseSource['lease'] = (...args) => {
      calls++;
      if (!failing) return rows.source(0).lease(...args);
      now += 300;
      return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    };
    const refused = (error: unknown): boolean => (error as { code?: unknown }).code === 'ECONNREFUSED';
    const telling = new LeasedWindowLimiter({ limit: 300, windowMs: 10_000, source: { ...rows.source(0), lease, refusedAtOnce: refused }, clock: () => now });
    await assert.rejects(async () => telling.take('key_a', now), /ECONNREFUSED/);
    // The standby promoted meanwhile answers: the next request asks, and is admitted.
    failing = false;
    now += 50;
    assert.equal((await telling.take('key_a', now)).allowed, true);
    assert.equal(calls, 2);
    // A source that does not tell: 300 ms is a wait, and the next ask within the second is not sent.
    failing = true;
    const silent = new LeasedWindowLimiter({ limit: 300, windowMs: 10_000, source: { ...rows.source(0), lease }, clock: () => now });
    await assert.rejects(async () => silent.take('key_a', now), /ECONNREFUSED/);
    failing = false;
    await assert.rejects(async () => silent.take('key_a', now + 100), /did not answer a moment ago/);
    assert.equal(calls, 3);
  });
});

describe('LeasedWindowLimiter dropping a key whose lease is being asked for', () => {
  for (const how of ['dropped for another key (maxKeys)', 'closed'] as const) {
    it(`gives back what it held once when ${how} while an ask of it waits, never more than it was granted`, async () => {
      // A source on grantsWithin counting, per row, what it granted and what came back; once `full`, it grants nothing,
      // and once `armed`, its next lease waits for `release`.
      const held: Held[] = [];
      const granted = new Map<string, number>();
      const back = new Map<string, number>();
      let [full, armed] = [false, false];
      let release: (() => void) | undefined;
      const source: LeaseSource = {
        lease: async (_key, now, wants, limit, _spans, reserve) => {
          if (armed && release === undefined) await new Promise<void>((resolve) => (release = resolve));
          const result: { granted: number[]; total: number; used: number; usedOver: number } = full ? { granted: wants.map(() => 0), total: limit, used: 0, usedOver: 0 } : grantsWithin(held, now, wants, limit, 60, reserve);
          wants.forEach((want, i) => granted.set(`${want.bucket}/${want.span ?? 1}`, (granted.get(`${want.bucket}/${want.span ?? 1}`) ?? 0) + result.granted[i]!));
          return { ...result, oldest: undefined };
        },
        giveBack: async (_key, bucket, count, span = 1) => {
          back.set(`${bucket}/${span}`, (back.get(`${bucket}/${span}`) ?? 0) + count);
        },
      };
      let now = 1_000_000_000;
      const limiter = new LeasedWindowLimiter({ limit: 1000, windowMs: 30_000, maxBatch: 2, maxKeys: 1, source, clock: () => now });
      // Steady: slots are leased ahead for an outage.
      for (let n = 0; n < 40; n++) {
        now += 500;
        assert.equal((await limiter.take('key_a', now)).allowed, true);
      }
      // The window full: the key's next request without a slot asks, and its second lease waits.
      full = true;
      let decision: LimitDecision | Promise<LimitDecision> | undefined;
      for (let n = 0; n < 2_000 && !(decision instanceof Promise); n++) decision = limiter.take('key_a', ++now);
      armed = true;
      await new Promise((resolve) => setTimeout(resolve, 5));
      assert.ok(release !== undefined, 'a lease of the key waits');
      if (how === 'closed') void limiter.close();
      else void Promise.resolve(limiter.take('key_b', now)).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 5));
      release();
      await decision;
      await new Promise((resolve) => setTimeout(resolve, 10));
      // Given back twice, a row shared by every instance would lose slots others were granted and used.
      assert.deepEqual([...back].filter(([row, count]) => count > (granted.get(row) ?? 0)), []);
    });
  }
});
