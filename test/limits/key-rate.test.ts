// KeyRate: how fast one key's requests come to an instance, what the rate limit leases ahead for it by.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyRate, SLICE_MS, STEADY_MS } from '../../src/limits/key-rate.js';

/** A time at the start of a slice, so that the tests know which slice each request falls in. */
const T0 = 1_000 * SLICE_MS;
const perSecond = (rate: KeyRate, nowMs: number): number => Math.round(rate.perMs(nowMs) * 1000 * 100) / 100;

describe('KeyRate', () => {
  it('perMs() of a key used 5 times a second for 1.6 s is 5 a second: over its age, not a whole slice', () => {
    const rate = new KeyRate(T0);
    let at = T0;
    for (; at <= T0 + 1_600; at += 200) rate.count(at);
    // 9 requests in 1.6 s (they came at its start and end).
    assert.equal(perSecond(rate, at - 200), 5.63);
    assert.ok(rate.steady(at - 200));
  });

  it('perMs() of a key that became steady with its third request 0.3 s after its first is 3 a second, not 0', () => {
    const rate = new KeyRate(T0);
    for (const at of [T0, T0 + 250, T0 + 300]) rate.count(at);
    assert.equal(perSecond(rate, T0 + 300), 3);
  });

  it('perMs() leaves out a burst at the key\'s start: 25 at once then 4 a second is 4 a second, not 15', () => {
    const rate = new KeyRate(T0);
    for (let n = 0; n < 25; n++) rate.count(T0 + n);
    for (let at = T0 + 250; at < T0 + 2_250; at += 250) rate.count(at);
    // Two of the 26 of its first 0.3 s count, and the 7 after it: 9 in 2.25 s.
    assert.equal(perSecond(rate, T0 + 2_250), 4);
  });

  it('steady() needs use over STEADY_MS: one burst at one instant is not steady, a second request later is', () => {
    const rate = new KeyRate(T0);
    for (let n = 0; n < 10; n++) rate.count(T0);
    assert.equal(rate.steady(T0), false);
    rate.count(T0 + STEADY_MS);
    assert.equal(rate.steady(T0 + STEADY_MS), true);
  });

  it('a slice without a request starts the key again: not steady, its rate 0, until it is used over STEADY_MS again', () => {
    const rate = new KeyRate(T0);
    for (let at = T0; at < T0 + SLICE_MS; at += 500) rate.count(at);
    assert.ok(rate.steady(T0 + SLICE_MS - 1));
    const later = T0 + 2 * SLICE_MS + 100;
    assert.equal(rate.perMs(later), 0);
    assert.equal(rate.steady(later), false);
    rate.count(later);
    assert.equal(rate.steady(later + STEADY_MS - 1), false);
  });

  it('perMs() follows a key that got busier: 1 a second, then 5 a second for the first 2 s of the next slice', () => {
    const rate = new KeyRate(T0);
    for (let at = T0; at < T0 + SLICE_MS; at += 1_000) rate.count(at);
    const busy = T0 + SLICE_MS;
    for (let at = busy; at < busy + 2_000; at += 200) rate.count(at);
    // Over both slices (3 + 10) / 5 s = 2.6 a second; over the current slice alone, 2 s old, 10 / 2 s.
    assert.equal(perSecond(rate, busy + 1_999), 2.6);
    assert.equal(perSecond(rate, busy + 2_000), 5);
  });
});
