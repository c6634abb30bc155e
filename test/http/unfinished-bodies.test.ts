// UnfinishedBodies through a real server: a client still sending its body when shutdown's grace runs out gets a 503.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { test } from 'node:test';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKey } from '../../src/auth/key-registry.js';
import { toNodeListener } from '../../src/http/node-adapter.js';
import { UnfinishedBodies } from '../../src/http/unfinished-bodies.js';
import { silentLogger } from '../../src/log/logger.js';
import { startServerWith } from '../../src/start-server.js';
import { tempDir } from '../helpers/harness.js';

test('UnfinishedBodies.answerAll() answers each read still registered, once, and none removed before', async () => {
  const bodies = new UnfinishedBodies();
  const answered: string[] = [];
  bodies.add(async () => void answered.push('a'));
  const removeB = bodies.add(async () => void answered.push('b'));
  removeB();
  assert.equal(bodies.size, 1);
  await bodies.answerAll();
  await bodies.answerAll();
  assert.deepEqual(answered, ['a']);
});

test('shutdown: a POST whose body is still arriving when the grace runs out gets a JSON 503 and Connection: close, not a cut connection', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const key = (await createKey(dir, { name: 'Olivia Organizer', email: 'olivia@campus.edu', role: 'organizer' }, { randomBytes, now: Date.now })).secret;
  const running = await startServerWith({ dataDir: dir, port: 0, keyPollMs: 0 }, { unsafeNoSync: true });
  const socket = net.connect(running.address.port, '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (received += chunk));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const requestSeen = new Promise<void>((resolve) => running.server.once('request', () => resolve()));
  socket.write(`POST /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"ti`);
  await requestSeen;
  await running.close(100);
  await ended;
  const [head = '', body = ''] = received.split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 503 /, received);
  assert.match(head, /\r\nConnection: close/i);
  assert.deepEqual(Object.keys(JSON.parse(body)), ['error', 'message']);
  assert.equal(JSON.parse(body).error, 'unavailable');
});

test('toNodeListener: a body read whose client goes away is let go of at once (nothing kept until shutdown)', async (t) => {
  const bodies = new UnfinishedBodies();
  const server = http.createServer(toNodeListener(() => ({ status: 204, headers: {}, body: null }), silentLogger, { unfinished: bodies }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const requestClosed = new Promise<void>((resolve) => server.once('request', (req: http.IncomingMessage) => req.once('close', () => resolve())));
  const requestSeen = new Promise<void>((resolve) => server.once('request', () => setImmediate(resolve)));
  const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write('POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title"');
  await requestSeen;
  assert.equal(bodies.size, 1, 'the body read is registered while it lasts');
  socket.destroy();
  await requestClosed;
  assert.equal(bodies.size, 0);
});

