// Tests for AuthFailureThrottle: the 101st failure on is blocked, per address (IPv6 by /64), in a bounded table.

import assert from "node:assert/strict";
import { test } from "node:test";
import { AuthFailureThrottle } from "../../src/limits/auth-failures.js";

const MINUTE = 60_000;

test("isBlocked() lets 100 failures through and blocks the 101st within 15 minutes by default", () => {
  const throttle = new AuthFailureThrottle();
  for (let i = 0; i < 100; i++) {
    assert.equal(throttle.isBlocked("192.0.2.1", i * 1000).blocked, false, `failure ${i + 1}`);
    throttle.recordFailure("192.0.2.1", i * 1000);
  }
  const decision = throttle.isBlocked("192.0.2.1", 14 * MINUTE);
  assert.equal(decision.blocked, true);
  // The first failures (bucket 0 of 15 s buckets) leave the span at 61 * 15 s = 915 s.
  assert.equal(decision.retryAfterSeconds, 915 - 14 * 60);
});

test("isBlocked() unblocks once the failures have left the window", () => {
  const throttle = new AuthFailureThrottle({ maxFailures: 3, windowMs: 60_000 });
  for (let i = 0; i < 3; i++) throttle.recordFailure("192.0.2.1", 0);
  assert.deepEqual(throttle.isBlocked("192.0.2.1", 1000), { blocked: true, retryAfterSeconds: 60 });
  assert.deepEqual(throttle.isBlocked("192.0.2.1", 61_000), { blocked: false, retryAfterSeconds: 0 });
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

test("recordFailure() keeps the table within maxAddresses under a flood of distinct addresses", () => {
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
