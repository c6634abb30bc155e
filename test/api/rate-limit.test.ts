// Whole-request tests of the per-key rate limit (API.md §6), on a fake clock so nothing sleeps.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventBody, startHarness, type Harness } from '../helpers/harness.js';
import { assertError } from './support.js';

describe('per-key rate limit', () => {
  let h: Harness;
  let clock = Date.UTC(2026, 8, 1, 12);
  before(async () => (h = await startHarness({ rateLimit: 3, rateWindow: 60, now: () => clock })));
  after(() => h.close());

  it('lets 3 requests through, counting down RateLimit-Remaining, and refuses the 4th with 429', async () => {
    for (const remaining of [2, 1, 0]) {
      const response = await h.request('GET', '/events', { key: h.keys.admin });
      assert.equal(response.status, 200);
      assert.equal(response.headers['RateLimit-Remaining'], String(remaining));
    }
    const refused = await h.request('POST', '/events', { key: h.keys.admin, body: eventBody() });
    assertError(refused, 429, 'rate_limited');
    const retryAfter = Number(refused.headers['Retry-After']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.headers['Retry-After']}`);
    assert.equal(refused.headers['Cache-Control'], 'no-store');
    assert.equal(refused.headers['RateLimit-Limit'], '3');
    assert.equal(refused.headers['RateLimit-Remaining'], '0');
    assert.equal(refused.headers['RateLimit-Policy'], '"default";q=3;w=60');
    const reset = Number(refused.headers['RateLimit-Reset']);
    assert.ok(reset >= 1 && reset <= 60, `RateLimit-Reset ${reset}`);
    assert.equal(refused.headers['RateLimit'], `"default";r=0;t=${reset}`);
    assert.equal(h.app.store.size, 0, 'the refused POST created nothing');
  });

  it('keeps other keys apart and does not limit key-less endpoints', async () => {
    assert.equal((await h.request('GET', '/events', { key: h.keys.reader })).status, 200);
    assert.equal((await h.request('GET', '/health')).status, 200);
    assert.equal((await h.request('OPTIONS', '/events')).status, 204);
  });

  it('does not count refused requests: the window frees as if they never came', async () => {
    // Admin's three slots were taken at `clock`; now refuse many, 40 s later.
    clock += 40_000;
    for (let i = 0; i < 5; i++) assertError(await h.request('GET', '/events', { key: h.keys.admin }), 429, 'rate_limited');
    // Past the window of the first three (plus the allowed 1/60 of lateness), all three slots are back.
    clock += 22_000;
    for (let i = 0; i < 3; i++) assert.equal((await h.request('GET', '/events', { key: h.keys.admin })).status, 200, `request ${i + 1}`);
    assertError(await h.request('GET', '/events', { key: h.keys.admin }), 429, 'rate_limited');
  });

  it('never lets more than the limit through in any window, whatever the timing', async () => {
    let admitted: number[] = [];
    const key = h.keys.other;
    const start = clock;
    for (let step = 0; step < 240; step++) {
      clock = start + step * 1_000;
      if ((await h.request('GET', '/events', { key })).status === 200) admitted.push(clock);
    }
    admitted = admitted.sort((a, b) => a - b);
    for (let i = 0; i + 3 < admitted.length; i++) assert.ok(admitted[i + 3]! - admitted[i]! >= 60_000, `4 requests within 60 s at ${admitted.slice(i, i + 4).map((t) => (t - start) / 1000)}`);
    assert.ok(admitted.length >= 10, `only ${admitted.length} admitted over 4 minutes`);
  });
});
