// Whole-request tests over a real socket on port 0: what only the node:http bridge decides (HEAD, 413 close, 431, raw faults).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it, test } from 'node:test';
import { createKey } from '../../src/auth/key-registry.js';
import { answerClientError, toNodeListener } from '../../src/http/node-adapter.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { startServer, startServerWith, type RunningServer } from '../../src/start-server.js';
import { eventBody, startHarness, tempDir, type Harness } from '../helpers/harness.js';
import { rawExchange, type RawResponse } from './support.js';

describe('http.createServer(app.handler)', () => {
  let h: Harness;
  let server: http.Server;
  let port: number;
  let base: string;
  before(async () => {
    h = await startHarness();
    server = http.createServer(h.app.handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await h.close();
  });

  function head(target: string, extra = ''): string {
    return `${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${h.keys.organizer}\r\n${extra}`;
  }

  it('creates, reads, updates and deletes an event end to end', async () => {
    const auth = { authorization: `Bearer ${h.keys.organizer}` };
    const created = await fetch(`${base}/v1/events`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(eventBody()) });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(created.headers.get('api-version'), '1.0');
    const { id } = (await created.json()) as { id: string };
    assert.equal(created.headers.get('location'), `/v1/events/${id}`);
    const read = await fetch(`${base}/events/${id}`, { headers: auth });
    assert.equal(read.status, 200);
    const etag = read.headers.get('etag')!;
    const notModified = await fetch(`${base}/events/${id}`, { headers: { ...auth, 'if-none-match': etag } });
    assert.equal(notModified.status, 304);
    assert.equal(await notModified.text(), '');
    const updated = await fetch(`${base}/events/${id}`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/json', 'if-match': etag }, body: '{"capacity":5}' });
    assert.equal(updated.status, 200);
    assert.equal(((await updated.json()) as { capacity: number }).capacity, 5);
    const deleted = await fetch(`${base}/events/${id}`, { method: 'DELETE', headers: auth });
    assert.equal(deleted.status, 204);
    assert.equal(await deleted.text(), '');
    assert.equal((await fetch(`${base}/events/${id}`, { headers: auth })).status, 404);
  });

  it('HEAD sends Content-Length of the GET body, and no body', async () => {
    const created = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody() });
    for (const target of [`/events/${created.json.id}`, '/events', '/health', '/events/evt_nopeNopeNopeNope']) {
      const get = await rawExchange(port, [`GET ${head(target, 'Connection: close\r\n')}\r\n`]);
      const response = await rawExchange(port, [`HEAD ${head(target, 'Connection: close\r\n')}\r\n`]);
      assert.equal(response.status, get.status, target);
      assert.equal(response.headers['content-length'], String(Buffer.byteLength(get.body, 'latin1')), target);
      assert.equal(response.body, '', `${target}: HEAD has no body`);
      assert.equal(response.headers['content-type'], get.headers['content-type']);
    }
  });

  it('answers a declared body over 64 KiB with 413 and closes the connection without reading the rest', async () => {
    const response = await rawExchange(port, [`POST ${head('/events', 'Content-Type: application/json\r\nContent-Length: 70000\r\n')}\r\n{"title":"`]);
    assert.equal(response.status, 413);
    assert.equal(response.headers['connection'], 'close');
    assert.equal(JSON.parse(response.body).error, 'payload_too_large');
    assert.equal(response.closed, true, 'the server closed the connection');
  });

  it('answers a chunked body growing past 64 KiB with 413 and closes the connection', async () => {
    const chunk = 'a'.repeat(16 * 1024);
    const chunks = [`POST ${head('/events', 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n')}\r\n`];
    for (let i = 0; i < 5; i++) chunks.push(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const response = await rawExchange(port, chunks);
    assert.equal(response.status, 413);
    assert.equal(response.headers['connection'], 'close');
    assert.equal(JSON.parse(response.body).error, 'payload_too_large');
    assert.equal(response.closed, true);
  });

  it('reads a body of exactly 64 KiB', async () => {
    const base64k = JSON.stringify(eventBody({ description: '' }));
    const body = base64k.replace('"description":""', `"description":"${' '.repeat(64 * 1024 - base64k.length)}"`);
    const response = await rawExchange(port, [`POST ${head('/events', `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n`)}\r\n${body}`]);
    assert.equal(response.status, 400);
    assert.equal(JSON.parse(response.body).error, 'validation_failed');
  });

  it('answers a target starting with // with 400 bad_request', async () => {
    for (const target of ['//events', '//']) {
      const response = await rawExchange(port, [`GET ${head(target, 'Connection: close\r\n')}\r\n`]);
      assert.equal(response.status, 400, target);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(JSON.parse(response.body).error, 'bad_request');
    }
  });

  it('does not say back a key sent in a target starting with // (the answer may be logged by a proxy)', async () => {
    const secret = h.keys.reader;
    for (const target of [`//events.ics?key=${secret}`, `//${secret}`, `//events?x=1&%6Bey=${secret}`]) {
      const response = await rawExchange(port, [`GET ${head(target, 'Connection: close\r\n')}\r\n`]);
      assert.equal(response.status, 400, target);
      const { message } = JSON.parse(response.body) as { message: string };
      assert.ok(!message.includes(secret.slice(4, 12)), message);
      assert.match(message, /\[redacted\]/);
    }
    // Nor a 404 for a path that is the key itself (pasted in the wrong place), nor one pasted as an id or a value.
    for (const [target, status] of [[`/${secret}`, 404], [`/events/${secret}`, 404], [`/series/${secret}`, 404], [`/changes?since=${secret}`, 400], [`/events?sort=${secret}`, 400]] as const) {
      const answer = await rawExchange(port, [`GET ${head(target, 'Connection: close\r\n')}\r\n`]);
      assert.equal(answer.status, status, target);
      assert.ok(!answer.body.includes(secret.slice(4, 12)), answer.body);
    }
    // Nor a key sent as a body's field name: the detail's field names it redacted too.
    const body = JSON.stringify({ [secret]: 1 });
    const unknownField = await rawExchange(port, [`POST ${head('/events', `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n`)}\r\n${body}`]);
    assert.equal(unknownField.status, 400);
    assert.ok(!unknownField.body.includes(secret.slice(4, 12)), unknownField.body);
    const named = await rawExchange(port, [`GET ${head(`/events/${secret}`, 'Connection: close\r\n')}\r\n`]);
    assert.match(JSON.parse(named.body).message, /cek_\[redacted\]/, 'the id is still named, redacted');
  });

  it('answers two Authorization headers with 400 bad_request, even if both are good', async () => {
    const response = await rawExchange(port, [`GET ${head('/events', `Authorization: Bearer ${h.keys.organizer}\r\nConnection: close\r\n`)}\r\n`]);
    assert.equal(response.status, 400);
    const body = JSON.parse(response.body);
    assert.equal(body.error, 'bad_request');
    assert.match(body.message, /Authorization/);
  });

  it('answers two Idempotency-Key headers with 400 and writes nothing (node would join them into one key "a, a")', async () => {
    const body = JSON.stringify(eventBody());
    const post = (keys: string): string => `POST ${head('/events', `${keys}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n`)}\r\n${body}`;
    const before = await h.request('GET', '/events', { key: h.keys.organizer });
    const response = await rawExchange(port, [post('Idempotency-Key: a\r\nIdempotency-Key: a\r\n')]);
    assert.equal(response.status, 400);
    const refusal = JSON.parse(response.body);
    assert.equal(refusal.error, 'bad_request');
    assert.equal(refusal.message, 'The request has more than one Idempotency-Key header; send exactly one.');
    assert.equal((await h.request('GET', '/events', { key: h.keys.organizer })).json.total, before.json.total, 'nothing was written');
    // One line holding a comma is one key, as sent.
    assert.equal((await rawExchange(port, [post('Idempotency-Key: a, a\r\n')])).status, 201);
  });

  it('answers two Content-Type headers, and a transfer coding other than chunked, with 400 naming the header, and writes nothing', async () => {
    const created = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ title: 'Kept as it was' }) });
    const body = '{"title":"Changed"}';
    const put = (headers: string, framed: string): string => `PUT ${head(`/events/${created.json.id}`, `${headers}Connection: close\r\n`)}\r\n${framed}`;
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    for (const [request, named] of [
      [put(`Content-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n`, body), 'The request has more than one Content-Type header; send exactly one.'],
      // node takes this as chunked and would hand over a gzip body as it came.
      [put('Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n', chunked), 'Transfer-Encoding "gzip, chunked" is not supported: send the body with Content-Length, or with Transfer-Encoding: chunked alone.'],
    ] as const) {
      const response = await rawExchange(port, [request]);
      assert.equal(response.status, 400);
      assert.deepEqual(JSON.parse(response.body), { error: 'bad_request', message: named });
    }
    assert.equal((await h.request('GET', `/events/${created.json.id}`, { key: h.keys.organizer })).json.title, 'Kept as it was');
    // Chunked alone, in any case, is read as ever.
    assert.equal((await rawExchange(port, [put('Content-Type: application/json\r\nTransfer-Encoding: Chunked\r\n', chunked)])).status, 200);
  });

  it('keeps the connection open after an ordinary response', async () => {
    const response = await rawExchange(port, [`GET ${head('/health')}\r\n`], { idleMs: 200 });
    assert.equal(response.status, 200);
    assert.equal(response.closed, false);
  });
});

