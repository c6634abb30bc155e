// Whole-request tests of the common headers (API.md §5): API-Version, X-Request-Id, Allow, OPTIONS, HEAD and CORS.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventBody, startHarness, type Harness, type TestResponse } from '../helpers/harness.js';
import { assertError, createEvent, handleRaw } from './support.js';

const REQUEST_ID = /^[A-Za-z0-9._~:/+=-]{1,128}$/;

describe('API-Version and X-Request-Id', () => {
  let h: Harness;
  let id: string;
  before(async () => {
    h = await startHarness();
    id = (await createEvent(h, h.keys.organizer)).id;
  });
  after(() => h.close());

  /** One response of every kind: success, created, no content, not modified, options and errors. */
  async function variety(headers: Record<string, string> = {}): Promise<TestResponse[]> {
    const etag = (await h.request('GET', `/events/${id}`, { key: h.keys.reader })).headers['ETag']!;
    const created = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers });
    return [
      await h.request('GET', '/events', { key: h.keys.reader, headers }),
      created,
      await h.request('DELETE', `/events/${created.json.id}`, { key: h.keys.organizer, headers }),
      await h.request('GET', `/events/${id}`, { key: h.keys.reader, headers: { ...headers, 'If-None-Match': etag } }),
      await h.request('OPTIONS', '/events', { headers }),
      await h.request('HEAD', '/events', { key: h.keys.reader, headers }),
      await h.request('GET', '/health', { headers }),
      await h.request('GET', '/nowhere', { headers }),
      await h.request('GET', '/events', { headers }),
      await h.request('PATCH', '/events', { headers }),
      await h.request('GET', '/events?limit=0', { key: h.keys.reader, headers }),
      await h.request('GET', '//events', { headers }),
    ];
  }

  it('sends API-Version: 1.0 on every response', async () => {
    const responses = await variety();
    assert.deepEqual(responses.map((r) => r.status), [200, 201, 204, 304, 204, 200, 200, 404, 401, 405, 400, 400]);
    for (const response of responses) assert.equal(response.headers['API-Version'], '1.0', `status ${response.status}`);
  });

  it('echoes a well-formed X-Request-Id on every response', async () => {
    const requestId = 'abc.DEF_123~:/+=-xyz';
    for (const response of await variety({ 'X-Request-Id': requestId })) assert.equal(response.headers['X-Request-Id'], requestId, `status ${response.status}`);
  });

  it('echoes 1 and 128 characters, and replaces 0, 129 and characters outside the set', async () => {
    for (const requestId of ['a', 'Z'.repeat(128)]) {
      const response = await h.request('GET', '/events', { key: h.keys.reader, headers: { 'X-Request-Id': requestId } });
      assert.equal(response.headers['X-Request-Id'], requestId);
    }
    for (const requestId of ['', 'Z'.repeat(129), 'has space', 'semi;colon', 'quote"', 'comma,', 'ü', '<script>', 'a\tb']) {
      const response = await h.request('GET', '/events', { key: h.keys.reader, headers: { 'X-Request-Id': requestId } });
      const sent = response.headers['X-Request-Id'];
      assert.notEqual(sent, requestId);
      assert.match(sent ?? '', REQUEST_ID);
    }
  });

  it('makes a new, valid and distinct id when none is sent', async () => {
    const seen = new Set<string>();
    for (const response of await variety()) {
      const sent = response.headers['X-Request-Id'] ?? '';
      assert.match(sent, REQUEST_ID);
      assert.ok(!seen.has(sent), `id ${sent} repeated`);
      seen.add(sent);
    }
  });
});

