// The OWASP API Security Top 10 (2023) points that apply to this service, plus: X-Forwarded-For is never trusted.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newSecret } from '../../src/auth/api-key.js';
import { createLogger } from '../../src/log/logger.js';
import { rawExchange } from '../api/support.js';
import { eventBody, startHarness, type Harness, type TestResponse } from '../helpers/harness.js';
import { assertErrorShape, send, startLive, type LiveResponse, type LiveServer } from './support.js';

function assertRefused(response: TestResponse, status: number, code: string, what: string): void {
  assert.equal(response.status, status, `${what}: ${response.status} ${response.text ?? ''}`);
  assert.equal(assertErrorShape(response.status, response.headers['Content-Type'], response.text ?? '', what).error, code, what);
}

function fields(response: TestResponse): string[] {
  return (response.json.details as { field: string }[]).map((detail) => detail.field).sort();
}

describe('API1 broken object level authorization: another organizer\'s event', () => {
  let h: Harness;
  let id: string;
  let before_: TestResponse;
  before(async () => {
    h = await startHarness();
    id = (await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody() })).json.id;
    before_ = await h.request('GET', `/events/${id}`, { key: h.keys.reader });
  });
  after(() => h.close());

  async function assertUnchanged(): Promise<void> {
    const now = await h.request('GET', `/events/${id}`, { key: h.keys.reader });
    assert.deepEqual(now.json, before_.json);
    assert.equal(now.headers['ETag'], before_.headers['ETag']);
  }

  for (const prefix of ['', '/v1']) {
    it(`cannot be changed or deleted by another organizer (${prefix || 'no prefix'}), even with its current ETag`, async () => {
      const headerSets: Record<string, string>[] = [{}, { 'If-Match': before_.headers['ETag']! }, { 'If-Match': '*' }];
      for (const headers of headerSets) {
        assertRefused(await h.request('PUT', `${prefix}/events/${id}`, { key: h.keys.other, body: { title: 'Taken over' }, headers }), 403, 'forbidden', 'PUT by another organizer');
        assertRefused(await h.request('DELETE', `${prefix}/events/${id}`, { key: h.keys.other, headers }), 403, 'forbidden', 'DELETE by another organizer');
      }
      await assertUnchanged();
    });
  }

  it('answers another organizer 403 before looking at the body, so an invalid body teaches nothing', async () => {
    assertRefused(await h.request('PUT', `/events/${id}`, { key: h.keys.other, body: { capacity: 'many', nonsense: 1 } }), 403, 'forbidden', 'PUT with a bad body');
    await assertUnchanged();
  });

  it('cannot be changed by sending the owner\'s identity as organizer', async () => {
    const owner = before_.json.organizer;
    assertRefused(await h.request('PUT', `/events/${id}`, { key: h.keys.other, body: { organizer: owner, title: 'Mine now' } }), 403, 'forbidden', 'PUT claiming the owner');
    await assertUnchanged();
  });

  it('is matched by e-mail without regard to case, and by nothing less than the whole address', async () => {
    const upper = await h.request('POST', '/events', { key: h.keys.admin, body: eventBody({ organizer: { name: 'Olivia Organizer', email: 'OLIVIA@Campus.EDU' } }) });
    assert.equal((await h.request('PUT', `/events/${upper.json.id}`, { key: h.keys.organizer, body: { capacity: 7 } })).status, 200);
    const lookalike = await h.request('POST', '/events', { key: h.keys.admin, body: eventBody({ organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu.example.com' } }) });
    assertRefused(await h.request('PUT', `/events/${lookalike.json.id}`, { key: h.keys.organizer, body: { capacity: 7 } }), 403, 'forbidden', 'a lookalike address');
  });

  it('does not tell a caller without a key whether the event exists', async () => {
    const known = await h.request('DELETE', `/events/${id}`);
    const unknown = await h.request('DELETE', '/events/evt_0000000000000000000000');
    assert.equal(known.status, 401);
    assert.deepEqual([unknown.status, unknown.json], [known.status, known.json]);
    await assertUnchanged();
  });
});

describe('API2 broken authentication: keys never appear in logs or responses', () => {
  let live: LiveServer;
  let log = '';
  let keyFile = '';
  const responses: { what: string; response: LiveResponse }[] = [];
  before(async () => {
    live = await startLive({ logger: createLogger({ level: 'debug', write: (text) => (log += text) }) });
    const agent = new http.Agent({ keepAlive: true, timeout: 30_000 });
    const unknownKey = newSecret(randomBytes);
    const call = async (what: string, method: string, target: string, headers: Record<string, string>, body?: string): Promise<void> => {
      responses.push({ what, response: await send(live.port, agent, { method, path: target, headers, ...(body === undefined ? {} : { body }) }) });
    };
    for (const [role, key] of Object.entries(live.keys)) {
      await call(`${role} lists`, 'GET', '/events', { authorization: `Bearer ${key}` });
      await call(`${role} creates`, 'POST', '/events', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, JSON.stringify(eventBody()));
      await call(`${role} sends a bad body`, 'POST', '/events', { authorization: `bearer ${key}`, 'content-type': 'application/json' }, '{"capacity":"x"}');
      await call(`${role} key as Basic`, 'GET', '/events', { authorization: `Basic ${key}` });
      await call(`${role} key in a query`, 'GET', `/events?api_key=${key}`, { authorization: `Bearer ${key}` });
      await call(`${role} key as a request id`, 'GET', '/health', { 'x-request-id': key });
      await call(`${role} key in an unknown field`, 'POST', '/events', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, JSON.stringify({ api_key: key }));
    }
    await call('an unknown well-formed key', 'GET', '/events', { authorization: `Bearer ${unknownKey}` });
    await call('an unknown key with a typo', 'GET', '/events', { authorization: `Bearer ${live.keys.admin.slice(0, -1)}x` });
    await call('an unknown key in a query', 'GET', `/events?key=${unknownKey}`, {});
    responses.push({ what: 'two Authorization headers', response: toLive(await rawExchange(live.port, [`GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live.keys.admin}\r\nAuthorization: Bearer ${unknownKey}\r\nConnection: close\r\n\r\n`])) });
    // Only the log sees a key in a path (a 404 names the id it was given back to the caller who sent it).
    await send(live.port, agent, { method: 'GET', path: `/events/${live.keys.admin}`, headers: { authorization: `Bearer ${live.keys.reader}` } });
    await send(live.port, agent, { method: 'GET', path: `/nowhere/${unknownKey}`, headers: {} });
    agent.destroy();
    keyFile = readFileSync(path.join(live.dataDir, 'keys.json'), 'utf8');
    await live.close();
  });

  const KEY_SHAPED = /cek_[0-9A-Za-z_-]{8,}/;

  it('writes request lines for the run, none holding a key or anything shaped like one', () => {
    assert.ok(log.split('\n').filter((line) => line.includes('"msg":"request"')).length >= responses.length, 'every request was logged');
    for (const secret of Object.values(live.keys)) assert.ok(!log.includes(secret), 'a real key appears in the log');
    const leaked = KEY_SHAPED.exec(log);
    assert.equal(leaked, null, `the log holds ${leaked?.[0]}`);
    assert.match(log, /cek_\[redacted\]/, 'keys in request targets were redacted, not dropped with the line');
  });

  it('sends no key back in any response body or header, but X-Request-Id echoing what its sender put there (API.md §5)', () => {
    for (const { what, response } of responses) {
      const headers = { ...response.headers };
      if (what.endsWith('key as a request id')) {
        assert.match(String(headers['x-request-id']), /^cek_/, `${what}: echoed as sent`);
        delete headers['x-request-id'];
      }
      const text = response.text + JSON.stringify(headers);
      for (const secret of Object.values(live.keys)) assert.ok(!text.includes(secret), `${what}: a real key in the response`);
      assert.equal(KEY_SHAPED.exec(text), null, `${what}: ${KEY_SHAPED.exec(text)?.[0]} in the response`);
    }
  });

  it('stores only hashes in keys.json', () => {
    assert.match(keyFile, /ada@campus\.edu/, 'the file was read');
    for (const secret of Object.values(live.keys)) {
      assert.ok(!keyFile.includes(secret), 'a key is stored in clear');
      assert.ok(!keyFile.includes(secret.slice(4, 20)), 'part of a key is stored in clear');
    }
  });
});

describe('API3 broken object property level authorization: mass assignment', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  async function total(): Promise<number> {
    return (await h.request('GET', '/events?limit=1', { key: h.keys.reader })).json.total;
  }

  it('refuses id, registered_count, created_at and organizer on create by an organizer, all four named, nothing stored', async () => {
    const before_ = await total();
    const response = await h.request('POST', '/events', {
      key: h.keys.organizer,
      body: eventBody({ id: 'evt_chosenByTheClient0000', registered_count: 99, created_at: '2020-01-01T00:00:00.000Z', organizer: { name: 'Ada Admin', email: 'ada@campus.edu' } }),
    });
    assertRefused(response, 400, 'validation_failed', 'mass assignment on create');
    assert.deepEqual(fields(response), ['created_at', 'id', 'organizer', 'registered_count']);
    assert.equal(await total(), before_);
  });

  it('refuses a changed id, registered_count, created_at or organizer on update, leaving the event as it was', async () => {
    const created = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ capacity: 10 }) });
    const id = created.json.id as string;
    const read = await h.request('GET', `/events/${id}`, { key: h.keys.reader });
    const changes: Record<string, unknown>[] = [
      { id: 'evt_0000000000000000000000' },
      { registered_count: 10 },
      { registered_count: -1 },
      { created_at: '2000-01-01T00:00:00.000Z' },
      { organizer: { name: 'Oscar Other', email: 'oscar@campus.edu' } },
      { organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu', role: 'admin' } },
      { role: 'admin' },
      { organizer_email: 'oscar@campus.edu' },
    ];
    for (const change of changes) {
      const response = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { title: 'Changed', ...change } });
      assertRefused(response, 400, 'validation_failed', JSON.stringify(change));
      assert.ok(fields(response).some((field) => field.startsWith(Object.keys(change)[0]!)), `${JSON.stringify(change)}: ${fields(response)}`);
    }
    const after_ = await h.request('GET', `/events/${id}`, { key: h.keys.reader });
    assert.deepEqual(after_.json, read.json);
    assert.equal(after_.headers['ETag'], read.headers['ETag']);
    assertRefused(await h.request('DELETE', `/events/${id}`, { key: h.keys.other }), 403, 'forbidden', 'ownership did not move');
  });

  it('accepts read-only fields sent back unchanged (a client may PUT what it read)', async () => {
    const created = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody() });
    const read = await h.request('GET', `/events/${created.json.id}`, { key: h.keys.reader });
    const response = await h.request('PUT', `/events/${created.json.id}`, { key: h.keys.organizer, body: { ...read.json, created_at: created.json.created_at } });
    assert.equal(response.status, 200, response.text ?? '');
    assert.deepEqual(response.json, read.json);
  });

  it('does not let __proto__ or constructor reach the prototype', async () => {
    for (const body of ['{"__proto__":{"role":"admin","title":"x"}}', '{"constructor":{"prototype":{"role":"admin"}}}', JSON.stringify(eventBody()).replace('{', '{"__proto__":{"registered_count":5},')]) {
      assertRefused(await h.request('POST', '/events', { key: h.keys.organizer, body, headers: { 'content-type': 'application/json' } }), 400, 'validation_failed', body.slice(0, 40));
    }
    assert.equal(({} as Record<string, unknown>)['role'], undefined);
    assert.equal(({} as Record<string, unknown>)['registered_count'], undefined);
  });
});

