// Hostile requests over real sockets and through the core: each gets a deliberate answer (a JSON error where one can be sent), never a hang or a crash.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { rawExchange, type RawResponse } from '../api/support.js';
import { toNodeListener } from '../../src/http/node-adapter.js';
import { silentLogger } from '../../src/log/logger.js';
import { eventBody, startHarness, type Harness } from '../helpers/harness.js';
import { parseResponse, rawConnect } from './raw-client.js';
import { assertErrorShape, closedWithin, send, startLive, type LiveServer } from './support.js';

function assertRawError(response: RawResponse, status: number, code: string, what: string): { message: string } {
  assert.equal(response.status, status, `${what}: ${response.status} ${response.body.slice(0, 200)}`);
  const body = assertErrorShape(response.status, response.headers['content-type'], response.body, what);
  assert.equal(body.error, code, what);
  assert.equal(response.headers['api-version'], '1.0', `${what}: API-Version`);
  assert.match(response.headers['x-request-id'] ?? '', /^[A-Za-z0-9._~:/+=-]{1,128}$/, `${what}: X-Request-Id`);
  return body;
}

const VALID_BODY = JSON.stringify(eventBody());

describe('hostile requests over a socket', () => {
  let live: LiveServer;
  let auth: string;
  before(async () => {
    live = await startLive();
    auth = `Authorization: Bearer ${live.keys.organizer}\r\n`;
  });
  after(() => live.close());

  describe('Expect: 100-continue', () => {
    it('answers a declared body over 64 KiB with 413 and closes, without inviting the body (no 100 Continue)', async () => {
      const response = await rawExchange(live.port, [`POST /events HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 70000\r\nExpect: 100-continue\r\n\r\n`]);
      assert.ok(!response.body.includes('100 Continue'), 'no interim 100 response came first');
      assertRawError(response, 413, 'payload_too_large', 'Expect with 70000 bytes');
      assert.equal(response.headers['connection'], 'close');
      assert.equal(response.closed, true);
    });

    it('keeps the contract order for a declared body over 64 KiB: no key is still a 401, not a 413', async () => {
      const response = await rawExchange(live.port, ['POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 70000\r\nExpect: 100-continue\r\n\r\n']);
      assertRawError(response, 401, 'unauthorized', 'Expect without a key');
      assert.equal(response.closed, true);
    });

    it('invites a body of at most 64 KiB with 100 Continue, then creates the event', async () => {
      const client = await rawConnect(live.port);
      client.write(`POST /events HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${VALID_BODY.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
      await client.waitFor('HTTP/1.1 100 Continue\r\n\r\n', 2_000);
      client.write(VALID_BODY);
      await client.closed;
      const final = parseResponse(client.received().slice(client.received().indexOf('\r\n\r\n') + 4));
      assert.equal(final?.status, 201, client.received().slice(0, 300));
    });

    it('serves a request with an expectation it does not know, instead of a bodiless 417', async () => {
      const response = await rawExchange(live.port, ['GET /health HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n']);
      assert.equal(response.status, 200);
      assert.deepEqual(JSON.parse(response.body), { status: 'ok' });
    });
  });

  describe('CONNECT', () => {
    it('answers CONNECT host:port with a 400 JSON body and closes, instead of dropping the socket', async () => {
      const response = await rawExchange(live.port, [`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n${auth}\r\n`]);
      assertRawError(response, 400, 'bad_request', 'CONNECT authority');
      assert.equal(response.closed, true);
    });

    it('lets go of a CONNECT socket whose client never closes its side', async () => {
      const client = await rawConnect(live.port, { halfOpen: true });
      const serverSocket = live.sockets[live.sockets.length - 1]!;
      try {
        client.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
        await client.waitFor('bad_request', 2_000);
        client.write('tunnel bytes the server should drop');
        assert.ok(await closedWithin(serverSocket, 4_000), 'the server destroyed its socket');
      } finally {
        client.destroy();
      }
    });

    it('answers CONNECT on a known path with 405 and Allow, and closes', async () => {
      const response = await rawExchange(live.port, [`CONNECT /events HTTP/1.1\r\nHost: x\r\n${auth}\r\nsome tunnel bytes`]);
      assertRawError(response, 405, 'method_not_allowed', 'CONNECT /events');
      assert.equal(response.headers['allow'], 'GET, HEAD, POST, OPTIONS');
      assert.equal(response.closed, true);
    });
  });

  describe('Host', () => {
    it('answers two Host headers with 400 naming Host', async () => {
      const response = await rawExchange(live.port, ['GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n']);
      assert.match(assertRawError(response, 400, 'bad_request', 'two Host').message, /Host/);
    });

    it('answers HTTP/1.1 without Host with a 400 JSON body naming Host (node\'s own answer has no body)', async () => {
      const response = await rawExchange(live.port, ['GET /health HTTP/1.1\r\nConnection: close\r\n\r\n']);
      assert.match(assertRawError(response, 400, 'bad_request', 'no Host').message, /Host/);
    });

    it('serves HTTP/1.0 without Host', async () => {
      const response = await rawExchange(live.port, ['GET /health HTTP/1.0\r\n\r\n']);
      assert.equal(response.status, 200);
    });
  });

  describe('malformed request lines and framing', () => {
    const cases: [string, string][] = [
      ['garbage', 'GARBAGE\r\n\r\n'],
      ['an unknown HTTP version', 'GET /health HTTP/9.9\r\nHost: x\r\n\r\n'],
      ['a space inside the target', 'GET /hea lth HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['a NUL inside the target', 'GET /hea\0lth HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['a raw 0xFF byte in the target', 'GET /health?\xff HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['a fourth word on the request line', 'GET /health HTTP/1.1 extra\r\nHost: x\r\n\r\n'],
      ['bare LF line ends', 'GET /health HTTP/1.1\nHost: x\n\n'],
      ['a TLS ClientHello', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03'],
      ['the HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
      ['a header without a colon', 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'],
      ['a header name with a space', 'GET /health HTTP/1.1\r\nHo st: x\r\n\r\n'],
      ['an obsolete folded header', 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n'],
      ['a control character in a header value', 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n'],
      ['a non-numeric Content-Length', 'POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
      ['a negative Content-Length', 'POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'],
      ['two different Content-Lengths', 'POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
      ['Content-Length with Transfer-Encoding', 'POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
      ['Transfer-Encoding gzip', 'POST /events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n'],
      ['a bad chunk size', 'POST /events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    ];
    for (const [name, raw] of cases) {
      it(`answers ${name} with a 400 JSON body and closes`, async () => {
        const response = await rawExchange(live.port, [Buffer.from(raw, 'latin1')], { idleMs: 1_000 });
        assertRawError(response, 400, 'bad_request', name);
        assert.equal(response.headers['connection'], 'close');
        assert.equal(response.closed, true);
      });
    }

    it('answers a HEAD request node cannot parse with the 400 head alone: no body for a client to misread', async () => {
      const response = await rawExchange(live.port, [Buffer.from('HEAD /events/\xe9 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1')]);
      assert.equal(response.status, 400);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      assert.ok(Number(response.headers['content-length']) > 0, 'Content-Length of the GET answer');
      assert.equal(response.body, '');
      assert.equal(response.closed, true);
      const viaClient = await send(live.port, new http.Agent(), { method: 'HEAD', path: '/events?category=\xe9' });
      assert.equal(viaClient.status, 400);
    });

    it('answers a whole request pipelined before a malformed one first, then the 400', async () => {
      const before = await fetchList(live);
      const raw = `POST /events HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${VALID_BODY.length}\r\n\r\n${VALID_BODY}GARBAGE\r\n\r\n`;
      const response = await rawExchange(live.port, [raw], { idleMs: 2_000 });
      assert.equal(response.status, 201, `the POST gets its own answer first: ${response.body.slice(0, 200)}`);
      const second = parseResponse(response.body.slice(response.body.indexOf('}HTTP/1.1') + 1));
      assert.ok(second !== undefined, `a second response follows: ${response.body.slice(0, 600)}`);
      assert.equal(second.status, 400);
      assert.equal(assertErrorShape(second.status, second.headers['content-type'], second.body, 'pipelined garbage').error, 'bad_request');
      assert.equal(response.closed, true);
      assert.equal((await fetchList(live)).total, before.total + 1);
    });

    it('keeps serving after all of them', async () => {
      const response = await rawExchange(live.port, ['GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
      assert.equal(response.status, 200);
    });
  });

  describe('headers over 16 KiB', () => {
    const cases: [string, string][] = [
      ['one 17 KiB header', `GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(17 * 1024)}\r\n\r\n`],
      ['400 headers of 50 bytes', `GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 400 }, (_, i) => `X-Pad-${String(i).padStart(3, '0')}: ${'b'.repeat(38)}\r\n`).join('')}\r\n`],
      ['a 17 KiB request target', `GET /events?${'c'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ];
    for (const [name, raw] of cases) {
      it(`answers ${name} with a 431 JSON body and closes`, async () => {
        const response = await rawExchange(live.port, [raw]);
        assertRawError(response, 431, 'headers_too_large', name);
        assert.equal(response.closed, true);
      });
    }

    it('serves 15 KiB of headers', async () => {
      const response = await rawExchange(live.port, [`GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(15 * 1024)}\r\nConnection: close\r\n\r\n`]);
      assert.equal(response.status, 200);
    });

    it('drops no header of 2,100 small ones: an Authorization after them still counts', async () => {
      const many = Array.from({ length: 2_100 }, () => 'a:b\r\n').join('');
      const response = await rawExchange(live.port, [`GET /events HTTP/1.1\r\nHost: x\r\n${many}${auth}Connection: close\r\n\r\n`]);
      assert.equal(response.status, 200, response.body.slice(0, 200));
    });
  });

  describe('bodies no JSON parser should take whole', () => {
    const utf8Cases: [string, Buffer][] = [
      ['a 0xFF byte', Buffer.from([0xff])],
      ['an overlong encoding of "/"', Buffer.from([0xc0, 0xaf])],
      ['an encoded surrogate (CESU-8)', Buffer.from([0xed, 0xa0, 0x80])],
      ['a truncated sequence', Buffer.from([0xe2, 0x82])],
      ['a code point past U+10FFFF', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
    ];
    for (const [name, bytes] of utf8Cases) {
      it(`answers a title holding ${name} (invalid UTF-8) with 400 bad_request`, async () => {
        const rest = JSON.stringify(eventBody({ title: undefined }));
        const body = Buffer.concat([Buffer.from('{"title":"Intro '), bytes, Buffer.from(`",${rest.slice(1)}`)]);
        JSON.parse(body.toString('latin1')); // valid JSON but for its bytes
        const response = await rawExchange(live.port, [Buffer.from(`POST /events HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`), body]);
        assert.match(assertRawError(response, 400, 'bad_request', name).message, /UTF-8/);
      });
    }

    it('answers 32,000 levels of nesting (within 64 KiB) with 400, without exhausting the stack', async () => {
      const body = `{"title":${'['.repeat(32_000)}${']'.repeat(32_000)}}`;
      const response = await rawExchange(live.port, [`POST /events HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`]);
      assert.match(assertRawError(response, 400, 'bad_request', 'deep nesting').message, /levels deep/);
    });
  });
});