describe('Allow, OPTIONS and HEAD', () => {
  let h: Harness;
  let id: string;
  before(async () => {
    h = await startHarness();
    id = (await createEvent(h, h.keys.organizer)).id;
  });
  after(() => h.close());

  const ALLOW: [string, string[]][] = [
    ['/events', ['GET', 'HEAD', 'POST', 'OPTIONS']],
    ['/events/evt_anyAnyAnyAnyAnyAny', ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']],
    ['/health', ['GET', 'HEAD', 'OPTIONS']],
    ['/openapi.json', ['GET', 'HEAD', 'OPTIONS']],
  ];

  function methods(header: string | undefined): string[] {
    return (header ?? '').split(',').map((method) => method.trim()).sort();
  }

  for (const [path, expected] of ALLOW) {
    it(`OPTIONS ${path} answers 204 with Allow listing ${expected.join(', ')}, without a key`, async () => {
      for (const prefix of ['', '/v1']) {
        const response = await h.request('OPTIONS', prefix + path);
        assert.equal(response.status, 204);
        assert.equal(response.text, null);
        assert.deepEqual(methods(response.headers['Allow']), [...expected].sort());
      }
    });

    it(`405 on ${path} sends the same Allow`, async () => {
      const allowed = new Set(expected);
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !allowed.has(m))) {
        const response = await h.request(method, path, { key: h.keys.admin });
        const body = assertError(response, 405, 'method_not_allowed');
        assert.deepEqual(methods(response.headers['Allow']), [...expected].sort());
        assert.ok(body.message.includes(method), body.message);
      }
    });
  }

  it('OPTIONS * (the server as a whole, RFC 9110) answers 204 with every method some path allows; any other method on * is a 400', async () => {
    // Straight to the app: an OpenAPI document names paths only, so the harness's check has nothing to match `*` with.
    const asterisk = (method: string) => h.app.handle({ method, target: '*', headers: { authorization: `Bearer ${h.keys.admin}` }, body: null, bodyTooLarge: false, remoteAddress: '127.0.0.1' });
    const response = await asterisk('OPTIONS');
    assert.equal(response.status, 204);
    assert.equal(response.body, null);
    assert.deepEqual(methods(response.headers['Allow']), ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
    assert.equal(response.headers['API-Version'], '1.0');
    const get = await asterisk('GET');
    assert.equal(get.status, 400);
    assert.equal(JSON.parse(get.body ?? '').error, 'bad_request');
  });

  it('OPTIONS on an unknown path is a 404', async () => {
    assertError(await h.request('OPTIONS', '/nowhere'), 404, 'not_found');
  });

  it('an unknown path is a 404 naming it as sent, its /v1 included', async () => {
    for (const path of ['/nowhere', '/v1/nowhere', '/v1/v1/events/evt_x']) {
      const body = assertError(await h.request('GET', path, { key: h.keys.admin }), 404, 'not_found');
      assert.equal(body.message, `No resource at ${path}; see /openapi.json for the paths this API has.`);
    }
  });

  it('HEAD answers wherever GET does, with the GET headers and no body', async () => {
    for (const target of ['/events', '/events?limit=1', `/events/${id}`, `/v1/events/${id}`, '/health', '/openapi.json']) {
      const get = await h.request('GET', target, { key: h.keys.reader });
      const head = await h.app.handle({ method: 'HEAD', target, headers: { authorization: `Bearer ${h.keys.reader}` }, body: null, bodyTooLarge: false, remoteAddress: '127.0.0.1' });
      assert.equal(head.status, get.status, target);
      assert.equal(head.headers['Content-Type'], get.headers['Content-Type']);
      assert.equal(head.headers['ETag'], get.headers['ETag']);
      assert.equal(head.body, get.text, 'the core gives the GET body; the adapter drops it (see socket.test.ts)');
    }
  });

  it('HEAD of an unknown id is a 404, and HEAD needs a key where GET does', async () => {
    assert.equal((await h.request('HEAD', '/events/evt_nopeNopeNopeNope', { key: h.keys.reader })).status, 404);
    assert.equal((await h.request('HEAD', '/events')).status, 401);
  });
});

describe('rate-limit headers', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ rateLimit: 5, rateWindow: 600 })));
  after(() => h.close());

  it('are on every authenticated response, errors included, and not on unauthenticated ones', async () => {
    const responses = [
      await h.request('GET', '/events', { key: h.keys.reader }),
      await h.request('GET', '/events/evt_nopeNopeNopeNope', { key: h.keys.reader }),
      await h.request('POST', '/events', { key: h.keys.reader, body: eventBody() }),
      await h.request('GET', '/events?page=0', { key: h.keys.reader }),
    ];
    assert.deepEqual(responses.map((r) => r.status), [200, 404, 403, 400]);
    responses.forEach((response, index) => {
      const remaining = 5 - index - 1;
      assert.equal(response.headers['RateLimit-Limit'], '5');
      assert.equal(response.headers['RateLimit-Remaining'], String(remaining));
      const reset = Number(response.headers['RateLimit-Reset']);
      assert.ok(Number.isInteger(reset) && reset >= 0 && reset <= 600, `RateLimit-Reset ${reset}`);
      assert.equal(response.headers['RateLimit-Policy'], '"default";q=5;w=600');
      assert.equal(response.headers['RateLimit'], `"default";r=${remaining};t=${reset}`);
    });
    for (const response of [await h.request('GET', '/health'), await h.request('GET', '/events')]) {
      assert.equal(response.headers['RateLimit-Limit'], undefined);
      assert.equal(response.headers['RateLimit'], undefined);
    }
  });
});

