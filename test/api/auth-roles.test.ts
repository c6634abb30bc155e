// Whole-request tests of API.md §2, §3 (401, 403) and §6 (failed authentications limited per address).
import assert from 'node:assert/strict';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { updateKeys } from '../../src/auth/key-file.js';
import { createKey } from '../../src/auth/key-registry.js';
import { eventBody, startHarness, type Harness } from '../helpers/harness.js';
import { assertError, createEvent, waitFor } from './support.js';

const PLAIN_CHALLENGE = 'Bearer realm="campus-events"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="campus-events", error="invalid_token"';

describe('401 unauthorized', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.close());

  it('answers a request with no Authorization header with the plain challenge', async () => {
    for (const [method, target] of [['GET', '/events'], ['POST', '/events'], ['GET', '/events/evt_x'], ['PUT', '/events/evt_x'], ['DELETE', '/events/evt_x'], ['HEAD', '/events']]) {
      const response = await h.request(method!, target!);
      assert.equal(response.status, 401, `${method} ${target}`);
      if (method !== 'HEAD') assertError(response, 401, 'unauthorized');
      assert.equal(response.headers['WWW-Authenticate'], PLAIN_CHALLENGE);
    }
  });

  it('answers an unknown key with error="invalid_token"', async () => {
    for (const key of ['cek_unknown', 'cek_' + 'A'.repeat(39), 'nonsense', h.keys.admin.slice(0, -1) + (h.keys.admin.endsWith('A') ? 'B' : 'A')]) {
      const response = await h.request('GET', '/events', { key });
      assertError(response, 401, 'unauthorized');
      assert.equal(response.headers['WWW-Authenticate'], INVALID_TOKEN_CHALLENGE);
    }
  });

  it('takes the scheme name in any case', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
      const response = await h.request('GET', '/events', { headers: { Authorization: `${scheme} ${h.keys.reader}` } });
      assert.equal(response.status, 200, scheme);
    }
  });

  it('refuses other schemes and an empty header', async () => {
    for (const value of [`Basic ${h.keys.reader}`, h.keys.reader, '', 'Bearer']) {
      const response = await h.request('GET', '/events', { headers: { Authorization: value } });
      assertError(response, 401, 'unauthorized');
      assert.ok(response.headers['WWW-Authenticate']?.startsWith(PLAIN_CHALLENGE), value);
    }
  });

  it('needs no key for /health, /openapi.json and OPTIONS', async () => {
    assert.equal((await h.request('GET', '/health')).status, 200);
    assert.deepEqual((await h.request('GET', '/health')).json, { status: 'ok' });
    assert.equal((await h.request('GET', '/v1/health')).status, 200);
    const openapi = await h.request('GET', '/openapi.json');
    assert.equal(openapi.status, 200);
    assert.match(openapi.json.openapi, /^3\.1/);
    assert.equal((await h.request('OPTIONS', '/events')).status, 204);
    assert.equal((await h.request('OPTIONS', '/events/evt_anything')).status, 204);
  });
});

describe('keys created and revoked while the app runs', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ keyPollMs: 20 })));
  after(() => h.close());

  it('honours a new key and refuses a revoked one within 2 s, answering as for an unknown key', async () => {
    const created = await createKey(h.dataDir, { name: 'Late Comer', email: 'late@campus.edu', role: 'organizer' }, { randomBytes, now: Date.now });
    await waitFor('the new key to be honoured', async () => (await h.request('GET', '/events', { key: created.secret })).status === 200);
    const event = await h.request('POST', '/events', { key: created.secret, body: eventBody() });
    assert.equal(event.status, 201);

    await updateKeys(h.dataDir, (keys) => {
      const record = keys.find((key) => key.id === created.record.id)!;
      record.revoked_at = new Date().toISOString();
    });
    await waitFor('the revoked key to be refused', async () => (await h.request('GET', '/events', { key: created.secret })).status === 401);
    const revoked = await h.request('GET', `/events/${event.json.id}`, { key: created.secret });
    assertError(revoked, 401, 'unauthorized');
    assert.equal(revoked.headers['WWW-Authenticate'], INVALID_TOKEN_CHALLENGE);
    const unknown = await h.request('GET', `/events/${event.json.id}`, { key: 'cek_' + 'Z'.repeat(39) });
    assert.deepEqual(revoked.json, unknown.json, 'a revoked key gets the same answer as an unknown one');
    assert.equal((await h.request('GET', '/events', { key: h.keys.reader })).status, 200, 'other keys still work');
  });
});

