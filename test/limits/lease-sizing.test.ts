// LeaseSizing: how many slots a key's lease asks for at once, and when it may hold slots ahead.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyLease } from '../../src/limits/key-lease.js';
import { LeaseSizing } from '../../src/limits/lease-sizing.js';

/** 1,000,000 ms: sub-window 1000 of a 60 s window (sub-windows of a second, ranges of one). */
const NOW = 1_000_000;

function sizing(limit: number, maxBatch = 256): LeaseSizing {
  return new LeaseSizing({ limit, windowMs: 60_000, bucketMs: 1_000, span: 1, maxBatch });
}

/** A lease of sub-window 1000 whose window has `total` slots handed out over all instances. */
function lease(total = 0): KeyLease {
  const held = new KeyLease(1_000, NOW, 1, () => undefined);
  held.total = total;
  return held;
}

/** A lease used here steadily: five requests over 400 ms. */
function steadyLease(): KeyLease {
  const held = lease();
  held.credit(1_000, 10, 1);
  for (let at = NOW; at <= NOW + 400; at += 100) assert.ok(held.use(at));
  return held;
}

describe('LeaseSizing', () => {
  it('wants() asks for an eighth of the window\'s room, at most maxBatch, down to one slot near the limit', () => {
    const batchOf = (limit: number, total: number): unknown => sizing(limit).wants(lease(total), NOW, true).wants;
    assert.deepEqual(batchOf(1_000, 0), [{ bucket: 1_000, want: 125 }]);
    assert.deepEqual(batchOf(1_000, 900), [{ bucket: 1_000, want: 12 }]);
    assert.deepEqual(batchOf(1_000, 990), [{ bucket: 1_000, want: 1 }]);
    assert.deepEqual(batchOf(10_000, 0), [{ bucket: 1_000, want: 256 }]);
  });

  it('wants() leases short sub-windows by the key\'s rate, not by batches', () => {
    const short = new LeaseSizing({ limit: 1_000, windowMs: 6_000, bucketMs: 100, span: 10, maxBatch: 256 });
    assert.deepEqual(short.wants(new KeyLease(10_000, NOW, 10, () => undefined), NOW, true).wants, [{ bucket: 10_000, want: 2 }]);
  });

  it('wants() without the current sub-window asks for nothing for a key not yet steady, and notes when to look again', () => {
    const held = lease();
    assert.deepEqual(sizing(1_000).wants(held, NOW, false), { wants: [], giveBackAhead: false });
    assert.equal(held.lookAt, 1_001_000);
  });

  it('wants() asks a steady key\'s ranges ahead, but none once it was refused lately, and then says to give back those held', () => {
    const now = NOW + 400;
    const held = steadyLease();
    const ahead = sizing(1_000).wants(held, now, false);
    assert.ok(ahead.wants.length > 0 && ahead.wants.every((want) => want.bucket > 1_000), JSON.stringify(ahead.wants));
    assert.equal(ahead.giveBackAhead, false);
    const refused = steadyLease();
    refused.refusedAt = now;
    assert.deepEqual(sizing(1_000).wants(refused, now, false), { wants: [], giveBackAhead: false });
    refused.ahead = new Map([[1_005, 3]]);
    assert.deepEqual(sizing(1_000).wants(refused, now, false), { wants: [], giveBackAhead: true });
  });

  it('lowWater() asks again once half the grant is used, and never near the limit', () => {
    const held = lease();
    held.credit(1_000, 125, 1);
    assert.equal(sizing(1_000).lowWater(held, 125, NOW), 62);
    assert.equal(sizing(1_000).lowWater(lease(990), 1, NOW), -1);
  });
});