describe('hostile JSON through the core', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  /** Sends `body` (JSON text) with Content-Type: application/json. */
  function write(method: string, target: string, key: string, body: string): ReturnType<Harness['request']> {
    return h.request(method, target, { key, body, headers: { 'content-type': 'application/json' } });
  }

  async function total(): Promise<number> {
    return (await h.request('GET', '/events?limit=1', { key: h.keys.reader })).json.total;
  }

  function withRaw(field: string, rawValue: string, base: Record<string, unknown> = eventBody()): string {
    const text = JSON.stringify({ ...base, [field]: '__RAW__' });
    return text.replace('"__RAW__"', rawValue);
  }

  it('reads nesting up to 32 levels and refuses 33 as bad_request', async () => {
    const nested = (depth: number): string => `${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}`;
    const ok = await write('POST', '/events', h.keys.organizer, withRaw('extra', nested(32)));
    assert.equal(ok.json.error, 'validation_failed', 'depth 32 reaches validation');
    const deep = await write('POST', '/events', h.keys.organizer, withRaw('extra', nested(33)));
    assert.equal(deep.status, 400);
    assert.equal(deep.json.error, 'bad_request');
    assert.match(deep.json.message, /32 levels/);
  });

  for (const raw of ['9007199254740992', '9007199254740993', '-9007199254740993', '1e308', '1e400', '123456789012345678901234567890', '100000.00000000001', '1e-400']) {
    it(`refuses capacity ${raw} (no integer the schema allows) with validation_failed naming capacity`, async () => {
      const before = await total();
      const response = await write('POST', '/events', h.keys.organizer, withRaw('capacity', raw));
      assert.equal(response.status, 400, response.text ?? '');
      assert.deepEqual(response.json.details.map((detail: { field: string }) => detail.field), ['capacity']);
      assert.equal(await total(), before);
    });
  }

  it('refuses registered_count beyond 2^53 on update, leaving the event unchanged', async () => {
    const created = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody() });
    const response = await write('PUT', `/events/${created.json.id}`, h.keys.organizer, '{"registered_count":9007199254740993}');
    assert.equal(response.json.error, 'validation_failed');
    assert.equal((await h.request('GET', `/events/${created.json.id}`, { key: h.keys.reader })).json.registered_count, 0);
  });

  it('refuses page beyond 2^53 - 1 in a query and takes page 2^53 - 1', async () => {
    assert.equal((await h.request('GET', '/events?page=9007199254740993', { key: h.keys.reader })).json.error, 'bad_request');
    assert.equal((await h.request('GET', '/events?page=9007199254740992', { key: h.keys.reader })).json.error, 'bad_request');
    const last = await h.request('GET', '/events?page=9007199254740991', { key: h.keys.reader });
    assert.equal(last.status, 200);
    assert.deepEqual(last.json.events, []);
  });

  it('validates and stores the last of duplicate keys: a bad value first does not stop a good one last', async () => {
    const body = JSON.stringify(eventBody()).replace('"capacity":120', '"capacity":-1,"capacity":10');
    const created = await write('POST', '/events', h.keys.organizer, body);
    assert.equal(created.status, 201, created.text ?? '');
    assert.equal(created.json.capacity, 10);
    assert.equal((await h.request('GET', `/events/${created.json.id}`, { key: h.keys.reader })).json.capacity, 10);
  });

  for (const [field, good, bad] of [
    ['capacity', '10', '"10"'],
    ['title', '"ok"', '"\\u0000"'],
    ['category', '"social"', '"parties"'],
    ['start_time', '"2026-09-01T17:00:00Z"', '"2026-09-01T17:00:00"'],
    ['organizer', '{"name":"Ada","email":"ada@campus.edu"}', '{"name":"Ada","email":"nope"}'],
    ['id', '"evt_aaaaaaaaaaaaaaaaaaaa"', '"evt_bbbbbbbbbbbbbbbbbbbb"'],
  ] as const) {
    it(`does not let a good ${field} first hide a bad one last (duplicate keys)`, async () => {
      const before = await total();
      const base = JSON.stringify(eventBody()).slice(0, -1);
      const response = await write('POST', '/events', field === 'organizer' ? h.keys.admin : h.keys.organizer, `${base},"${field}":${good},"${field}":${bad}}`);
      assert.equal(response.status, 400, response.text ?? '');
      assert.equal(response.json.error, 'validation_failed');
      assert.ok(response.json.details.some((detail: { field: string }) => detail.field.startsWith(field)), JSON.stringify(response.json.details));
      assert.equal(await total(), before);
    });
  }

  it('does not let duplicate keys in an update slip a bad value past validation', async () => {
    const created = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody() });
    const read = await h.request('GET', `/events/${created.json.id}`, { key: h.keys.reader });
    const response = await write('PUT', `/events/${created.json.id}`, h.keys.organizer, '{"capacity":5,"capacity":"x","title":"ok","title":""}');
    assert.equal(response.json.error, 'validation_failed');
    assert.deepEqual(response.json.details.map((detail: { field: string }) => detail.field).sort(), ['capacity', 'title']);
    assert.deepEqual((await h.request('GET', `/events/${created.json.id}`, { key: h.keys.reader })).json, read.json);
  });

  for (const field of ['title', 'description', 'location', 'organizer.name', 'organizer.email']) {
    for (const escape of ['\\ud800', '\\udfff', 'a\\udc00\\ud800b', 'x\\ud83d']) {
      it(`refuses ${field} holding a lone surrogate "${escape}"`, async () => {
        const before = await total();
        const value = `"${field === 'organizer.email' ? `ada${escape}@campus.edu` : `Talk ${escape}`}"`;
        const body = field.startsWith('organizer.')
          ? withRaw('organizer', field === 'organizer.name' ? `{"name":${value},"email":"ada@campus.edu"}` : `{"name":"Ada","email":${value}}`)
          : withRaw(field, value);
        const response = await write('POST', '/events', h.keys.admin, body);
        assert.equal(response.status, 400, response.text ?? '');
        assert.deepEqual(response.json.details.map((detail: { field: string }) => detail.field), [field]);
        assert.equal(await total(), before);
      });
    }
  }

  it('refuses a lone surrogate on update and keeps a proper pair', async () => {
    const created = await write('POST', '/events', h.keys.organizer, withRaw('title', '"Party \\ud83c\\udf89"'));
    assert.equal(created.status, 201);
    assert.equal(created.json.title, 'Party \u{1f389}');
    const response = await write('PUT', `/events/${created.json.id}`, h.keys.organizer, '{"location":"Hall \\ud800"}');
    assert.equal(response.json.error, 'validation_failed');
    assert.equal((await h.request('GET', `/events/${created.json.id}`, { key: h.keys.reader })).json.location, 'Hall A');
  });

  it('answers an unknown field named by a lone surrogate with well-formed JSON', async () => {
    const response = await write('POST', '/events', h.keys.organizer, withRaw('x', '1').replace('"x"', '"\\ud800"'));
    assert.equal(response.json.error, 'validation_failed');
    assert.ok(!/[\ud800-\udfff]/.test(response.text!), 'the lone surrogate comes back escaped, so the response is valid UTF-8');
  });
});

/** The list total as the server sees it. */
async function fetchList(live: LiveServer): Promise<{ total: number }> {
  const response = await fetch(`${live.running.url}/events?limit=1`, { headers: { authorization: `Bearer ${live.keys.reader}` } });
  return (await response.json()) as { total: number };
}

describe('the node:http bridge', () => {
  it('turns a response header node refuses into a JSON 500 instead of throwing out of the listener', async () => {
    const server = http.createServer(toNodeListener(() => ({ status: 200, headers: { 'API-Version': '1.0', 'X-Request-Id': 'x', 'X-Bad': 'line\nbreak' }, body: '{}' }), silentLogger));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await rawExchange((server.address() as AddressInfo).port, ['GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
      assertRawError(response, 500, 'internal', 'a bad header from the core');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