describe('a key made by the CLI a moment ago, brought by many requests at once', () => {
  let h: Harness;
  // No polling: only the look an unknown key asks for can find it.
  before(async () => (h = await startHarness({ keyPollMs: 0 })));
  after(() => h.close());

  it('is honoured on every one of them, not only the first (the others wait for the same look at keys.json)', async () => {
    for (let round = 0; round < 3; round++) {
      const created = await createKey(h.dataDir, { name: `At once ${round}`, email: `once${round}@campus.edu`, role: 'reader' }, { randomBytes, now: Date.now });
      const answers = await Promise.all(Array.from({ length: 20 }, () => h.request('GET', '/me', { key: created.secret })));
      assert.deepEqual(answers.map((answer) => answer.status), Array(20).fill(200), `round ${round}`);
    }
    const unknown = await Promise.all(Array.from({ length: 5 }, () => h.request('GET', '/me', { key: 'cek_' + 'Q'.repeat(39) })));
    assert.deepEqual(unknown.map((answer) => answer.status), Array(5).fill(401), 'a key nobody made is still refused');
  });

  it('a wall clock stepped back (NTP, a resumed machine) does not hold the look back: a new key still works at once', async () => {
    let offset = 0;
    const stepped = await startHarness({ now: () => Date.now() + offset });
    try {
      assertError(await stepped.request('GET', '/me', { key: 'cek_' + 'S'.repeat(39) }), 401, 'unauthorized');
      offset = -30_000;
      const created = await createKey(stepped.dataDir, { name: 'After the step', email: 'step@campus.edu', role: 'reader' }, { randomBytes, now: Date.now });
      const started = performance.now();
      assert.equal((await stepped.request('GET', '/me', { key: created.secret })).status, 200);
      assert.ok(performance.now() - started < 5_000, `the look waited ${Math.round(performance.now() - started)} ms`);
    } finally {
      await stepped.close();
    }
  });

  it('with keys.json broken meanwhile: an unknown key is a 401 (the look fails, the keys read before stay), a known one works', async () => {
    writeFileSync(path.join(h.dataDir, 'keys.json'), '{ half a file');
    assertError(await h.request('GET', '/me', { key: 'cek_' + 'B'.repeat(39) }), 401, 'unauthorized');
    assert.equal((await h.request('GET', '/me', { key: h.keys.reader })).status, 200);
  });
});

describe('403 forbidden by role', () => {
  let h: Harness;
  let olivias: Record<string, any>;
  before(async () => {
    h = await startHarness();
    olivias = await createEvent(h, h.keys.organizer);
  });
  after(() => h.close());

  it('lets a reader GET but not POST, PUT or DELETE', async () => {
    assert.equal((await h.request('GET', '/events', { key: h.keys.reader })).status, 200);
    assert.equal((await h.request('GET', `/events/${olivias.id}`, { key: h.keys.reader })).status, 200);
    assertError(await h.request('POST', '/events', { key: h.keys.reader, body: eventBody() }), 403, 'forbidden');
    assertError(await h.request('PUT', `/events/${olivias.id}`, { key: h.keys.reader, body: {} }), 403, 'forbidden');
    assertError(await h.request('DELETE', `/events/${olivias.id}`, { key: h.keys.reader }), 403, 'forbidden');
  });

  it('refuses an organizer PUT and DELETE of another\'s event, naming it, and changes nothing', async () => {
    const put = assertError(await h.request('PUT', `/events/${olivias.id}`, { key: h.keys.other, body: { title: 'Mine now' } }), 403, 'forbidden');
    assert.ok(put.message.includes(olivias.id));
    assertError(await h.request('DELETE', `/events/${olivias.id}`, { key: h.keys.other }), 403, 'forbidden');
    const read = await h.request('GET', `/events/${olivias.id}`, { key: h.keys.reader });
    assert.equal(read.json.title, olivias.title);
  });

  it('lets an organizer PUT and DELETE its own events', async () => {
    const own = await createEvent(h, h.keys.other);
    assert.equal((await h.request('PUT', `/events/${own.id}`, { key: h.keys.other, body: { title: 'Renamed' } })).status, 200);
    assert.equal((await h.request('DELETE', `/events/${own.id}`, { key: h.keys.other })).status, 204);
  });

  it('lets an admin PUT and DELETE anyone\'s event', async () => {
    const event = await createEvent(h, h.keys.other);
    assert.equal((await h.request('PUT', `/events/${event.id}`, { key: h.keys.admin, body: { capacity: 3 } })).status, 200);
    assert.equal((await h.request('DELETE', `/events/${event.id}`, { key: h.keys.admin })).status, 204);
  });

  it('carries the rate-limit headers on a 403 (an authenticated response)', async () => {
    const response = await h.request('POST', '/events', { key: h.keys.reader, body: eventBody() });
    assert.equal(response.status, 403);
    assert.ok(response.headers['RateLimit-Remaining'] !== undefined);
  });
});