describe('CORS with configured origins', () => {
  const ORIGIN = 'https://app.campus.edu';
  let h: Harness;
  before(async () => (h = await startHarness({ corsOrigins: [ORIGIN, 'http://localhost:5173'] })));
  after(() => h.close());

  function exposed(response: TestResponse): string[] {
    return (response.headers['Access-Control-Expose-Headers'] ?? '').split(',').map((name) => name.trim().toLowerCase());
  }

  it('marks responses to an allowed origin with its name, Vary: Origin and the exposed headers', async () => {
    const responses = [
      await h.request('GET', '/events', { key: h.keys.reader, headers: { Origin: ORIGIN } }),
      await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers: { Origin: ORIGIN } }),
      await h.request('GET', '/events', { headers: { Origin: ORIGIN } }),
      await h.request('GET', '/nowhere', { headers: { Origin: ORIGIN } }),
    ];
    assert.deepEqual(responses.map((r) => r.status), [200, 201, 401, 404]);
    for (const response of responses) {
      assert.equal(response.headers['Access-Control-Allow-Origin'], ORIGIN);
      assert.ok((response.headers['Vary'] ?? '').split(',').map((v) => v.trim()).includes('Origin'));
      const names = exposed(response);
      for (const name of ['etag', 'location', 'link', 'retry-after', 'www-authenticate', 'idempotent-replayed', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy', 'ratelimit']) {
        assert.ok(names.includes(name), `${name} exposed`);
      }
    }
  });

  it('gives no Allow-Origin to another origin, nor without Origin, but still Vary: Origin', async () => {
    const variants: Record<string, string>[] = [{ Origin: 'https://evil.example' }, { Origin: 'https://app.campus.edu.evil.example' }, {}];
    for (const headers of variants) {
      const response = await h.request('GET', '/events', { key: h.keys.reader, headers });
      assert.equal(response.status, 200);
      assert.equal(response.headers['Access-Control-Allow-Origin'], undefined);
      assert.equal(response.headers['Access-Control-Expose-Headers'], undefined);
      assert.equal(response.headers['Vary'], 'Origin');
    }
  });

  it('answers a preflight for an allowed origin without a key', async () => {
    const response = await h.request('OPTIONS', `/v1/events/evt_anyAnyAnyAnyAnyAny`, {
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'authorization, content-type, if-match' },
    });
    assert.equal(response.status, 204);
    assert.equal(response.headers['Access-Control-Allow-Origin'], 'http://localhost:5173');
    const methods = (response.headers['Access-Control-Allow-Methods'] ?? '').split(',').map((m) => m.trim());
    for (const method of ['GET', 'PUT', 'DELETE']) assert.ok(methods.includes(method), method);
    const allowedHeaders = (response.headers['Access-Control-Allow-Headers'] ?? '').split(',').map((name) => name.trim().toLowerCase());
    for (const name of ['authorization', 'content-type', 'if-match', 'if-none-match', 'idempotency-key', 'last-event-id']) assert.ok(allowedHeaders.includes(name), name);
    assert.ok(response.headers['Allow']);
  });

  it('answers a preflight of OPTIONS * as one of a path, with every method of the API', async () => {
    const headers = { origin: 'http://localhost:5173', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization' };
    const response = await h.app.handle({ method: 'OPTIONS', target: '*', headers, body: null, bodyTooLarge: false, remoteAddress: '127.0.0.1' });
    assert.equal(response.status, 204);
    assert.equal(response.headers['Access-Control-Allow-Origin'], 'http://localhost:5173');
    assert.deepEqual((response.headers['Access-Control-Allow-Methods'] ?? '').split(',').map((m) => m.trim()).sort(), ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
    assert.ok((response.headers['Access-Control-Allow-Headers'] ?? '').toLowerCase().includes('authorization'));
  });

  it('lets through a preflight whose request will be refused, so the page can read the refusal (404, 400, 405)', async () => {
    // Through the core itself: a preflight of a path the API does not have is no exchange its document describes.
    const preflight = (target: string, method: string, origin = 'http://localhost:5173') =>
      handleRaw(h.app, { method: 'OPTIONS', target, headers: { host: 'localhost', origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization' } });
    for (const [target, method] of [['/nowhere', 'GET'], ['/events?q=50%', 'GET'], ['/v1/v1/events', 'POST'], ['/events/evt_anyAnyAnyAnyAnyAny', 'PATCH']] as const) {
      const response = await preflight(target, method);
      assert.equal(response.status, 204, `${method} ${target}`);
      assert.equal(response.headers['Access-Control-Allow-Origin'], 'http://localhost:5173');
      assert.ok((response.headers['Access-Control-Allow-Methods'] ?? '').split(', ').includes(method), `${method} ${target}: ${response.headers['Access-Control-Allow-Methods']}`);
    }
    // The requests themselves then get their refusals, which name what was wrong, with Allow readable on a 405.
    const patched = await h.request('PATCH', '/events/evt_anyAnyAnyAnyAnyAny', { key: h.keys.organizer, headers: { Origin: 'http://localhost:5173' } });
    assertError(patched, 405, 'method_not_allowed');
    assert.ok(exposed(patched).includes('allow'));
    // Not a preflight (no origin allowed, or no method asked): what OPTIONS always was.
    assertError(await preflight('/nowhere', 'GET', 'https://evil.example'), 404, 'not_found');
    assertError(await handleRaw(h.app, { method: 'OPTIONS', target: '/nowhere', headers: { host: 'localhost', origin: 'http://localhost:5173' } }), 404, 'not_found');
    assertError(await preflight('/nowhere', 'GET\u0000'), 404, 'not_found');
  });

  it('answers preflights only for its own paths when mounted under a basePath', async () => {
    const mounted = await startHarness({ corsOrigins: ['http://localhost:5173'], basePath: '/api/campus' });
    try {
      const preflight = (target: string) =>
        handleRaw(mounted.app, { method: 'OPTIONS', target, headers: { host: 'localhost', origin: 'http://localhost:5173', 'access-control-request-method': 'PUT' } });
      assert.equal((await preflight('/api/campus/nowhere')).status, 204);
      assert.equal((await preflight('/api/campus?x=%zz')).status, 204);
      for (const outside of ['/other/thing', '/api/campusX/events', '/api']) assertError(await preflight(outside), 404, 'not_found');
    } finally {
      await mounted.close();
    }
  });

  it('marks every error answer no-store: a browser keeps a 410 without it for good', async () => {
    for (const [target, status] of [['/changes?since=999999', 410], ['/nowhere', 404], ['/events?bogus=1', 400]] as const) {
      const response = await h.request('GET', target, { key: h.keys.reader });
      assert.equal(response.status, status);
      assert.equal(response.headers['Cache-Control'], 'no-store', target);
    }
  });

  it('gives a preflight from another origin no CORS permission', async () => {
    const response = await h.request('OPTIONS', '/events', { headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } });
    assert.equal(response.status, 204);
    assert.equal(response.headers['Access-Control-Allow-Origin'], undefined);
    assert.equal(response.headers['Access-Control-Allow-Methods'], undefined);
    assert.equal(response.headers['Access-Control-Allow-Headers'], undefined);
  });
});

describe('CORS with origins configured in another spelling', () => {
  let h: Harness;
  // A browser sends its origin with the scheme and host in lower case and no default port.
  before(async () => (h = await startHarness({ corsOrigins: ['HTTP://LocalHost:5173', 'https://Events.Campus.edu:443'] })));
  after(() => h.close());

  it('allows the origins as a browser sends them', async () => {
    for (const origin of ['http://localhost:5173', 'https://events.campus.edu']) {
      const response = await h.request('GET', '/events', { key: h.keys.reader, headers: { Origin: origin } });
      assert.equal(response.headers['Access-Control-Allow-Origin'], origin);
    }
    // As written, too (no browser sends it so, but a client may).
    const written = await h.request('GET', '/events', { key: h.keys.reader, headers: { Origin: 'HTTP://LocalHost:5173' } });
    assert.equal(written.headers['Access-Control-Allow-Origin'], 'HTTP://LocalHost:5173');
    const other = await h.request('GET', '/events', { key: h.keys.reader, headers: { Origin: 'https://events.campus.edu:8443' } });
    assert.equal(other.headers['Access-Control-Allow-Origin'], undefined);
  });
});

describe('CORS with no origin configured', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.close());

  it('sends no CORS header at all', async () => {
    const responses = [
      await h.request('GET', '/events', { key: h.keys.reader, headers: { Origin: 'https://app.campus.edu' } }),
      await h.request('GET', '/events', { headers: { Origin: 'https://app.campus.edu' } }),
      await h.request('OPTIONS', '/events', { headers: { Origin: 'https://app.campus.edu', 'Access-Control-Request-Method': 'POST' } }),
    ];
    for (const response of responses) {
      const cors = Object.keys(response.headers).filter((name) => name.toLowerCase().startsWith('access-control-') || name.toLowerCase() === 'vary');
      assert.deepEqual(cors, [], `status ${response.status}`);
    }
  });
});
