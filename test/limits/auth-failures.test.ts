// Tests for AuthFailureThrottle: the 101st failure on is blocked, per address (IPv6 by /64), in a bounded table.

import assert from "node:assert/strict";
import { test } from "node:test";
import { AuthFailureThrottle, leasedAuthFailures, authFailureKey } from "../../src/limits/auth-failures.js";

const MINUTE = 60_000;

test("isBlocked() lets 100 failures through and blocks the 101st within 15 minutes by default", () => {
  const throttle = new AuthFailureThrottle();
  for (let i = 0; i < 100; i++) {
    assert.equal(throttle.isBlocked("192.0.2.1", i * 1000).blocked, false, `failure ${i + 1}`);
    throttle.recordFailure("192.0.2.1", i * 1000);
  }
  const decision = throttle.isBlocked("192.0.2.1", 14 * MINUTE);
  assert.equal(decision.blocked, true);
  // The first failures (bucket 0 of 15 s buckets, its latest at 14 s) stop counting at 14 s + 900 s.
  assert.equal(decision.retryAfterSeconds, 914 - 14 * 60);
});

test("isBlocked() unblocks once the failures have left the window", () => {
  const throttle = new AuthFailureThrottle({ maxFailures: 3, windowMs: 60_000 });
  for (let i = 0; i < 3; i++) throttle.recordFailure("192.0.2.1", 0);
  assert.deepEqual(throttle.isBlocked("192.0.2.1", 1000), { blocked: true, retryAfterSeconds: 59 });
  assert.deepEqual(throttle.isBlocked("192.0.2.1", 59_999), { blocked: true, retryAfterSeconds: 1 });
  assert.deepEqual(throttle.isBlocked("192.0.2.1", 60_000), { blocked: false, retryAfterSeconds: 0 });
});

test("isBlocked() shares one budget across an IPv6 /64 and keeps other addresses apart", () => {
  const throttle = new AuthFailureThrottle({ maxFailures: 2 });
  throttle.recordFailure("2001:db8:1:2::a", 0);
  throttle.recordFailure("2001:db8:1:2::b", 0);
  assert.equal(throttle.isBlocked("2001:db8:1:2:ffff::1", 0).blocked, true);
  assert.equal(throttle.isBlocked("2001:db8:1:3::a", 0).blocked, false);
  assert.equal(throttle.isBlocked("192.0.2.1", 0).blocked, false);
});

test("isBlocked() treats an IPv4-mapped address as its IPv4", () => {
  const throttle = new AuthFailureThrottle({ maxFailures: 1 });
  throttle.recordFailure("::ffff:192.0.2.1", 0);
  assert.equal(throttle.isBlocked("192.0.2.1", 0).blocked, true);
});

test("recordFailure() keeps the counted addresses within maxAddresses under a flood of distinct addresses", () => {
  const throttle = new AuthFailureThrottle({ maxAddresses: 500 });
  for (let i = 0; i < 50_000; i++) {
    throttle.recordFailure(`2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`, i);
  }
  assert.equal(throttle.size, 500);
  assert.equal(throttle.isBlocked("203.0.113.9", 50_000).blocked, false);
  assert.equal(throttle.size, 500, "checking an unknown address adds nothing");
});

test("AuthFailureThrottle rejects bad options, naming them", () => {
  assert.throws(() => new AuthFailureThrottle({ maxFailures: 0 }), /maxFailures must be .* got 0/);
  assert.throws(() => new AuthFailureThrottle({ maxAddresses: -1 }), /maxAddresses must be .* got -1/);
  assert.throws(() => new AuthFailureThrottle({ windowMs: 0 }), /windowMs must be/);
});