describe('failed authentications limited per address (§6)', () => {
  let h: Harness;
  let clock = Date.UTC(2026, 8, 1);
  before(async () => (h = await startHarness({ now: () => clock })));
  after(() => h.close());

  it('answers the 101st failure from an address 429 with Retry-After, while a good key from it still works', async () => {
    const address = '198.51.100.7';
    for (let i = 1; i <= 100; i++) {
      const key = i % 2 === 0 ? undefined : `cek_guess${i}`;
      assertError(await h.request('GET', '/events', { key, remoteAddress: address }), 401, 'unauthorized');
    }
    for (const key of [undefined, 'cek_guess101', h.keys.admin.slice(0, -2) + 'xx']) {
      const blocked = await h.request('GET', '/events', { key, remoteAddress: address });
      assertError(blocked, 429, 'rate_limited');
      assert.ok(Number(blocked.headers['Retry-After']) >= 1, `Retry-After ${blocked.headers['Retry-After']}`);
      assert.equal(blocked.headers['Cache-Control'], 'no-store');
    }
    assertError(await h.request('POST', '/events', { remoteAddress: address, body: eventBody() }), 429, 'rate_limited');
    assert.equal((await h.request('GET', '/events', { key: h.keys.reader, remoteAddress: address })).status, 200, 'a good key is never limited by address');
    assert.equal((await h.request('POST', '/events', { key: h.keys.organizer, remoteAddress: address, body: eventBody() })).status, 201);
    assertError(await h.request('GET', '/events', { remoteAddress: '198.51.100.8' }), 401, 'unauthorized');
    assert.equal((await h.request('GET', '/health', { remoteAddress: address })).status, 200, '/health needs no key');
    assert.equal((await h.request('OPTIONS', '/events', { remoteAddress: address })).status, 204);
  });

  it('frees the address once the failures are older than 15 minutes', async () => {
    const address = '198.51.100.9';
    for (let i = 0; i < 100; i++) await h.request('GET', '/events', { remoteAddress: address });
    assertError(await h.request('GET', '/events', { remoteAddress: address }), 429, 'rate_limited');
    clock += 16 * 60_000;
    assertError(await h.request('GET', '/events', { remoteAddress: address }), 401, 'unauthorized');
  });

  it('never counts /health, /openapi.json, OPTIONS, unknown paths or 405s as failures', async () => {
    const address = '198.51.100.10';
    for (let i = 0; i < 120; i++) {
      await h.request('GET', '/health', { remoteAddress: address });
      await h.request('GET', '/openapi.json', { remoteAddress: address });
      await h.request('OPTIONS', '/events', { remoteAddress: address });
      await h.request('GET', '/nowhere', { remoteAddress: address });
      await h.request('PATCH', '/events', { remoteAddress: address });
    }
    assertError(await h.request('GET', '/events', { remoteAddress: address }), 401, 'unauthorized');
  });

  it('counts IPv6 addresses by their /64', async () => {
    for (let i = 0; i < 100; i++) await h.request('GET', '/events', { remoteAddress: `2001:db8:1:2::${(i + 1).toString(16)}` });
    assertError(await h.request('GET', '/events', { remoteAddress: '2001:db8:1:2:ffff::1' }), 429, 'rate_limited');
    assertError(await h.request('GET', '/events', { remoteAddress: '2001:db8:1:3::1' }), 401, 'unauthorized');
  });
});
