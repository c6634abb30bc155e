// The served OpenAPI document against real exchanges, checked by Ajv (test/helpers/openapi-check.ts), and against
// Redocly's recommended lint rules (@redocly/openapi-core): every status the server gives on each operation, under
// / and /v1, is described. Every in-process API test is checked the same way through the harness.
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { createApp } from '../../src/app.js';
import { call, eventBody, startHarness, type Harness } from '../helpers/harness.js';
import { OpenApiChecker } from '../helpers/openapi-check.js';

describe('every status of every operation, checked against the served document', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ rateLimit: 1000 })));
  after(async () => await h.close());

  /** Sends a request through the harness (which checks it against the document) and asserts its status. */
  async function expect(status: number, method: string, target: string, options: Parameters<Harness['request']>[2] = {}): Promise<Awaited<ReturnType<Harness['request']>>> {
    const response = await h.request(method, target, options);
    assert.equal(response.status, status, `${method} ${target}: ${response.text}`);
    return response;
  }

  it('e-mail addresses the service takes are ones the document describes: letters outside ASCII, dots anywhere in the local part', async () => {
    const { admin, reader } = h.keys;
    for (const address of ['zoë@campus.edu', 'x@campus.édu', 'a..b@campus.edu']) {
      const created = await expect(201, 'POST', '/events', { key: admin, body: eventBody({ organizer: { name: 'Zoë', email: address }, start_time: '2099-09-01T17:00:00Z', end_time: '2099-09-01T19:00:00Z' }) });
      const read = await expect(200, 'GET', `/events/${created.json.id}`, { key: reader });
      assert.equal(read.json.organizer.email, address);
      const registered = await expect(201, 'POST', `/events/${created.json.id}/registrations`, { key: reader, body: { name: 'Jürgen', email: address } });
      await expect(200, 'GET', `/events/${created.json.id}/registrations/${registered.json.id}`, { key: reader });
    }
  });

  it('the events operations: successes, 304s, and each of their errors, under / and /v1', async () => {
    for (const prefix of ['', '/v1']) {
      const { admin, organizer, other, reader } = h.keys;
      const created = await expect(201, 'POST', `${prefix}/events`, { key: organizer, body: eventBody({ registered_count: 0 }) });
      const id = created.json.id as string;
      const listed = await expect(200, 'GET', `${prefix}/events?limit=1`, { key: reader });
      await expect(304, 'GET', `${prefix}/events?limit=1`, { key: reader, headers: { 'If-None-Match': listed.headers['ETag']! } });
      await expect(200, 'HEAD', `${prefix}/events`, { key: reader });
      const read = await expect(200, 'GET', `${prefix}/events/${id}`, { key: reader });
      await expect(304, 'GET', `${prefix}/events/${id}`, { key: reader, headers: { 'If-None-Match': read.headers['ETag']! } });
      await expect(200, 'HEAD', `${prefix}/events/${id}`, { key: reader });
      // A client may PUT what it read, read-only fields and all (API.md §4).
      await expect(200, 'PUT', `${prefix}/events/${id}`, { key: organizer, body: { ...read.json, capacity: 200 } });
      await expect(400, 'GET', `${prefix}/events?limit=0`, { key: reader });
      await expect(400, 'POST', `${prefix}/events`, { key: organizer, body: '{"title":', headers: { 'Content-Type': 'application/json' } });
      await expect(400, 'POST', `${prefix}/events`, { key: organizer, body: { title: '' } });
      await expect(401, 'GET', `${prefix}/events`);
      await expect(403, 'POST', `${prefix}/events`, { key: reader, body: eventBody() });
      await expect(403, 'PUT', `${prefix}/events/${id}`, { key: other, body: { capacity: 3 } });
      await expect(404, 'GET', `${prefix}/events/evt_nope`, { key: reader });
      await expect(405, 'PATCH', `${prefix}/events/${id}`, { key: reader });
      await expect(405, 'DELETE', `${prefix}/events`, { key: reader });
      await expect(405, 'get', `${prefix}/events`, { key: reader });
      await expect(412, 'PUT', `${prefix}/events/${id}`, { key: organizer, body: { capacity: 3 }, headers: { 'If-Match': '"stale"' } });
      await expect(413, 'GET', `${prefix}/events`, { key: reader, body: 'x'.repeat(70 * 1024), headers: { 'Content-Type': 'application/json' } });
      await expect(415, 'DELETE', `${prefix}/events/${id}`, { key: organizer, body: 'x', headers: { 'Content-Type': 'text/plain' } });
      await expect(415, 'POST', `${prefix}/events`, { key: organizer, body: 'x', headers: { 'Content-Type': 'text/plain' } });
      await expect(204, 'OPTIONS', `${prefix}/events/${id}`);
      await expect(204, 'DELETE', `${prefix}/events/${id}`, { key: admin });
      await expect(404, 'DELETE', `${prefix}/events/${id}`, { key: admin });
    }
  });

  it('a series whose deletes took its exdates past 500 is read, listed and sent back as read within the document', async () => {
    const { organizer, reader } = h.keys;
    // 506 daily dates, 500 of them left out: six occurrences, one of which is then deleted alone.
    const firstMs = Date.UTC(2031, 0, 1, 9);
    const exdates = Array.from({ length: 500 }, (_, day) => new Date(firstMs + (day + 5) * 86_400_000).toISOString());
    const made = await expect(201, 'POST', '/series', {
      key: organizer,
      body: { title: 'Daily stand-up', category: 'academic', location: 'Room 1', capacity: 5, time_zone: 'UTC', start_time: new Date(firstMs).toISOString(), end_time: new Date(firstMs + 900_000).toISOString(), recurrence: 'FREQ=DAILY;UNTIL=20320520', exdates },
    });
    const occurrences = await expect(200, 'GET', `/events?series_id=${made.json.id}`, { key: reader });
    await expect(204, 'DELETE', `/events/${occurrences.json.events[1].id}`, { key: organizer });
    const read = await expect(200, 'GET', `/series/${made.json.id}`, { key: organizer });
    assert.equal(read.json.exdates.length, 501);
    await expect(200, 'GET', '/series?limit=100', { key: organizer });
    await expect(200, 'PUT', `/series/${made.json.id}`, { key: organizer, body: read.json });
  });

  it('the service operations and the unknown path', async () => {
    await expect(200, 'GET', '/health');
    await expect(200, 'HEAD', '/health');
    await expect(200, 'GET', '/v1/openapi.json');
    await expect(204, 'OPTIONS', '/openapi.json');
    await expect(405, 'POST', '/health', { body: {} });
    await expect(404, 'GET', '/nowhere');
    await expect(400, 'GET', '//events');
  });
});

