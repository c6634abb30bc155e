// Slow, stalled and oversized clients over real sockets: they are cut off on time, and everyone else is still served.
// The server is built by startServer with short time-outs (its `timeouts` option), so no test waits 30 s.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it, type TestContext } from 'node:test';
import { CONTRACT_TIMEOUTS, startServer } from '../../src/start-server.js';
import { tempDir } from '../helpers/harness.js';
import { pause, parseResponse, rawConnect, type RawClient } from './raw-client.js';
import { assertErrorShape, closedWithin, send, startLive, type LiveServer } from './support.js';

const TIMEOUTS = { headersMs: 500, requestMs: 1_000, keepAliveMs: 500 };
/** How late a cut-off may come: the server checks every headersMs/10, plus a loaded 2-core machine. */
const SLACK_MS = 400;
/** node:http closes an idle keep-alive connection this long after the time it advertises. */
const KEEP_ALIVE_GRACE_MS = 1_000;

function assert408(client: RawClient, what: string): void {
  const response = parseResponse(client.received());
  assert.ok(response !== undefined, `${what}: a response, got ${JSON.stringify(client.received().slice(0, 200))}`);
  assert.equal(response.status, 408, what);
  assert.equal(assertErrorShape(response.status, response.headers['content-type'], response.body, what).error, 'request_timeout');
  assert.equal(response.headers['connection'], 'close', what);
}

/** A connection to a server of its own with `timeouts`, one GET answered on it (stopped when `t` ends); `answered` is what came back. */
async function keptAlive(t: TestContext, timeouts: { headersMs: number; requestMs: number; keepAliveMs: number }): Promise<{ client: RawClient; answered: string }> {
  const server = await startLive({ timeouts });
  t.after(() => server.close());
  const client = await rawConnect(server.port);
  client.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  await client.waitFor('{"status":"ok"}', 2_000);
  return { client, answered: client.received() };
}

describe('startServer() time-outs', () => {
  it('uses the contract time-outs by default: headers 10 s, request 30 s, keep-alive 5 s', async () => {
    const { dir, remove } = tempDir();
    const running = await startServer({ dataDir: dir, port: 0, keyPollMs: 0, bootstrapAdminKey: false });
    try {
      assert.deepEqual(CONTRACT_TIMEOUTS, { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });
      assert.equal(running.server.headersTimeout, 10_000);
      assert.equal(running.server.requestTimeout, 30_000);
      assert.equal(running.server.keepAliveTimeout, 5_000);
      const response = await fetch(`${running.url}/health`);
      assert.equal(response.headers.get('keep-alive'), 'timeout=5');
      await response.text();
    } finally {
      await running.close(100);
      remove();
    }
  });
});

describe('startServer({timeouts}) checks', () => {
  it('refuses headersMs over requestMs before it takes the data folder', async () => {
    const { dir, remove } = tempDir();
    try {
      await assert.rejects(startServer({ dataDir: dir, port: 0, bootstrapAdminKey: false, timeouts: { headersMs: 2_000, requestMs: 1_000, keepAliveMs: 500 } }), (error: Error) => error instanceof TypeError && error.message === 'startServer: timeouts.headersMs (2000) must not exceed timeouts.requestMs (1000)');
      const running = await startServer({ dataDir: dir, port: 0, keyPollMs: 0, bootstrapAdminKey: false });
      await running.close(100);
    } finally {
      remove();
    }
  });
});

