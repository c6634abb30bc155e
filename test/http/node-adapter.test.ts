// toNodeListener on a real socket: after a 413 nothing pipelined behind the oversized body is read or run (API.md §3, issue 12.1).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseResponse, rawConnect } from '../hardening/raw-client.js';
import { send, startLive, type LiveServer } from '../hardening/support.js';
import http from 'node:http';
import { createLogger } from '../../src/log/logger.js';
import { createKey } from '../../src/auth/key-registry.js';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/index.js';
import { toNodeListener } from '../../src/http/node-adapter.js';

const EVENT = JSON.stringify({ title: 'Pinned', category: 'social', location: 'Hall', start_time: '2030-01-01T10:00:00Z', end_time: '2030-01-01T11:00:00Z', capacity: 5 });

async function createEvent(live: LiveServer): Promise<string> {
  const agent = new http.Agent({ keepAlive: false });
  const created = await send(live.port, agent, { method: 'POST', path: '/events', headers: { authorization: `Bearer ${live.keys.admin}`, 'content-type': 'application/json' }, body: EVENT });
  assert.equal(created.status, 201);
  return (JSON.parse(created.text) as { id: string }).id;
}

async function count(live: LiveServer): Promise<number> {
  const agent = new http.Agent({ keepAlive: false });
  const list = await send(live.port, agent, { method: 'GET', path: '/events', headers: { authorization: `Bearer ${live.keys.admin}` } });
  return (JSON.parse(list.text) as { total: number }).total;
}

/** Sends `bytes` on one connection and resolves with everything the server answered before closing it. */
async function exchange(live: LiveServer, bytes: Buffer): Promise<string> {
  const client = await rawConnect(live.port);
  client.write(bytes);
  await client.closed;
  return client.received();
}

function head(method: string, path: string, live: LiveServer, extra: string): string {
  return `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live.keys.admin}\r\nContent-Type: application/json\r\n${extra}\r\n`;
}

test('toNodeListener: a DELETE pipelined behind a 70,000-byte Content-Length body never runs', async () => {
  const live = await startLive();
  try {
    const id = await createEvent(live);
    const big = Buffer.concat([Buffer.from(head('POST', '/events', live, 'Content-Length: 70000\r\n')), Buffer.alloc(70_000, 0x20), Buffer.from(head('DELETE', `/events/${id}`, live, 'Content-Length: 0\r\n'))]);
    const answered = await exchange(live, big);
    assert.equal(parseResponse(answered)?.status, 413);
    assert.equal(answered.split('HTTP/1.1 ').length - 1, 1, 'exactly one response');
    assert.equal(await count(live), 1, 'the pipelined DELETE did not run');
  } finally {
    await live.close();
  }
});

test('toNodeListener: a DELETE pipelined behind a 70,000-byte chunked body never runs', async () => {
  const live = await startLive();
  try {
    const id = await createEvent(live);
    const chunk = Buffer.alloc(70_000, 0x20);
    const big = Buffer.concat([
      Buffer.from(head('POST', '/events', live, 'Transfer-Encoding: chunked\r\n')),
      Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n0\r\n\r\n'),
      Buffer.from(head('DELETE', `/events/${id}`, live, 'Content-Length: 0\r\n')),
    ]);
    const answered = await exchange(live, big);
    assert.equal(parseResponse(answered)?.status, 413);
    assert.equal(await count(live), 1, 'the pipelined DELETE did not run');
  } finally {
    await live.close();
  }
});

test('toNodeListener: a POST pipelined behind a 413 PUT creates nothing', async () => {
  const live = await startLive();
  try {
    const id = await createEvent(live);
    const big = Buffer.concat([
      Buffer.from(head('PUT', `/events/${id}`, live, 'Content-Length: 70000\r\n')), Buffer.alloc(70_000, 0x20),
      Buffer.from(head('POST', '/events', live, `Content-Length: ${Buffer.byteLength(EVENT)}\r\n`)), Buffer.from(EVENT),
    ]);
    const answered = await exchange(live, big);
    assert.equal(parseResponse(answered)?.status, 413);
    assert.equal(await count(live), 1, 'the pipelined POST did not run');
  } finally {
    await live.close();
  }
});

test('toNodeListener: Expect: 100-continue with a bad key gets its 401 without being invited to send the body', async () => {
  const live = await startLive();
  try {
    const client = await rawConnect(live.port);
    client.write(`POST /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer cek_nope\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(EVENT)}\r\nExpect: 100-continue\r\n\r\n`);
    await client.closed;
    assert.ok(!client.received().includes('100 Continue'), client.received());
    assert.equal(parseResponse(client.received())?.status, 401);
  } finally {
    await live.close();
  }
});