describe('API4 unrestricted resource consumption: every size has a cap', () => {
  let live: LiveServer;
  before(async () => {
    live = await startLive();
  });
  after(() => live.close());

  function get(target: string): Promise<LiveResponse> {
    return send(live.port, new http.Agent(), { method: 'GET', path: target, headers: { authorization: `Bearer ${live.keys.reader}` } });
  }

  it('pages at most 100 events: limit=100 is served, limit=101 is a 400 naming limit', async () => {
    assert.equal((await get('/events?limit=100')).status, 200);
    for (const limit of ['101', '1000000', '0', '-1', '1e2']) {
      const response = await get(`/events?limit=${limit}`);
      assert.equal(response.status, 400, limit);
      assert.match(assertErrorShape(response.status, response.headers['content-type'], response.text, limit).message, /limit/);
    }
  });

  it('reads a body of 64 KiB and refuses 64 KiB + 1 with 413', async () => {
    const base = JSON.stringify(eventBody({ description: '' }));
    const exact = base.replace('"description":""', `"description":"${' '.repeat(64 * 1024 - base.length)}"`);
    const agent = new http.Agent();
    const headers = { authorization: `Bearer ${live.keys.organizer}`, 'content-type': 'application/json' };
    const ok = await send(live.port, agent, { method: 'POST', path: '/events', headers, body: exact });
    assert.equal(ok.status, 400, 'read whole: the description is over 5000 characters');
    assert.equal(JSON.parse(ok.text).error, 'validation_failed');
    const over = await send(live.port, agent, { method: 'POST', path: '/events', headers, body: `${exact} ` });
    assert.equal(over.status, 413);
    assert.equal(over.headers['connection'], 'close');
  });

  it('refuses request line and headers over 16 KiB with 431', async () => {
    const response = await rawExchange(live.port, [`GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live.keys.reader}\r\nX-Pad: ${'p'.repeat(16 * 1024)}\r\n\r\n`]);
    assert.equal(response.status, 431);
    assert.equal(JSON.parse(response.body).error, 'headers_too_large');
  });
});