test("isBlocked() keeps a blocked address blocked for its window however many other addresses fail once (issue 12.5)", () => {
  const throttle = new AuthFailureThrottle();
  for (let i = 0; i < 100; i++) throttle.recordFailure("192.0.2.66", 0);
  assert.equal(throttle.isBlocked("192.0.2.66", 1).blocked, true);
  // The reset attack: one failure from each of 30,000 other addresses.
  for (let i = 0; i < 30_000; i++) throttle.recordFailure(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 1 + i);
  assert.ok(throttle.size <= 10_000 + 50_000, `size ${throttle.size}`);
  assert.deepEqual(throttle.isBlocked("192.0.2.66", 60_000), { blocked: true, retryAfterSeconds: 840 });
  assert.deepEqual(throttle.isBlocked("192.0.2.66", 899_999), { blocked: true, retryAfterSeconds: 1 });
  assert.equal(throttle.isBlocked("192.0.2.66", 900_000).blocked, false);
});

test("recordFailure() keeps the table of blocks bounded, dropping the block that ends soonest", () => {
  const throttle = new AuthFailureThrottle({ maxFailures: 1, maxAddresses: 100, maxBlocked: 50 });
  for (let i = 0; i < 1000; i++) throttle.recordFailure(`10.0.${i >> 8}.${i & 255}`, i);
  assert.ok(throttle.size <= 150, `size ${throttle.size}`);
  assert.equal(throttle.isBlocked("10.0.3.231", 1000).blocked, true, "the latest block stands");
});

test("recordFailure() blocks a whole IPv6 /48 once 16 of its /64s are blocked", () => {
  const throttle = new AuthFailureThrottle({ maxFailures: 2 });
  for (let net = 0; net < 16; net++) {
    assert.equal(throttle.isBlocked(`2001:db8:7:${net.toString(16)}::1`, 0).blocked, false, `/64 number ${net + 1} is new`);
    throttle.recordFailure(`2001:db8:7:${net.toString(16)}::1`, 0);
    throttle.recordFailure(`2001:db8:7:${net.toString(16)}::1`, 0);
  }
  assert.deepEqual(throttle.isBlocked("2001:db8:7:ffff::1", 0), { blocked: true, retryAfterSeconds: 900 }, "a fresh /64 of the same /48");
  assert.equal(throttle.isBlocked("2001:db8:8:0::1", 0).blocked, false, "another /48");
  assert.equal(throttle.isBlocked("2001:db8:7:ffff::1", 900_000).blocked, false, "the /48 block lasts one window");
});

test("recordFailure() counts only /64 blocks that overlap: 16 blocks spread over hours do not block the /48", () => {
  const throttle = new AuthFailureThrottle({ maxFailures: 1 });
  for (let net = 0; net < 16; net++) throttle.recordFailure(`2001:db8:9:${net.toString(16)}::1`, net * 3_600_000);
  assert.equal(throttle.isBlocked("2001:db8:9:ffff::1", 15 * 3_600_000).blocked, false);
});