test('toNodeListener: Expect: 100-continue with a good key is invited, and the event is created', async () => {
  const live = await startLive();
  try {
    const client = await rawConnect(live.port);
    client.write(`POST /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live.keys.admin}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(EVENT)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
    await client.waitFor('100 Continue', 5_000);
    client.write(EVENT);
    await client.closed;
    assert.match(client.received(), /HTTP\/1\.1 201 /);
  } finally {
    await live.close();
  }
});

test('toNodeListener: Expect: 100-continue with a key the CLI made after the start is invited too, and the event is created', async () => {
  const live = await startLive();
  try {
    // keys.json changed under the running server (no polling here): only the look the unknown key asks for finds it.
    const { secret } = await createKey(live.dataDir, { name: 'Just made', email: 'new@campus.edu', role: 'organizer' }, { randomBytes, now: Date.now });
    const client = await rawConnect(live.port);
    client.write(`POST /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(EVENT)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
    await client.waitFor('100 Continue', 5_000);
    client.write(EVENT);
    await client.closed;
    assert.match(client.received(), /HTTP\/1\.1 201 /);
  } finally {
    await live.close();
  }
});

test('toNodeListener: the request log line has the client address, a clipped user agent, and no percent-encoded key (issues 11.9, 12.6)', async () => {
  const written: string[] = [];
  const logger = createLogger({ write: (text) => written.push(text) });
  const live = await startLive({ logger });
  try {
    const agent = new http.Agent({ keepAlive: false });
    const secret = live.keys.reader.slice(4);
    await send(live.port, agent, { method: 'GET', path: `/events?token=cek%5F${secret}`, headers: { authorization: `Bearer ${live.keys.reader}`, 'user-agent': `probe/1.0 ${'x'.repeat(300)}` } });
    await send(live.port, agent, { method: 'GET', path: `/events/%63ek_${secret}`, headers: { authorization: `Bearer ${live.keys.reader}` } });
    logger.flush();
    const lines = written.join('').split('\n').filter((line) => line.includes('"msg":"request"')).map((line) => JSON.parse(line) as Record<string, string>);
    assert.equal(lines.length, 2);
    assert.ok(!written.join('').includes(secret), 'the secret is in no log line');
    assert.equal(lines[0]!['client'], '127.0.0.1');
    assert.ok(lines[0]!['user_agent']!.startsWith('probe/1.0 xxx') && lines[0]!['user_agent']!.length <= 121, lines[0]!['user_agent']);
  } finally {
    await live.close();
  }
});

test('answerClientError: what node\'s parser refuses (not HTTP, a body stalled past its time-out) gets a request log line like any answer', async () => {
  const written: string[] = [];
  const logger = createLogger({ write: (text) => written.push(text) });
  const live = await startLive({ logger, timeouts: { headersMs: 500, requestMs: 1_000, keepAliveMs: 500 } });
  try {
    const garbage = await exchange(live, Buffer.from('GARBAGE\r\n\r\n'));
    assert.equal(parseResponse(garbage)?.status, 400);
    const stalled = await rawConnect(live.port);
    stalled.write(head('POST', '/events', live, 'Content-Length: 100\r\nX-Request-Id: trace-42\r\n') + '{"title":');
    await stalled.closed;
    const cutOff = parseResponse(stalled.received());
    assert.equal(cutOff?.status, 408);
    assert.equal(cutOff.headers['x-request-id'], 'trace-42', 'the head was read: its request id is echoed');
    // A kept-alive connection whose second head stalls: logged as '-', not as the first request answered on it.
    const second = await rawConnect(live.port);
    second.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /events?limit=7 HTTP/1.1\r\nHost: x\r\n');
    await second.closed;
    assert.match(second.received(), /^HTTP\/1\.1 200 [\s\S]*HTTP\/1\.1 408 /);
    logger.flush();
    const lines = written.join('').split('\n').filter((line) => line.includes('"msg":"request"')).map((line) => JSON.parse(line) as Record<string, unknown>);
    const refused = lines.find((line) => line['status'] === 400);
    assert.ok(refused !== undefined, `a line for the 400, got ${JSON.stringify(lines)}`);
    assert.equal(refused['method'], '-', 'no method was parsed');
    assert.equal(refused['client'], '127.0.0.1');
    const cuts = lines.filter((line) => line['status'] === 408);
    assert.equal(cuts.length, 2, `a line for each 408, got ${JSON.stringify(lines)}`);
    assert.equal(cuts[0]!['method'], 'POST');
    assert.equal(cuts[0]!['path'], '/events');
    assert.equal(cuts[0]!['request_id'], 'trace-42');
    assert.ok((cuts[0]!['duration_ms'] as number) >= 500, `timed from the request's start, got ${String(cuts[0]!['duration_ms'])} ms`);
    assert.deepEqual([cuts[1]!['method'], cuts[1]!['path']], ['-', '-'], 'the stalled second head, not the /health before it');
  } finally {
    await live.close();
  }
});

test('toNodeListener: a request in flight when shutdown begins is answered with Connection: close, not a reset', async () => {
  const live = await startLive();
  const client = await rawConnect(live.port);
  try {
    client.write(`POST /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live.keys.admin}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(EVENT)}\r\n\r\n${EVENT.slice(0, 10)}`);
    // Once the server has read the head (parsed in the same turn), the request is in flight.
    while (!(live.sockets.some((socket) => socket.bytesRead > 0))) await new Promise((resolve) => setTimeout(resolve, 5));
    const closing = live.running.close(2_000);
    client.write(EVENT.slice(10));
    await client.closed;
    const response = parseResponse(client.received());
    assert.equal(response?.status, 201);
    assert.equal(response?.headers['connection'], 'close');
    await closing;
  } finally {
    client.destroy();
    await live.close();
  }
});

test('toNodeListener: garbage after an oversized body gets no second answer, only the 413', async () => {
  const live = await startLive();
  try {
    const big = Buffer.concat([Buffer.from(head('POST', '/events', live, 'Content-Length: 70000\r\n')), Buffer.alloc(70_000, 0x20), Buffer.from('NOT HTTP AT ALL\r\n\r\n')]);
    const answered = await exchange(live, big);
    assert.equal(parseResponse(answered)?.status, 413);
    assert.equal(answered.split('HTTP/1.1 ').length - 1, 1, `exactly one response: ${answered.slice(0, 400)}`);
  } finally {
    await live.close();
  }
});

test('toNodeListener: a request pipelined before the oversized one is still answered, then the 413, and nothing after runs', async () => {
  const live = await startLive();
  try {
    const id = await createEvent(live);
    const big = Buffer.concat([
      Buffer.from(head('POST', '/events', live, `Content-Length: ${Buffer.byteLength(EVENT)}\r\n`)), Buffer.from(EVENT),
      Buffer.from(head('POST', '/events', live, 'Content-Length: 70000\r\n')), Buffer.alloc(70_000, 0x20),
      Buffer.from(head('DELETE', `/events/${id}`, live, 'Content-Length: 0\r\n')),
    ]);
    const answered = await exchange(live, big);
    const statuses = [...answered.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
    assert.deepEqual(statuses, [201, 413]);
    assert.equal(await count(live), 2, 'the first POST ran, the DELETE did not');
  } finally {
    await live.close();
  }
});

test('toNodeListener: a list page sends the Content-Length its handler summed, in the place the adapter always put it', async () => {
  const live = await startLive();
  try {
    const agent = new http.Agent({ keepAlive: false });
    const body = JSON.stringify({ title: 'Zoë — 日本 🎉 "quoted"', description: 'naïve \\ café', category: 'social', location: 'Hall', start_time: '2030-01-01T10:00:00Z', end_time: '2030-01-01T11:00:00Z', capacity: 5 });
    const created = await send(live.port, agent, { method: 'POST', path: '/events', headers: { authorization: `Bearer ${live.keys.admin}`, 'content-type': 'application/json' }, body });
    assert.equal(created.status, 201);
    await createEvent(live);
    const answered = await exchange(live, Buffer.from(`GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live.keys.admin}\r\nConnection: close\r\n\r\n`));
    const head = answered.slice(0, answered.indexOf('\r\n\r\n'));
    const bytes = Buffer.from(answered.slice(head.length + 4), 'latin1');
    const names = head.split('\r\n').slice(1).map((line) => line.slice(0, line.indexOf(':')));
    assert.equal(Number(/\r\nContent-Length: (\d+)/.exec(head)?.[1]), bytes.length, 'Content-Length is the UTF-8 length of the body');
    assert.equal((JSON.parse(bytes.toString('utf8')) as { total: number }).total, 2);
    assert.deepEqual(names.slice(names.indexOf('ETag'), names.indexOf('Content-Length') + 1), ['ETag', 'Link', 'Content-Type', 'Content-Length']);
  } finally {
    await live.close();
  }
});

test('toNodeListener: an answer without a body (the redirect of /) says Content-Length: 0, for GET and HEAD alike, not an empty chunked body', async () => {
  const live = await startLive();
  try {
    for (const method of ['GET', 'HEAD']) {
      const answered = await exchange(live, Buffer.from(`${method} / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      const head = answered.slice(0, answered.indexOf('\r\n\r\n'));
      assert.match(head, /^HTTP\/1\.1 302 /, method);
      assert.match(head, /\r\nContent-Length: 0(\r\n|$)/, method);
      assert.doesNotMatch(head, /Transfer-Encoding/i, method);
      assert.equal(answered.slice(head.length + 4), '', `${method}: no body`);
    }
  } finally {
    await live.close();
  }
});

/** The responses in `answered`, in order: each head's status and its body, read by its Content-Length. */
function responses(answered: string): { status: number; body: string }[] {
  const bytes = Buffer.from(answered, 'latin1');
  const found: { status: number; body: string }[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end === -1) break;
    const head = bytes.toString('latin1', at, end);
    const length = Number(/\r\nContent-Length: (\d+)/i.exec(head)?.[1] ?? 0);
    found.push({ status: Number(head.slice(9, 12)), body: bytes.toString('utf8', end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return found;
}

test('toNodeListener: pipelined requests run in the order sent, each after the one before is answered (RFC 9112 §9.3.2)', async () => {
  const live = await startLive();
  try {
    const id = await createEvent(live);
    const put = (title: string): Buffer => {
      const body = JSON.stringify({ title });
      return Buffer.from(head('PUT', `/events/${id}`, live, `Content-Length: ${Buffer.byteLength(body)}\r\n`) + body);
    };
    const bodiless = (method: string, extra = ''): Buffer => Buffer.from(`${method} /events/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live.keys.admin}\r\n${extra}\r\n`);
    // A GET and a DELETE have no body, so node hands them over while the PUT before each still waits for its write.
    const answered = await exchange(live, Buffer.concat([put('After'), bodiless('GET'), put('After again'), bodiless('DELETE'), bodiless('GET', 'Connection: close\r\n')]));
    const got = responses(answered);
    assert.deepEqual(got.map((response) => response.status), [200, 200, 200, 204, 404], answered.slice(0, 2000));
    assert.deepEqual(got.slice(0, 3).map((response) => (JSON.parse(response.body) as { title: string }).title), ['After', 'After', 'After again']);
    assert.equal(await count(live), 0, 'the DELETE, sent last but one, ran after the second PUT');
  } finally {
    await live.close();
  }
});

test('toNodeListener: a request whose body the embedding read first (a body parser mounted before it) gets a 500 at once, saying why in the log, not a hang', async () => {
  const written: string[] = [];
  const logger = createLogger({ write: (text) => written.push(text) });
  const app = await createApp({ store: 'memory', logger });
  // A host that reads every body itself, then hands the request on, as express.json() before the handler would.
  const host = http.createServer((req, res) => {
    req.resume();
    req.once('end', () => app.handler(req, res));
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  try {
    const port = (host.address() as AddressInfo).port;
    const answer = await fetch(`http://127.0.0.1:${port}/events`, { method: 'POST', headers: { authorization: `Bearer ${app.initialAdminKey}`, 'content-type': 'application/json' }, body: EVENT, signal: AbortSignal.timeout(5000) });
    assert.equal(answer.status, 500);
    assert.equal(((await answer.json()) as { error: string }).error, 'internal');
    logger.flush();
    assert.match(written.join(''), /the request body was read before campus-events got the request: mount its handler before any body parser/);
    // The 500's X-Request-Id finds that line, as its message says.
    const id = answer.headers.get('x-request-id');
    const line = written.join('').split('\n').find((each) => each.includes('the request body was read before'));
    assert.ok(id !== null && line !== undefined);
    assert.equal((JSON.parse(line) as { request_id?: string }).request_id, id);
    const listed = await fetch(`http://127.0.0.1:${port}/events`, { headers: { authorization: `Bearer ${app.initialAdminKey}` } });
    assert.equal(((await listed.json()) as { total: number }).total, 0, 'nothing was written');
  } finally {
    host.closeAllConnections();
    await new Promise((resolve) => host.close(resolve));
    await app.close();
  }
});

test('toNodeListener: an answer node refuses to send (a header value it rejects) becomes a JSON 500 whose X-Request-Id finds the stack in the log', async () => {
  const written: string[] = [];
  const logger = createLogger({ write: (text) => written.push(text), schedule: (flush) => flush() });
  const handle = (): { status: number; headers: Record<string, string>; body: string } => ({ status: 200, headers: { 'X-Request-Id': 'req-7', 'X-Broken': 'a\nb' }, body: '{}' });
  const server = http.createServer(toNodeListener(handle, logger));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/events`);
    assert.equal(response.status, 500);
    assert.equal(response.headers.get('x-request-id'), 'req-7');
    assert.equal(((await response.json()) as { error: string }).error, 'internal');
    logger.flush();
    const failed = written.join('').split('\n').filter((line) => line.includes('"msg":"response failed"')).map((line) => JSON.parse(line) as Record<string, string>);
    assert.equal(failed.length, 1, written.join(''));
    assert.equal(failed[0]!['request_id'], 'req-7');
    assert.match(failed[0]!['error']!, /TypeError[^\n]*\n\s+at /);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