describe('API5 broken function level authorization: no role escalation', () => {
  let h: Harness;
  let adminEvent: string;
  before(async () => {
    h = await startHarness();
    adminEvent = (await h.request('POST', '/events', { key: h.keys.admin, body: eventBody() })).json.id;
  });
  after(() => h.close());

  it('refuses a reader every write with 403, before any lookup of the id', async () => {
    for (const id of [adminEvent, 'evt_0000000000000000000000']) {
      assertRefused(await h.request('PUT', `/events/${id}`, { key: h.keys.reader, body: { title: 'x' } }), 403, 'forbidden', 'reader PUT');
      assertRefused(await h.request('DELETE', `/events/${id}`, { key: h.keys.reader }), 403, 'forbidden', 'reader DELETE');
    }
    assertRefused(await h.request('POST', '/events', { key: h.keys.reader, body: eventBody() }), 403, 'forbidden', 'reader POST');
    assertRefused(await h.request('POST', '/v1/events', { key: h.keys.reader, body: eventBody() }), 403, 'forbidden', 'reader POST under /v1');
  });

  it('refuses an organizer acting as admin: no organizer of its choosing, on create or update', async () => {
    const asAdmin = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ organizer: { name: 'Ada Admin', email: 'ada@campus.edu' } }) });
    assertRefused(asAdmin, 400, 'validation_failed', 'organizer sets organizer on create');
    assert.deepEqual(fields(asAdmin), ['organizer']);
    const own = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody() });
    const handOver = await h.request('PUT', `/events/${own.json.id}`, { key: h.keys.organizer, body: { organizer: { name: 'Ada Admin', email: 'ada@campus.edu' } } });
    assertRefused(handOver, 400, 'validation_failed', 'organizer sets organizer on update');
    assertRefused(await h.request('PUT', `/events/${adminEvent}`, { key: h.keys.organizer, body: { title: 'x' } }), 403, 'forbidden', 'organizer edits an admin event');
    assertRefused(await h.request('DELETE', `/events/${adminEvent}`, { key: h.keys.organizer }), 403, 'forbidden', 'organizer deletes an admin event');
  });

  it('lets an admin set organizer on create and update (the control)', async () => {
    const created = await h.request('POST', '/events', { key: h.keys.admin, body: eventBody({ organizer: { name: 'Oscar Other', email: 'oscar@campus.edu' } }) });
    assert.equal(created.status, 201);
    assert.equal((await h.request('PUT', `/events/${created.json.id}`, { key: h.keys.other, body: { capacity: 3 } })).status, 200);
    const moved = await h.request('PUT', `/events/${created.json.id}`, { key: h.keys.admin, body: { organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu' } } });
    assert.equal(moved.status, 200);
    assertRefused(await h.request('PUT', `/events/${created.json.id}`, { key: h.keys.other, body: { capacity: 4 } }), 403, 'forbidden', 'the previous organizer');
  });
});

describe('X-Forwarded-For is not trusted by the failed-authentication throttle', () => {
  let live: LiveServer;
  before(async () => {
    live = await startLive();
  });
  after(() => live.close());

  it('counts failures against the socket address, whatever X-Forwarded-For, X-Real-IP or Forwarded claim', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8, timeout: 30_000 });
    try {
      const spoofed = (i: number): Record<string, string> => ({
        authorization: 'Bearer cek_wrong',
        'x-forwarded-for': `10.${i >> 8}.${i & 255}.1, 127.0.0.2`,
        'x-real-ip': `10.1.${i & 255}.9`,
        forwarded: `for=192.0.2.${i & 255}`,
      });
      const failures = await Promise.all(Array.from({ length: 100 }, (_, i) => send(live.port, agent, { method: 'GET', path: '/events', headers: spoofed(i) })));
      assert.deepEqual([...new Set(failures.map((response) => response.status))], [401]);
      const blocked = await send(live.port, agent, { method: 'GET', path: '/events', headers: spoofed(100) });
      assert.equal(blocked.status, 429, 'the 101st failure from this socket address is refused, whatever it claims');
      assert.ok(Number(blocked.headers['retry-after']) >= 1);
      const good = await send(live.port, agent, { method: 'GET', path: '/events', headers: { authorization: `Bearer ${live.keys.reader}` } });
      assert.equal(good.status, 200, 'a good key is never limited by address');
      const elsewhere = await send(live.port, agent, { method: 'GET', path: '/events', localAddress: '127.0.0.2', headers: { 'x-forwarded-for': '127.0.0.1' } });
      assert.equal(elsewhere.status, 401, 'another socket address is not blocked by claiming the blocked one, nor by being named in X-Forwarded-For');
    } finally {
      agent.destroy();
    }
  });
});

/** A raw-socket response in the shape of a LiveResponse. */
function toLive(response: { status: number; headers: Record<string, string>; body: string }): LiveResponse {
  return { status: response.status, headers: response.headers, text: response.body };
}
