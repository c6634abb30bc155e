// startServer's keep-alive closing: an idle connection is closed after its time-out, but one whose next request was
// already waiting when the process resumed (SIGSTOP, a paused VM) is answered, not reset.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { test } from 'node:test';
import { startServerWith } from '../src/start-server.js';
import { tempDir } from './helpers/harness.js';
import { SERVER, waitFor } from './helpers/spawn.js';

/** A connection to `port` and everything it has received; `closed` settles when the server ends it. */
async function connect(port: number): Promise<{ socket: net.Socket; received: () => string; closed: Promise<string | undefined> }> {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<string | undefined>((resolve) => {
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    socket.on('close', () => resolve(undefined));
  });
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return { socket, received: () => received, closed };
}

test('startServer closes a keep-alive connection left idle past its time-out', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const running = await startServerWith({ dataDir: dir, port: 0, keyPollMs: 0, timeouts: { headersMs: 1_000, requestMs: 2_000, keepAliveMs: 200 } }, { unsafeNoSync: true });
  t.after(() => running.close(100));
  const client = await connect(running.address.port);
  client.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal(await client.closed, undefined, 'closed by the server, cleanly');
  assert.match(client.received(), /^HTTP\/1\.1 200 /);
});

test('a request waiting on a kept-alive connection while the server was stopped (SIGSTOP) past the keep-alive time-out is answered after SIGCONT', { skip: process.platform === 'win32', timeout: 60_000 }, async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const child = spawn(process.execPath, [SERVER, '--port', '0', '--data-dir', dir, '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  assert.ok(await waitFor(async () => out.includes('listening on'), 15_000));
  const port = Number(/:(\d+)\s*$/.exec(out.trim())![1]);
  const client = await connect(port);
  client.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.ok(await waitFor(async () => client.received().includes('{"status":"ok"}'), 5_000));
  child.kill('SIGSTOP');
  // Past the 5 s of idle keep-alive (node waits a second more) while stopped; the next request is sent before it resumes.
  await new Promise((resolve) => setTimeout(resolve, 7_000));
  client.socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await new Promise((resolve) => setTimeout(resolve, 100));
  child.kill('SIGCONT');
  assert.equal(await client.closed, undefined, `not reset; received: ${JSON.stringify(client.received())}`);
  assert.equal(client.received().match(/HTTP\/1\.1 200 /g)?.length, 2);
});

type Running = Awaited<ReturnType<typeof startServerWith>>;

/**
 * Sends `requests` on one connection, reads the first bytes, then stops reading until the server holds bytes the
 * kernel would not take (its socket's buffer is not empty); then stops the server, reads everything, and returns it.
 */
async function stopBehindSlowClient(running: Running, requests: string): Promise<Buffer> {
  const serverSide = new Promise<net.Socket>((resolve) => running.server.once('connection', resolve));
  const client = net.connect(running.address.port, '127.0.0.1');
  await new Promise<void>((resolve) => client.once('connect', resolve));
  const socket = await serverSide;
  const chunks: Buffer[] = [];
  client.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
  client.write(requests);
  await new Promise<void>((resolve) => client.once('data', () => resolve()));
  client.pause();
  assert.ok(await waitFor(async () => socket.writableLength > 0, 20_000), 'the server held bytes the client did not read');
  const stopped = running.close();
  client.resume();
  await Promise.all([stopped, closed]);
  return Buffer.concat(chunks);
}

/** The answers in `received`, each checked to hold every byte its Content-Length says: their lengths. */
function wholeAnswers(received: Buffer): number[] {
  const lengths: number[] = [];
  let at = 0;
  while (at < received.length) {
    const headEnd = received.indexOf('\r\n\r\n', at);
    assert.notEqual(headEnd, -1, `answer ${lengths.length + 1} stops inside its head`);
    const head = received.subarray(at, headEnd).toString('latin1');
    const length = Number(/\r\ncontent-length: (\d+)\r\n/i.exec(head)?.[1]);
    assert.ok(received.length - headEnd - 4 >= length, `answer ${lengths.length + 1} (${head.split('\r\n')[0]}) has ${received.length - headEnd - 4} of its ${length} bytes`);
    at = headEnd + 4 + length;
    lengths.push(length);
  }
  return lengths;
}

/** Creates each body with POST `path`, as the admin. */
async function create(running: Running, path: string, bodies: readonly Record<string, unknown>[]): Promise<void> {
  for (const body of bodies) {
    const made = await fetch(`${running.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${running.app.initialAdminKey!}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(made.status, 201, await made.text());
  }
}

const LONG = { description: 'x'.repeat(5000), category: 'academic', location: 'Hall A', capacity: 10 };

test('a stop while a large answer is still on its way to a slow client lets it finish: every byte of its Content-Length arrives', { timeout: 60_000 }, async (t) => {
  const running = await startServerWith({ store: 'memory', port: 0, keyPollMs: 0 }, {});
  t.after(() => running.close(100));
  // Four series of 500 occurrences with long descriptions: a calendar feed of some 5 MB, more than the kernel's
  // buffers on both sides hold, so part of it is still in the server when the stop comes.
  await create(running, '/series', [0, 1, 2, 3].map((n) => ({ ...LONG, title: `Lecture ${n}`, start_time: `2027-01-0${n + 1}T10:00:00Z`, end_time: `2027-01-0${n + 1}T11:00:00Z`, recurrence: 'FREQ=DAILY;COUNT=500' })));
  const received = await stopBehindSlowClient(running, `GET /events.ics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${running.app.initialAdminKey!}\r\n\r\n`);
  const lengths = wholeAnswers(received);
  assert.equal(lengths.length, 1);
  assert.ok(lengths[0]! > 5_000_000, `a feed of ${lengths[0]} bytes`);
});

test('a stop while small answers wait behind a client that stopped reading lets each finish: no answer is cut short', { timeout: 60_000 }, async (t) => {
  const running = await startServerWith({ store: 'memory', port: 0, keyPollMs: 0 }, {});
  t.after(() => running.close(100));
  await create(running, '/events', Array.from({ length: 10 }, (_, n) => ({ ...LONG, title: `Talk ${n}`, start_time: '2027-01-01T10:00:00Z', end_time: '2027-01-01T11:00:00Z' })));
  // Pages of some 50 KB, each under 64 KiB, 300 of them pipelined: 15 MB, more than the kernel's buffers on both
  // sides hold, so when the stop comes the newest answer the server ended is still partly in it.
  const received = await stopBehindSlowClient(running, `GET /events?limit=10 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${running.app.initialAdminKey!}\r\n\r\n`.repeat(300));
  const lengths = wholeAnswers(received);
  assert.ok(lengths.length >= 2 && lengths.every((length) => length > 50_000 && length < 65_536), `${lengths.length} answers of ${lengths[0]} bytes`);
});