describe('startServer({timeouts}) with stalled and slow clients', () => {
  let live: LiveServer;
  before(async () => {
    live = await startLive({ timeouts: TIMEOUTS });
  });
  after(() => live.close());

  it('answers headers not complete within headersMs with a 408 JSON body and closes', async () => {
    const client = await rawConnect(live.port);
    client.write('GET /events HTTP/1.1\r\nHost: x\r\n');
    const elapsed = await client.closed;
    assert408(client, 'stalled headers');
    assert.ok(elapsed >= TIMEOUTS.headersMs - 50 && elapsed <= TIMEOUTS.headersMs + SLACK_MS, `cut off after ${elapsed} ms`);
  });

  it('cuts off a client dripping header bytes at headersMs: activity does not extend the deadline', async () => {
    const client = await rawConnect(live.port);
    const head = `GET /events HTTP/1.1\r\nHost: x\r\nX-Slow: ${'s'.repeat(200)}\r\n`;
    void (async () => {
      for (const byte of head) {
        if (client.isClosed()) return;
        client.write(byte);
        await pause(20);
      }
    })();
    const elapsed = await client.closed;
    assert408(client, 'slow-loris headers');
    assert.ok(elapsed <= TIMEOUTS.headersMs + SLACK_MS, `cut off after ${elapsed} ms`);
  });

  it('closes a connection that sends nothing at all by headersMs', async () => {
    const client = await rawConnect(live.port);
    const elapsed = await client.closed;
    assert.ok(elapsed <= TIMEOUTS.headersMs + SLACK_MS, `closed after ${elapsed} ms`);
    if (client.received() !== '') assert408(client, 'silent connection');
  });

  it('answers a body not complete within requestMs with a 408 JSON body, though its headers came in time', async () => {
    const client = await rawConnect(live.port);
    client.write(`POST /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live.keys.organizer}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
    void (async () => {
      while (!client.isClosed()) {
        client.write(' ');
        await pause(50);
      }
    })();
    const elapsed = await client.closed;
    assert408(client, 'slow body');
    assert.ok(elapsed >= TIMEOUTS.requestMs - 50, `not cut off at headersMs (${elapsed} ms)`);
    assert.ok(elapsed <= TIMEOUTS.requestMs + SLACK_MS, `cut off after ${elapsed} ms`);
  });

  // Node 20 closes an idle connection 1 s after the advertised keep-alive time, so a client never reuses a closing one.
  it('closes an idle keep-alive connection after keepAliveMs (plus node\'s 1 s grace), silently', async () => {
    const client = await rawConnect(live.port);
    client.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await client.waitFor('{"status":"ok"}', 2_000);
    const answered = client.received();
    const started = Date.now();
    await client.closed;
    const idle = Date.now() - started;
    assert.ok(idle >= TIMEOUTS.keepAliveMs - 100 && idle <= TIMEOUTS.keepAliveMs + KEEP_ALIVE_GRACE_MS + SLACK_MS, `closed after ${idle} ms idle`);
    assert.equal(client.received(), answered, 'nothing is sent on an idle close');
  });

  it('answers a next request begun on a kept-alive connection and stalled there with a 408, as on a new connection', async (t) => {
    // As the contract's time-outs stand: the keep-alive time (plus node's 1 s grace) runs out before the head's.
    const { client, answered: head } = await keptAlive(t, { headersMs: 2_500, requestMs: 3_000, keepAliveMs: 500 });
    const answered = head.length;
    await pause(50);
    client.write('GET /events HTTP/1.1\r\nHo');
    const begun = Date.now();
    await client.closed;
    const stalled = Date.now() - begun;
    const response = parseResponse(client.received().slice(answered));
    assert.ok(response !== undefined, `a response to the stalled request, got ${JSON.stringify(client.received().slice(answered, answered + 200))}`);
    assert.equal(response.status, 408);
    assert.equal(assertErrorShape(response.status, response.headers['content-type'], response.body, 'stalled next request').error, 'request_timeout');
    assert.ok(stalled <= 2_500 + SLACK_MS, `cut off after ${stalled} ms`);
  });

  it('closes, silently, a kept-alive connection whose client sent only a stray CRLF (node skips it: no request begins)', async (t) => {
    const { client, answered } = await keptAlive(t, { headersMs: 1_000, requestMs: 1_500, keepAliveMs: 300 });
    await pause(50);
    client.write('\r\n');
    const sent = Date.now();
    const closed = await Promise.race([client.closed.then(() => true), pause(8_000).then(() => false)]);
    assert.ok(closed, 'the connection was closed');
    // Keep-alive (node adds 1 s), then the head's time and its check's slack, once.
    assert.ok(Date.now() - sent <= 300 + KEEP_ALIVE_GRACE_MS + 1_000 + 2_000 + SLACK_MS, `closed after ${Date.now() - sent} ms`);
    assert.equal(client.received(), answered, 'nothing is sent on an idle close');
  });

  it('closes a kept-alive connection whose client sends a CRLF now and then, but no request, by a deadline the CRLFs do not move', async (t) => {
    const { client, answered } = await keptAlive(t, { headersMs: 1_000, requestMs: 1_500, keepAliveMs: 300 });
    // After the keep-alive's first run-out (node adds 1 s), a CRLF every 800 ms: more often than the keep-alive time.
    client.write('\r\n');
    const sent = Date.now();
    await pause(300 + KEEP_ALIVE_GRACE_MS + 200);
    for (let i = 0; i < 8 && !client.isClosed(); i++) {
      client.write('\r\n');
      await pause(800);
    }
    const closed = await Promise.race([client.closed.then(() => true), pause(3_000).then(() => false)]);
    assert.ok(closed, 'the connection was closed');
    assert.ok(Date.now() - sent <= 300 + KEEP_ALIVE_GRACE_MS + 1_000 + 2_000 + SLACK_MS + 800, `closed after ${Date.now() - sent} ms`);
    assert.equal(client.received(), answered, 'nothing is sent on an idle close');
  });

  it('closes an idle connection after a pipelined burst as any idle one: keep-alive time, no more', async (t) => {
    const quick = await startLive({ timeouts: { headersMs: 3_000, requestMs: 4_000, keepAliveMs: 300 } });
    t.after(() => quick.close());
    const client = await rawConnect(quick.port);
    client.write('GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: one\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: two\r\n\r\n');
    await client.waitFor('X-Request-Id: two', 2_000);
    const started = Date.now();
    await client.closed;
    assert.ok(Date.now() - started <= 300 + KEEP_ALIVE_GRACE_MS + SLACK_MS, `closed after ${Date.now() - started} ms idle (the head's time would be 3 s more)`);
  });

  it('keeps a busy keep-alive connection open past keepAliveMs and headersMs', async () => {
    const client = await rawConnect(live.port);
    const rounds = Math.ceil((TIMEOUTS.requestMs * 1.5) / (TIMEOUTS.keepAliveMs / 3));
    for (let i = 1; i <= rounds; i++) {
      client.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: round-${i}\r\n\r\n`);
      await client.waitFor(`X-Request-Id: round-${i}`, 2_000);
      await pause(TIMEOUTS.keepAliveMs / 3);
    }
    assert.equal(client.isClosed(), false);
    client.destroy();
  });

  it('serves other clients at once while 50 sockets stall, then cuts the 50 off with 408', async (t) => {
    // Its own server, with time-outs long enough that a busy machine serves the 40 before the first stall's cut-off.
    const patientTimeouts = { headersMs: 3_000, requestMs: 4_000, keepAliveMs: 500 };
    const patient = await startLive({ timeouts: patientTimeouts });
    t.after(() => patient.close());
    const stalled: RawClient[] = [];
    for (let i = 0; i < 50; i++) {
      const client = await rawConnect(patient.port);
      client.write(i % 2 === 0 ? 'GET /events HTTP/1.1\r\nHost: x\r\n' : `POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\nAuthorization: Bearer ${patient.keys.organizer}\r\n\r\n{"ti`);
      stalled.push(client);
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    try {
      // "At once" is an order, not a time (timings belong in benchmarks): all 40 are answered while every stalled socket
      // is still open, so none of them waited for a stalled socket's cut-off.
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const response = await send(patient.port, agent, { method: 'GET', path: i % 2 === 0 ? '/health' : '/events?limit=5', headers: { authorization: `Bearer ${patient.keys.reader}` } });
          assert.equal(response.status, 200);
        }),
      );
      assert.ok(stalled.filter((client) => client.isClosed()).length === 0, 'the stalled sockets were still open while the others were served');
    } finally {
      agent.destroy();
    }
    const elapsed = await Promise.all(stalled.map((client) => client.closed));
    assert.ok(Math.max(...elapsed) <= patientTimeouts.requestMs + SLACK_MS, `last stalled socket closed after ${Math.max(...elapsed)} ms`);
    for (const [i, client] of stalled.entries()) assert408(client, `stalled socket ${i}`);
  });

  for (const [name, head] of [
    ['a declared POST body over 64 KiB', 'POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 33554432\r\n'],
    ['a chunked POST body growing past 64 KiB', 'POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n'],
    ['a declared body over 64 KiB on GET, a route without a body', 'GET /events HTTP/1.1\r\nHost: x\r\nContent-Length: 33554432\r\n'],
  ] as const) {
    it(`answers ${name} and closes, so the rest of a 32 MiB body is never read`, async () => {
      const client = await rawConnect(live.port);
      const serverSocket = live.sockets[live.sockets.length - 1]!;
      const chunked = head.includes('chunked');
      client.write(`${head}Authorization: Bearer ${live.keys.organizer}\r\n\r\n`);
      const piece = Buffer.alloc(256 * 1024, 0x20);
      const framed = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
      let written = 0;
      while (!client.isClosed() && written < 32 * 1024 * 1024) {
        written += piece.length;
        if (!client.socket.write(framed)) await Promise.race([new Promise((resolve) => client.socket.once('drain', resolve)), client.closed]);
      }
      assert.ok(await closedWithin(client.socket, 2_000), 'the server closed the connection');
      const response = parseResponse(client.received());
      assert.ok(response !== undefined, `a response, got ${JSON.stringify(client.received().slice(0, 200))}`);
      assert.equal(response.headers['connection'], 'close');
      if (head.startsWith('POST')) assert.equal(assertErrorShape(response.status, response.headers['content-type'], response.body, name).error, 'payload_too_large');
      assert.ok(serverSocket.bytesRead < 4 * 1024 * 1024, `the server read ${serverSocket.bytesRead} bytes of a 32 MiB body`);
    });
  }
});
