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
    // All three were taken at this very instant: the first slot frees exactly one window later.
    assert.equal(refused.headers['Retry-After'], '60');
    assert.equal(refused.headers['Cache-Control'], 'no-store');
    assert.equal(refused.headers['RateLimit-Limit'], '3');
    assert.equal(refused.headers['RateLimit-Remaining'], '0');
    assert.equal(refused.headers['RateLimit-Policy'], '"default";q=3;w=60');
    assert.equal(refused.headers['RateLimit-Reset'], '60');
    assert.equal(refused.headers['RateLimit'], `"default";r=0;t=60`);
    assert.equal(h.app.store.size, 0, 'the refused POST created nothing');
  });

  it('keeps other keys apart and does not limit key-less endpoints', async () => {
    assert.equal((await h.request('GET', '/events', { key: h.keys.reader })).status, 200);
    assert.equal((await h.request('GET', '/health')).status, 200);
    assert.equal((await h.request('OPTIONS', '/events')).status, 204);
  });

  it('neither counts nor marks what is answered before the key is looked at: an unknown path, a 405, a bad target', async () => {
    const key = h.keys.organizer;
    for (const [method, target, status] of [['GET', '/nope', 404], ['PATCH', '/events', 405], ['GET', '//events', 400], ['OPTIONS', '/events', 204]] as const) {
      for (let i = 0; i < 4; i++) {
        const response = await h.request(method, target, { key });
        assert.equal(response.status, status, `${method} ${target}`);
        assert.equal(response.headers['RateLimit-Remaining'], undefined, `${method} ${target}`);
      }
    }
    const counted = await h.request('GET', '/events', { key });
    assert.equal(counted.status, 200);
    assert.equal(counted.headers['RateLimit-Remaining'], '2', 'the sixteen answers before it took no slot');
  });

  it('does not count refused requests: the window frees as if they never came', async () => {
    // Admin's three slots were taken at `clock`; now refuse many, 40 s later.
    clock += 40_000;
    for (let i = 0; i < 5; i++) assertError(await h.request('GET', '/events', { key: h.keys.admin }), 429, 'rate_limited');
    // A window after the first three, all three slots are back.
    clock += 20_000;
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

describe('Retry-After is exact (issue 12.7)', () => {
  let h: Harness;
  let clock = Date.UTC(2026, 8, 1, 12, 0, 0, 250);
  before(async () => (h = await startHarness({ rateLimit: 2, rateWindow: 60, now: () => clock })));
  after(() => h.close());

  it('a key refused with Retry-After: N is admitted exactly N seconds later, and not one second before', async () => {
    assert.equal((await h.request('GET', '/events', { key: h.keys.admin })).status, 200);
    clock += 10_400;
    assert.equal((await h.request('GET', '/events', { key: h.keys.admin })).status, 200);
    clock += 5_000;
    const refused = await h.request('GET', '/events', { key: h.keys.admin });
    assertError(refused, 429, 'rate_limited');
    // The first request was 15.4 s ago: its slot frees in 44.6 s, announced as 45.
    assert.equal(refused.headers['Retry-After'], '45');
    clock += 44_000;
    assertError(await h.request('GET', '/events', { key: h.keys.admin }), 429, 'rate_limited');
    clock += 1_000;
    assert.equal((await h.request('GET', '/events', { key: h.keys.admin })).status, 200);
  });

  it('the failed-authentication throttle announces at most its 900 s window, says it is that throttle, and waiting it out is enough', async () => {
    const from = { remoteAddress: '198.51.100.7' };
    for (let i = 0; i < 100; i++) assertError(await h.request('GET', '/events', { key: 'cek_wrong', ...from }), 401, 'unauthorized');
    const refused = await h.request('GET', '/events', { key: 'cek_wrong', ...from });
    const body = assertError(refused, 429, 'rate_limited');
    assert.equal(refused.headers['Retry-After'], '900');
    assert.match(body.message, /per-address throttle for failed authentications/);
    clock += 899_000;
    assertError(await h.request('GET', '/events', { key: 'cek_wrong', ...from }), 429, 'rate_limited');
    clock += 1_000;
    assertError(await h.request('GET', '/events', { key: 'cek_wrong', ...from }), 401, 'unauthorized');
  });
});
