// The per-API-key quota of live Idempotency-Keys (issue 22 point 2): sized from the rate limit, a 429 past it, answers never forgotten early.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { openApp } from '../../src/app.js';
import { createKey } from '../../src/auth/key-registry.js';
import { idempotencyQuota } from '../../src/feeds/idempotency.js';
import { call, eventBody, tempDir } from '../helpers/harness.js';
import { assertError } from '../api/support.js';

const DAY_MS = 24 * 60 * 60 * 1000;

test('idempotencyQuota() is what the rate limit lets one key send in 24 hours (the life of an answer)', () => {
  assert.equal(idempotencyQuota(1000, 3600), 24_000);
  assert.equal(idempotencyQuota(3, 86_400), 3);
  assert.equal(idempotencyQuota(7, 172_800), 4, 'rounded up');
  assert.equal(idempotencyQuota(1, 1_000_000), 1, 'never 0');
});

test('past its quota a key gets 429 for a new Idempotency-Key (Retry-After until its oldest answer goes, nothing written); retries still replay, plain POSTs still write', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  let now = Date.parse('2026-11-25T10:00:00.000Z');
  const started = now;
  const key = (await createKey(dir, { name: 'Olivia', email: 'olivia@campus.edu', role: 'organizer' }, { randomBytes, now: () => now })).secret;
  const other = (await createKey(dir, { name: 'Oscar', email: 'oscar@campus.edu', role: 'organizer' }, { randomBytes, now: () => now })).secret;
  // 3 requests a day: a quota of 3 live Idempotency-Keys per key.
  const options = { dataDir: dir, keyPollMs: 0, bootstrapAdminKey: false, rateLimit: 3, rateWindow: 86_400, now: () => now };
  let app = await openApp(options, { unsafeNoSync: true });
  const post = (apiKey: string, idempotencyKey?: string, title = 'T') =>
    call(app, 'POST', '/events', { key: apiKey, body: eventBody({ title }), headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey } });
  for (const name of ['k1', 'k2', 'k3']) {
    assert.equal((await post(key, name, name)).status, 201);
    now += 1000;
  }
  // A stop saves the rate limits (rate-limits.json); without that file (removed, or a kill -9 after a start with none)
  // the limiter starts afresh, but the answers (and so the quota's count) do not.
  await app.close();
  rmSync(path.join(dir, 'rate-limits.json'));
  app = await openApp(options, { unsafeNoSync: true });
  t.after(() => app.close());
  const refused = await post(key, 'k4');
  assertError(refused, 429, 'rate_limited');
  assert.match(refused.json.message, /Idempotency-Key/);
  assert.equal(refused.headers['Retry-After'], String((started + DAY_MS - now) / 1000), 'until k1 is forgotten');
  assert.equal(refused.headers['Cache-Control'], 'no-store');
  assert.equal(app.store.size, 3, 'nothing written');
  const retry = await post(key, 'k1', 'k1');
  assert.equal(retry.status, 201);
  assert.equal(retry.headers['Idempotent-Replayed'], 'true', 'a retry of a live key is never refused');
  assert.equal((await post(key, undefined, 'plain')).status, 201, 'a POST without the header is not held by the quota');
  assert.equal((await post(other, 'k4')).status, 201, 'another API key has its own quota');
  now = started + DAY_MS;
  assert.equal((await post(key, 'k4')).status, 201, 'k1 forgotten: room again');
  assert.equal(app.store.size, 6);
});