test('a 429 of the rate limit is described', async () => {
  const h = await startHarness({ rateLimit: 1 });
  try {
    assert.equal((await h.request('GET', '/events', { key: h.keys.reader })).status, 200);
    assert.equal((await h.request('GET', '/events', { key: h.keys.reader })).status, 429);
  } finally {
    await h.close();
  }
});

test('OpenApiChecker finds what validators found in the document as it was: readOnly fields sent back, an undocumented status, a wrong body', () => {
  const doc = {
    openapi: '3.1.0',
    servers: [{ url: '/' }, { url: '/v1' }],
    paths: {
      '/events/{id}': {
        put: {
          operationId: 'updateEvent',
          requestBody: { content: { 'application/json': { schema: { type: 'object', additionalProperties: false, properties: { id: { type: 'string', readOnly: true }, capacity: { type: 'integer' } } } } } },
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } } } },
        },
      },
    },
    components: { responses: {} },
  };
  const checker = new OpenApiChecker(doc);
  const exchange = { method: 'PUT', target: '/v1/events/evt_1', requestBody: { id: 'evt_1', capacity: 2 }, status: 200, headers: {}, body: '{"id":"evt_1"}' };
  assert.deepEqual(checker.problems({ ...exchange, requestBody: { capacity: 2 } }), []);
  assert.match(checker.problems(exchange).join('\n'), /has id, which the request schema marks readOnly/);
  assert.match(checker.problems({ ...exchange, requestBody: { capacity: 2 }, status: 409 }).join('\n'), /status 409 is not documented for updateEvent/);
  assert.match(checker.problems({ ...exchange, requestBody: { capacity: 2 }, body: '{}' }).join('\n'), /body does not match the schema/);
});

test('the served document is clean under Redocly\'s recommended lint rules', async () => {
  for (const basePath of [undefined, '/api/campus']) {
    const app = await createApp({ store: 'memory', bootstrapAdminKey: false, keyPollMs: 0, ...(basePath === undefined ? {} : { basePath }) });
    try {
      const served = await call(app, 'GET', `${basePath ?? ''}/openapi.json`);
      const config = await createConfig({ extends: ['recommended'] });
      const problems = await lintFromString({ source: served.text!, absoluteRef: 'openapi.json', config });
      assert.deepEqual(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? '?'}`), []);
    } finally {
      await app.close();
    }
  }
});

test("the document's CORS paragraph names each Access-Control header the server sends, with its value", async () => {
  const origin = 'https://app.campus.edu';
  const h = await startHarness({ corsOrigins: [origin] });
  try {
    const description = ((await h.request('GET', '/openapi.json')).json as { info: { description: string } }).info.description;
    const preflight = await h.request('OPTIONS', '/events', { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
    const read = await h.request('GET', '/events/evt_nope', { key: h.keys.reader, headers: { origin } });
    assert.equal(read.status, 404);
    const sent = { ...preflight.headers, ...read.headers };
    const names = Object.keys(sent).filter((name) => /^access-control-/i.test(name));
    assert.deepEqual(names.map((name) => name.toLowerCase()).sort(), ['access-control-allow-headers', 'access-control-allow-methods', 'access-control-allow-origin', 'access-control-expose-headers', 'access-control-max-age']);
    for (const name of names) assert.ok(description.includes(name), `the document names ${name}`);
    for (const name of ['Access-Control-Expose-Headers', 'Access-Control-Allow-Headers', 'Access-Control-Max-Age']) {
      assert.ok(description.includes(`${name}: ${sent[name]}`), `the document gives ${name}'s value, ${sent[name]}`);
    }
    assert.ok(description.includes('Vary: Origin') && sent['Vary'] === 'Origin');
    // And what API.md §5 names, written here rather than read from the constants both sides use.
    assert.equal(sent['Access-Control-Max-Age'], '600');
    for (const name of ['ETag', 'Location', 'Link', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) assert.ok(sent['Access-Control-Expose-Headers']!.split(', ').includes(name), `exposes ${name}`);
    for (const name of ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match']) assert.ok(sent['Access-Control-Allow-Headers']!.split(', ').includes(name), `allows ${name}`);
    assert.deepEqual(sent['Access-Control-Allow-Methods']!.split(', ').sort(), ['GET', 'HEAD', 'OPTIONS', 'POST']);
  } finally {
    await h.close();
  }
});
