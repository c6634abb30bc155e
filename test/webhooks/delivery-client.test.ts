// httpDeliveryClient against real receivers on 127.0.0.1: kept-alive connections reused, a receiver's close survived,
// chunked answers read, redirects not followed, a hung receiver given up, errors in words (API.md §13).
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { httpDeliveryClient, type AttemptOutcome, type DeliveryClient, type SentAttempt } from '../../src/webhooks/delivery-client.js';
import { hostPolicy } from '../../src/webhooks/host-policy.js';

/** Not ASCII only: Content-Length counts its UTF-8 bytes. */
const BODY = '{"type":"event.created","timestamp":"2026-11-25T08:00:00.000Z","data":{"id":"evt_1","title":"Café ☕ in the Aula"}}';

/** A node:http receiver counting its connections and requests; `answer` decides what each request gets. */
async function receiver(answer: (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void = (_, response) => void response.writeHead(204).end()): Promise<{ url: string; connections: () => number; bodies: string[]; close: () => Promise<void> }> {
  let connections = 0;
  const bodies: string[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      bodies.push(body);
      answer(request, response, body);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?from=test`,
    connections: () => connections,
    bodies,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A raw TCP receiver: `onRequest(socket, n)` is called for the n-th request head (1-based, over every connection). */
async function rawReceiver(onRequest: (socket: net.Socket, n: number) => void): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let seen = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      seen += chunk;
      // Each request is a head and a body of Buffer.byteLength(BODY) bytes.
      for (let end = seen.indexOf('\r\n\r\n'); end !== -1 && seen.length >= end + 4 + Buffer.byteLength(BODY); end = seen.indexOf('\r\n\r\n')) {
        seen = seen.slice(end + 4 + Buffer.byteLength(BODY));
        onRequest(socket, ++requests);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    connections: () => connections,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

function send(client: DeliveryClient, url: string, onSent?: (sent: SentAttempt) => void): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    const sent = client.send({ url, headers: { 'webhook-id': 'msg_test_1_0' }, body: BODY, bodyLength: Buffer.byteLength(BODY) }, resolve);
    onSent?.(sent);
  });
}

async function withClient(run: (client: DeliveryClient) => Promise<void>): Promise<void> {
  const client = httpDeliveryClient(hostPolicy(['127.0.0.1']));
  try {
    await run(client);
  } finally {
    client.close();
  }
}

test('httpDeliveryClient sends its requests one after another on one kept-alive connection, with the body, path and headers', { timeout: 20_000 }, () =>
  withClient(async (client) => {
    let seen: http.IncomingHttpHeaders | undefined;
    let path = '';
    const r = await receiver((request, response) => {
      seen = request.headers;
      path = request.url ?? '';
      response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
    try {
      for (let n = 0; n < 5; n++) assert.deepEqual(await send(client, r.url), { ok: true, responseStatus: 200, error: null });
      assert.equal(r.connections(), 1, 'one connection for five requests');
      assert.deepEqual(r.bodies, Array(5).fill(BODY));
      assert.equal(path, '/hook?from=test');
      assert.equal(seen?.['webhook-id'], 'msg_test_1_0');
      assert.equal(seen?.['content-type'], 'application/json');
      assert.equal(seen?.['host'], new URL(r.url).host);
    } finally {
      await r.close();
    }
  }));

test('httpDeliveryClient reads a chunked answer to its end and reuses the connection', { timeout: 20_000 }, () =>
  withClient(async (client) => {
    const r = await receiver((_, response) => {
      response.writeHead(202, { 'content-type': 'text/plain' });
      response.write('accepted, ');
      setImmediate(() => response.end('later'));
    });
    try {
      assert.deepEqual(await send(client, r.url), { ok: true, responseStatus: 202, error: null });
      assert.deepEqual(await send(client, r.url), { ok: true, responseStatus: 202, error: null });
      assert.equal(r.connections(), 1);
    } finally {
      await r.close();
    }
  }));

test('httpDeliveryClient opens a new connection after an answer with Connection: close', { timeout: 20_000 }, () =>
  withClient(async (client) => {
    const r = await receiver((_, response) => void response.writeHead(204, { connection: 'close' }).end());
    try {
      for (let n = 0; n < 3; n++) assert.deepEqual(await send(client, r.url), { ok: true, responseStatus: 204, error: null });
      assert.equal(r.connections(), 3);
    } finally {
      await r.close();
    }
  }));

test('httpDeliveryClient sends once more on a new connection when a kept-alive one turns out closed by the receiver', { timeout: 20_000 }, () =>
  withClient(async (client) => {
    // The receiver answers the first request, then closes the connection when the second arrives (as a keep-alive
    // timeout crossing the request would), and answers on the new connection.
    const r = await rawReceiver((socket, n) => {
      if (n === 2) return void socket.destroy();
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    });
    try {
      assert.deepEqual(await send(client, r.url), { ok: true, responseStatus: 200, error: null });
      assert.deepEqual(await send(client, r.url), { ok: true, responseStatus: 200, error: null });
      assert.equal(r.connections(), 2);
    } finally {
      await r.close();
    }
  }));

test('httpDeliveryClient does not send again on a new connection when a fresh one closes without an answer', { timeout: 20_000 }, () =>
  withClient(async (client) => {
    const r = await rawReceiver((socket) => void socket.destroy());
    try {
      const outcome = await send(client, r.url);
      assert.equal(outcome.ok, false);
      assert.match(outcome.error!, /connection reset before an answer/);
      assert.equal(r.connections(), 1);
    } finally {
      await r.close();
    }
  }));

test('httpDeliveryClient uses a new connection once the receiver closed an idle kept-alive one (its keep-alive timeout)', { timeout: 20_000 }, () =>
  withClient(async (client) => {
    let serverSide: net.Socket | undefined;
    const r = await receiver((request, response) => {
      serverSide = request.socket;
      response.writeHead(204).end();
    });
    try {
      assert.equal((await send(client, r.url)).ok, true);
      // The receiver drops the idle connection, as its keep-alive timeout would.
      const closed = new Promise((resolve) => serverSide!.once('close', resolve));
      serverSide!.destroy();
      await closed;
      assert.deepEqual(await send(client, r.url), { ok: true, responseStatus: 204, error: null });
      assert.equal(r.connections(), 2);
      assert.equal(r.bodies.length, 2);
    } finally {
      await r.close();
    }
  }));

test('httpDeliveryClient does not follow a redirect: the 302 is the outcome, and its Location gets nothing', { timeout: 20_000 }, () =>
  withClient(async (client) => {
    const elsewhere = await receiver();
    const r = await receiver((_, response) => void response.writeHead(302, { location: elsewhere.url }).end());
    try {
      assert.deepEqual(await send(client, r.url), { ok: false, responseStatus: 302, error: 'answered 302; redirects are not followed' });
      assert.equal(elsewhere.bodies.length, 0);
    } finally {
      await r.close();
      await elsewhere.close();
    }
  }));

test('httpDeliveryClient given up on a receiver that never answers: the reason is the error and the connection is closed', { timeout: 20_000 }, () =>
  withClient(async (client) => {
    let closedByClient: Promise<unknown> | undefined;
    const r = await rawReceiver((socket) => (closedByClient = new Promise((resolve) => socket.on('close', resolve))));
    try {
      const outcome = await send(client, r.url, (sent) => setTimeout(() => sent.abort('no answer within 10 s'), 20));
      assert.deepEqual(outcome, { ok: false, responseStatus: null, error: 'no answer within 10 s' });
      // The receiver sees its connection closed (else this waits until the test's timeout fails it).
      await closedByClient;
    } finally {
      await r.close();
    }
  }));

test('httpDeliveryClient given up on a receiver whose 2xx head came but whose body stalls: acknowledged by its status', { timeout: 20_000 }, () =>
  withClient(async (client) => {
    const r = await rawReceiver((socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart'));
    try {
      const outcome = await send(client, r.url, (sent) => setTimeout(() => sent.abort('no answer within 10 s'), 50));
      assert.deepEqual(outcome, { ok: true, responseStatus: 200, error: null });
    } finally {
      await r.close();
    }
  }));

test('httpDeliveryClient acknowledges a 2xx once its status line is in: a body that stalls holds up nothing, and its connection closes with the client', { timeout: 5_000 }, () =>
  withClient(async (client) => {
    let closed: Promise<unknown> | undefined;
    const r = await rawReceiver((socket) => {
      closed = new Promise((resolve) => socket.on('close', resolve));
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart');
    });
    try {
      assert.deepEqual(await send(client, r.url), { ok: true, responseStatus: 200, error: null });
      client.close();
      await closed;
    } finally {
      await r.close();
    }
  }));

test('httpDeliveryClient keeps the connection of an answer acknowledged before its body came, once the body has come', { timeout: 5_000 }, () =>
  withClient(async (client) => {
    const r = await rawReceiver((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nthan');
      setTimeout(() => socket.write('ks!\n'), 50);
    });
    try {
      assert.deepEqual(await send(client, r.url), { ok: true, responseStatus: 200, error: null });
      // Acknowledged before its body came: the connection goes back to the pool once the rest (sent 50 ms later) is
      // read, which half a second leaves ample room for.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.deepEqual(await send(client, r.url), { ok: true, responseStatus: 200, error: null });
      assert.equal(r.connections(), 1, 'the second request went on the same connection');
    } finally {
      await r.close();
    }
  }));

test('httpDeliveryClient says what went wrong: refused connection, an answer that is not HTTP, a host not allowed', { timeout: 20_000 }, () =>
  withClient(async (client) => {
    const r = await rawReceiver((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    const closedPort = await rawReceiver(() => undefined);
    const refusedUrl = closedPort.url;
    await closedPort.close();
    try {
      assert.deepEqual(await send(client, refusedUrl), { ok: false, responseStatus: null, error: 'connection refused (ECONNREFUSED)' });
      const garbage = await send(client, r.url);
      assert.equal(garbage.ok, false);
      assert.match(garbage.error!, /^the answer is not HTTP/);
      assert.deepEqual(await send(client, 'http://10.9.8.7/hook'), { ok: false, responseStatus: null, error: 'the host 10.9.8.7 is not allowed by --webhook-hosts' });
      assert.deepEqual(await send(client, 'not a url'), { ok: false, responseStatus: null, error: 'the url is not a valid URL' });
    } finally {
      await r.close();
    }
  }));