test("save() and restore(): a throttle restored after a stop blocks and counts as the saved one did; an ended block is dropped", () => {
  const throttle = new AuthFailureThrottle({ maxFailures: 3, windowMs: 60_000, prefixFlood: 2 });
  for (let i = 0; i < 3; i++) throttle.recordFailure("192.0.2.1", 1_000);
  throttle.recordFailure("192.0.2.2", 2_000);
  // Two blocked /64s of one /48 block the /48 for a window.
  for (const address of ["2001:db8:1:1::1", "2001:db8:1:2::1"]) for (let i = 0; i < 3; i++) throttle.recordFailure(address, 3_000);
  const saved = JSON.parse(JSON.stringify(throttle.save()));
  const restored = new AuthFailureThrottle({ maxFailures: 3, windowMs: 60_000, prefixFlood: 2 });
  restored.restore(saved, 5_000);
  assert.deepEqual(restored.isBlocked("192.0.2.1", 5_000), { blocked: true, retryAfterSeconds: 56 });
  for (const address of ["192.0.2.1", "192.0.2.2", "2001:db8:1:3::1"]) assert.deepEqual(restored.isBlocked(address, 5_000), throttle.isBlocked(address, 5_000), address);
  // One more failure of .2 is its second of three, as before the stop.
  restored.recordFailure("192.0.2.2", 6_000);
  assert.equal(restored.isBlocked("192.0.2.2", 6_000).blocked, false);
  restored.recordFailure("192.0.2.2", 6_000);
  assert.equal(restored.isBlocked("192.0.2.2", 6_000).blocked, true);
  // The blocks end when they would have: .1's a window after its failures, the /48's a window after it began.
  for (const [address, at, blocked] of [["192.0.2.1", 61_000, false], ["2001:db8:1:3::1", 62_999, true], ["2001:db8:1:3::1", 63_000, false]] as const) {
    const decision = restored.isBlocked(address, at);
    assert.deepEqual(decision, throttle.isBlocked(address, at), `${address} at ${at} ms`);
    assert.equal(decision.blocked, blocked, `${address} at ${at} ms`);
  }
  // Restored after every block has ended, nothing is blocked.
  const late = new AuthFailureThrottle({ maxFailures: 3, windowMs: 60_000, prefixFlood: 2 });
  late.restore(saved, 200_000);
  assert.equal(late.isBlocked("192.0.2.1", 200_000).blocked, false);
  assert.equal(late.isBlocked("2001:db8:1:3::1", 200_000).blocked, false);
});

test("restore() keeps nothing saved under another window, and a block saved far ahead ends within a window", () => {
  const throttle = new AuthFailureThrottle({ maxFailures: 1, windowMs: 60_000 });
  throttle.recordFailure("192.0.2.1", 1_000);
  const saved = throttle.save();
  const otherWindow = new AuthFailureThrottle({ maxFailures: 1, windowMs: 120_000 });
  assert.equal(otherWindow.restore(saved, 2_000), false);
  assert.equal(otherWindow.isBlocked("192.0.2.1", 2_000).blocked, false);
  const restored = new AuthFailureThrottle({ maxFailures: 1, windowMs: 60_000 });
  assert.equal(restored.restore({ ...saved, blocked: [["192.0.2.9", 10_000_000]] }, 2_000), true);
  assert.deepEqual(restored.isBlocked("192.0.2.9", 2_000), { blocked: true, retryAfterSeconds: 60 });
  assert.equal(restored.isBlocked("192.0.2.9", 62_000).blocked, false);
});

test("leasedAuthFailures() holds the failures of at most 10,000 addresses, as the throttle of one instance does, and leases one slot a failure", async () => {
  // On PostgreSQL the failures count over every instance; a flood of bad keys from new addresses stays as bounded.
  const wanted: number[] = [];
  const source = {
    lease: (_key: string, _now: number, wants: readonly { want: number }[]) => {
      wanted.push(...wants.map(({ want }) => want));
      return Promise.resolve({ granted: wants.map(({ want }) => want), total: 1, oldest: 0 });
    },
    giveBack: () => Promise.resolve(),
  };
  const limiter = leasedAuthFailures(source, () => 0);
  const at = 1_000_000;
  for (let n = 0; n <= 10_000; n++) await limiter.take(`auth 10.0.${n >> 8}.${n & 255}`, at);
  assert.equal(limiter.keysHeld, 10_000, "the 10,001st address sends the oldest away");
  // None held unused, for another instance to miss: each failure leases the one slot it uses.
  assert.deepEqual([...new Set(wanted)], [1]);
});

test("authFailureKey(): an address's key in the shared throttle, as the throttle of one instance counts it (an IPv4 however written, an IPv6 by its /64)", () => {
  assert.equal(authFailureKey("10.0.0.1"), "auth 10.0.0.1");
  assert.equal(authFailureKey("::ffff:10.0.0.1"), "auth 10.0.0.1");
  assert.equal(authFailureKey("2001:db8::1"), authFailureKey("2001:db8::2"));
});