describe('startServer({port: 0})', () => {
  let running: RunningServer;
  let removeDir: () => void;
  let key: string;
  before(async () => {
    const { dir, remove } = tempDir();
    removeDir = remove;
    key = (await createKey(dir, { name: 'Rita Reader', email: 'rita@campus.edu', role: 'reader' }, { randomBytes, now: Date.now })).secret;
    running = await startServerWith({ dataDir: dir, port: 0, keyPollMs: 0 }, { unsafeNoSync: true });
  });
  after(async () => {
    await running.close(1_000);
    removeDir();
  });

  it('listens on the port the system chose', async () => {
    assert.ok(running.address.port > 0);
    const response = await fetch(`${running.url}/events`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(response.status, 200);
  });

  it('answers headers over 16 KiB with a 431 JSON body', async () => {
    const big = 'a'.repeat(17 * 1024);
    const response = await rawExchange(running.address.port, [`GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${big}\r\n\r\n`]);
    assert.equal(response.status, 431);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(JSON.parse(response.body).error, 'headers_too_large');
    assert.equal(response.headers['api-version'], '1.0');
    assert.match(response.headers['x-request-id'] ?? '', /^[A-Za-z0-9._~:/+=-]{1,128}$/, 'every response carries X-Request-Id');
    assert.equal(response.closed, true);
  });

  it('counts the request line and headers as sent, line ends included: 16,384 bytes pass, 16,385 get the 431', async () => {
    // Node's own limit counts only the target, names and values; the adapter counts the rest, so the boundary is exact.
    const headWith = (padding: number): string => `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(padding)}\r\n\r\n`;
    const fits = 16 * 1024 - headWith(0).length;
    assert.equal(Buffer.byteLength(headWith(fits)), 16_384);
    assert.equal((await rawExchange(running.address.port, [headWith(fits)])).status, 200);
    const over = await rawExchange(running.address.port, [headWith(fits + 1)]);
    assert.equal(over.status, 431);
    assert.deepEqual(JSON.parse(over.body), { error: 'headers_too_large', message: 'The request line and headers must be at most 16 KiB.' });
    // The same for a long target: a path of the most bytes is an unknown path; one byte more is the 431.
    const targetWith = (length: number): string => `GET /${'p'.repeat(length)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    const longest = 16 * 1024 - targetWith(0).length;
    assert.equal((await rawExchange(running.address.port, [targetWith(longest)])).status, 404);
    assert.equal((await rawExchange(running.address.port, [targetWith(longest + 1)])).status, 431);
  });

  it('answers a request Node cannot parse with a 400 JSON body', async () => {
    for (const raw of ['GARBAGE\r\n\r\n', 'GET /events HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n', 'GET /events HTTP/1.1\r\nBad Header\r\n\r\n']) {
      const response = await rawExchange(running.address.port, [raw]);
      assert.equal(response.status, 400, JSON.stringify(raw));
      assert.equal(JSON.parse(response.body).error, 'bad_request');
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      assert.ok(response.headers['x-request-id']);
    }
  });

  it('answers a method node does not know (FOO, get) with 405 and Allow on a known path, 404 elsewhere, also after a pipelined request', async () => {
    for (const method of ['FOO', 'get', 'Search']) {
      const response = await rawExchange(running.address.port, [`${method} /events HTTP/1.1\r\nHost: x\r\n\r\n`]);
      assert.equal(response.status, 405, method);
      assert.equal(response.headers['allow'], 'GET, HEAD, POST, OPTIONS');
      assert.deepEqual(JSON.parse(response.body), { error: 'method_not_allowed', message: `${method} is not allowed on /events; allowed: GET, HEAD, POST, OPTIONS.` });
    }
    const unknown = await rawExchange(running.address.port, ['FOO /nowhere HTTP/1.1\r\nHost: x\r\n\r\n']);
    assert.equal(unknown.status, 404);
    assert.equal(JSON.parse(unknown.body).error, 'not_found');
    // Behind an answered request on the same connection, the refused one is read from where node failed.
    const pipelined = await rawExchange(running.address.port, ['GET /health HTTP/1.1\r\nHost: x\r\n\r\nFOO /events/evt_x HTTP/1.1\r\nHost: x\r\n\r\n'], { idleMs: 500 });
    assert.equal(pipelined.status, 200);
    assert.match(pipelined.body, /^\{"status":"ok"\}HTTP\/1\.1 405 [^]*\r\nAllow: GET, HEAD, PUT, DELETE, OPTIONS\r\n/);
    // Right after a body: the method begins where the body ends, not at a line's start.
    const afterBody = await rawExchange(running.address.port, ['POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}FOO /events HTTP/1.1\r\nHost: x\r\n\r\n'], { idleMs: 500 });
    assert.equal(afterBody.status, 404);
    assert.match(afterBody.body, /HTTP\/1\.1 405 [^]*\r\nAllow: GET, HEAD, POST, OPTIONS\r\n/);
  });

  it('answers a method node does not know as a known one: the request-level faults of its head first (400, 431), then 405', async () => {
    const foo = (headers: string, target = '/events'): string => `FOO ${target} HTTP/1.1\r\n${headers}\r\n`;
    for (const [request, status, message] of [
      [foo(`Host: x\r\nAuthorization: Bearer ${key}\r\nAuthorization: Bearer ${key}\r\n`), 400, 'The request has more than one Authorization header; send exactly one.'],
      [foo('Host: x\r\nHost: y\r\n'), 400, 'The request has more than one Host header; send exactly one.'],
      [foo(''), 400, 'The request has no Host header; HTTP/1.1 requires exactly one.'],
      [foo('Host: x\r\nContent-Type: application/json\r\ncontent-type: text/plain\r\n'), 400, 'The request has more than one Content-Type header; send exactly one.'],
      [foo('Host: x\r\nTransfer-Encoding: gzip, chunked\r\n'), 400, 'Transfer-Encoding "gzip, chunked" is not supported: send the body with Content-Length, or with Transfer-Encoding: chunked alone.'],
      [foo(`Host: x\r\nX-Big: ${'b'.repeat(16_400)}\r\n`), 431, 'The request line and headers must be at most 16 KiB.'],
      // What node's parser refuses of a known method's head is a 400 here too: a space before the colon, a NUL in the
      // target, a Content-Length not a number, twice, or beside Transfer-Encoding.
      [foo('Host : x\r\n'), 400, undefined],
      [foo('Host: x\r\n', '/ev\0nts'), 400, undefined],
      [foo('Host: x\r\nContent-Length: abc\r\n'), 400, undefined],
      [foo('Host: x\r\nContent-Length: 1\r\nContent-Length: 1\r\n'), 400, undefined],
      [foo('Host: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n'), 400, undefined],
      // A head over the 64 KiB node reads at once: 431 still.
      [foo(`Host: x\r\nX-Big: ${'b'.repeat(70_000)}\r\n`), 431, 'The request line and headers must be at most 16 KiB.'],
    ] as const) {
      const response = await rawExchange(running.address.port, [request]);
      assert.equal(response.status, status, JSON.stringify(request.slice(0, 80)));
      if (message !== undefined) assert.equal(JSON.parse(response.body).message, message);
    }
  });

  it('names the header a parser refusal is about', async () => {
    const both = await rawExchange(running.address.port, ['POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n']);
    assert.equal(both.status, 400);
    assert.equal(JSON.parse(both.body).message, 'The request is not valid HTTP/1.1 (HPE_INVALID_TRANSFER_ENCODING): Transfer-Encoding must end with chunked, and may not come with Content-Length.');
    const after = await rawExchange(running.address.port, ['POST /events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n']);
    assert.equal(JSON.parse(after.body).message, 'The request is not valid HTTP/1.1 (HPE_INVALID_CONTENT_LENGTH): Content-Length is not a number of bytes, or comes with Transfer-Encoding.');
  });

  it('answers //events with 400 and two Authorization headers with 400', async () => {
    const slashes = await rawExchange(running.address.port, [`GET //events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
    assert.equal(slashes.status, 400);
    const twice = await rawExchange(running.address.port, [`GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nauthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`]);
    assert.equal(twice.status, 400);
    assert.equal(JSON.parse(twice.body).error, 'bad_request');
  });
});

test('a method node does not know is logged as every request is, with the id its answer carries', async () => {
  const { dir, remove } = tempDir();
  let logged = '';
  const running = await startServerWith({ dataDir: dir, port: 0, keyPollMs: 0, bootstrapAdminKey: false, logger: createLogger({ level: 'info', write: (text) => (logged += text) }) }, { unsafeNoSync: true });
  try {
    const response = await rawExchange(running.address.port, ['FOO /events HTTP/1.1\r\nHost: x\r\nX-Request-Id: unknown-method-1\r\n\r\n']);
    assert.equal(response.status, 405);
    assert.equal(response.headers['x-request-id'], 'unknown-method-1');
    await running.close(1_000);
    const line = logged.split('\n').find((each) => each.includes('"request_id":"unknown-method-1"'));
    assert.ok(line !== undefined, `a log line for it in ${logged}`);
    assert.deepEqual([JSON.parse(line).method, JSON.parse(line).status], ['FOO', 405]);
  } finally {
    remove();
  }
});

describe('the node:http bridge on its own', () => {
  async function listen(server: http.Server): Promise<number> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }
  async function stop(server: http.Server): Promise<void> {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  it('answers a stalled client with a 408 JSON body (short time-outs here; startServer uses 10 s and 30 s)', async () => {
    const h = await startHarness();
    const server = http.createServer({ headersTimeout: 200, requestTimeout: 300, connectionsCheckingInterval: 25 }, h.app.handler);
    server.on('clientError', answerClientError);
    const port = await listen(server);
    try {
      const stalledHeaders = await rawExchange(port, ['GET /events HTTP/1.1\r\nHost: x\r\n'], { idleMs: 5_000 });
      const stalledBody = await rawExchange(port, [`POST /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.keys.admin}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title"`], { idleMs: 5_000 });
      for (const response of [stalledHeaders, stalledBody]) {
        assert.equal(response.status, 408);
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(JSON.parse(response.body).error, 'request_timeout');
        assert.equal(response.closed, true);
      }
    } finally {
      await stop(server);
      await h.close();
    }
  });

  it('gives the answers to what node refuses (408, 431) the CORS headers of an allowed origin, and no-store', async () => {
    const origin = 'https://app.campus.edu';
    const h = await startHarness({ corsOrigins: [origin] });
    const server = http.createServer({ headersTimeout: 200, requestTimeout: 300, connectionsCheckingInterval: 25 }, h.app.handler);
    server.on('clientError', h.app.clientError);
    const port = await listen(server);
    try {
      const stalledBody = (from: string): Promise<RawResponse> =>
        rawExchange(port, [`POST /events HTTP/1.1\r\nHost: x\r\nOrigin: ${from}\r\nAuthorization: Bearer ${h.keys.admin}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title"`], { idleMs: 5_000 });
      const tooLarge = (from: string): Promise<RawResponse> => rawExchange(port, [`GET /events HTTP/1.1\r\nHost: x\r\nOrigin: ${from}\r\nX-Padding: ${'a'.repeat(17 * 1024)}\r\n\r\n`]);
      for (const [response, status] of [[await stalledBody(origin), 408], [await tooLarge(origin), 431]] as const) {
        assert.equal(response.status, status);
        assert.equal(response.headers['access-control-allow-origin'], origin, `${status}: a page can read it`);
        assert.equal(response.headers['vary'], 'Origin');
        assert.equal(response.headers['cache-control'], 'no-store');
      }
      for (const response of [await stalledBody('https://elsewhere.example'), await tooLarge('https://elsewhere.example')]) {
        assert.equal(response.headers['access-control-allow-origin'], undefined, 'not for another origin');
      }
    } finally {
      await stop(server);
      await h.close();
    }
  });

  it('answers a core that throws or rejects with a JSON 500 that reveals nothing', async () => {
    for (const handle of [() => { throw new Error('secret detail'); }, () => Promise.reject(new Error('secret detail'))]) {
      const server = http.createServer(toNodeListener(handle, silentLogger));
      const port = await listen(server);
      try {
        const response = await rawExchange(port, ['GET /events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
        assert.equal(response.status, 500);
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(response.headers['api-version'], '1.0');
        assert.equal(response.headers['cache-control'], 'no-store', 'an error, like every other');
        assert.ok(response.headers['x-request-id']);
        const body = JSON.parse(response.body);
        assert.equal(body.error, 'internal');
        assert.ok(!body.message.includes('secret'));
      } finally {
        await stop(server);
      }
    }
  });
});
