// `make bench` (after run.ts): change-stream fan-out (1,000 open streams, one write) and the cost of Idempotency-Key on durable POSTs.
// Flags: --quick (fewer rounds and shorter runs, for trying it out).
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../src/app.js';
import { createKey } from '../../src/auth/key-registry.js';
import { spawnServer } from '../helpers/spawn.js';
import { CREATE_BODY } from './data-generator.js';
import http from 'node:http';
import { processCpuMs, residentMiB } from './server-process.js';

const quick = process.argv.includes('--quick');
const STREAMS = 1000;
const STREAMS_PER_KEY = 8;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/** Opens one change stream on a raw socket; resolves once its head arrived, then reports each `data:` frame's arrival time. */
function openStream(port: number, key: string, onFrame: (at: number) => void): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let head = false;
    let text = '';
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('connect', () => socket.write(`GET /changes?since=0 HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer ${key}\r\nAccept: text/event-stream\r\n\r\n`));
    socket.on('data', (chunk: string) => {
      const at = performance.now();
      text += chunk;
      if (!head && text.includes('\r\n\r\n')) {
        if (!text.startsWith('HTTP/1.1 200')) reject(new Error(`stream refused: ${text.slice(0, 200)}`));
        head = true;
        text = text.slice(text.indexOf('\r\n\r\n') + 4);
        resolve(socket);
      }
      if (head && text.includes('data: ')) {
        text = '';
        onFrame(at);
      }
    });
  });
}

/** 1,000 streams open on a spawned server; one POST; the time until each stream has the change, and the server's memory per stream. */
async function streamFanOut(round: number): Promise<{ p50: number; p99: number; max: number; kibPerStream: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-feeds-bench-'));
  const keys: string[] = [];
  for (let n = 0; n < STREAMS / STREAMS_PER_KEY; n++) {
    keys.push((await createKey(dir, { name: `Bench ${n}`, email: `bench${n}@campus.edu`, role: 'reader' }, { randomBytes, now: Date.now })).secret);
  }
  const writer = (await createKey(dir, { name: 'Writer', email: 'writer@campus.edu', role: 'admin' }, { randomBytes, now: Date.now })).secret;
  const server = await spawnServer(['--port', '0', '--data-dir', dir, '--log-level', 'warn']);
  const port = Number(new URL(server.url).port);
  const sockets: net.Socket[] = [];
  try {
    await fetch(`${server.url}/health`);
    const rssBefore = residentMiB(server.child.pid!);
    const arrivals: number[] = [];
    for (let n = 0; n < STREAMS; n++) sockets.push(await openStream(port, keys[Math.floor(n / STREAMS_PER_KEY)]!, (at) => arrivals.push(at)));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rssAfter = residentMiB(server.child.pid!);
    const sent = performance.now();
    const response = await fetch(`${server.url}/events`, { method: 'POST', headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' }, body: CREATE_BODY });
    if (response.status !== 201) throw new Error(`POST answered ${response.status}`);
    const deadline = Date.now() + 30_000;
    while (arrivals.length < STREAMS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    if (arrivals.length < STREAMS) throw new Error(`only ${arrivals.length} of ${STREAMS} streams got the change`);
    const delays = arrivals.map((at) => at - sent).sort((a, b) => a - b);
    process.stderr.write(`[feeds bench] fan-out round ${round}: p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms\n`);
    return { p50: percentile(delays, 50), p99: percentile(delays, 99), max: delays.at(-1)!, kibPerStream: ((rssAfter - rssBefore) * 1024) / STREAMS };
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Durable POST /events through the core (fdatasync on), 64 writers, `count` creates, with or without a
 * fresh Idempotency-Key each. A fixed count, not a fixed time: an insert costs more as the index grows,
 * so the faster side would otherwise pay for the events it added.
 */
async function postRun(withKey: boolean, count: number): Promise<{ perSecond: number; cpuMicros: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-idem-bench-'));
  const key = (await createKey(dir, { name: 'Writer', email: 'writer@campus.edu', role: 'admin' }, { randomBytes, now: Date.now })).secret;
  const app = await createApp({ dataDir: dir, keyPollMs: 0, bootstrapAdminKey: false, rateLimit: 1_000_000_000 });
  const body = Buffer.from(CREATE_BODY);
  // Made before the clock starts: the client's cost of a fresh key is not the server's.
  const idempotencyKeys = withKey ? Array.from({ length: count }, () => randomUUID()) : [];
  let issued = 0;
  const writer = async (): Promise<void> => {
    while (issued < count) {
      const headers: Record<string, string> = { host: 'bench', authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(body.length) };
      if (withKey) headers['idempotency-key'] = idempotencyKeys[issued]!;
      issued++;
      const response = await app.handle({ method: 'POST', target: '/events', headers, body, bodyTooLarge: false, remoteAddress: '127.0.0.1' });
      if (response.status !== 201) throw new Error(`POST answered ${response.status}: ${response.body}`);
    }
  };
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(Array.from({ length: 64 }, writer));
  const cpu = process.cpuUsage(cpuBefore);
  const perSecond = count / ((performance.now() - started) / 1000);
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { perSecond, cpuMicros: (cpu.user + cpu.system) / count };
}

/**
 * The same over HTTP against `node dist/server.js` (durable, request log on as in production): `count`
 * creates from 64 keep-alive connections, and the server's CPU time per create read from /proc (steadier
 * on a shared machine than requests per second).
 */
async function httpPostRun(withKey: boolean, count: number): Promise<{ perSecond: number; cpuMicros: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-idem-http-bench-'));
  const key = (await createKey(dir, { name: 'Writer', email: 'writer@campus.edu', role: 'admin' }, { randomBytes, now: Date.now })).secret;
  const server = await spawnServer(['--port', '0', '--data-dir', dir, '--rate-limit', '1000000000']);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const idempotencyKeys = withKey ? Array.from({ length: count }, () => randomUUID()) : [];
  const url = new URL(server.url);
  const post = (n: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(CREATE_BODY)) };
      if (withKey) headers['idempotency-key'] = idempotencyKeys[n]!;
      const request = http.request({ agent, host: url.hostname, port: url.port, method: 'POST', path: '/events', headers }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('error', reject);
      request.end(CREATE_BODY);
    });
  try {
    let issued = 0;
    const client = async (): Promise<void> => {
      while (issued < count) {
        const status = await post(issued++);
        if (status !== 201) throw new Error(`POST answered ${status}`);
      }
    };
    const cpuBefore = processCpuMs(server.child.pid!);
    const started = performance.now();
    await Promise.all(Array.from({ length: 64 }, client));
    const perSecond = count / ((performance.now() - started) / 1000);
    return { perSecond, cpuMicros: ((processCpuMs(server.child.pid!) - cpuBefore) * 1000) / count };
  } finally {
    agent.destroy();
    await server.stop('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const rounds = quick ? 1 : 3;
const onlyPosts = process.argv.includes('--posts');
const fanOut = [];
for (let round = 1; round <= rounds && !onlyPosts; round++) fanOut.push(await streamFanOut(round));
const plain: { perSecond: number; cpuMicros: number }[] = [];
const keyed: { perSecond: number; cpuMicros: number }[] = [];
for (let round = 1; round <= (quick ? 1 : 5); round++) {
  // Alternated, so drift in the machine's load hits both sides alike.
  plain.push(await postRun(false, quick ? 5_000 : 20_000));
  keyed.push(await postRun(true, quick ? 5_000 : 20_000));
  process.stderr.write(`[feeds bench] POST round ${round}: ${plain.at(-1)!.perSecond.toFixed(0)}/s plain, ${keyed.at(-1)!.perSecond.toFixed(0)}/s with Idempotency-Key\n`);
}
const httpPlain: { perSecond: number; cpuMicros: number }[] = [];
const httpKeyed: { perSecond: number; cpuMicros: number }[] = [];
for (let round = 1; round <= (quick ? 1 : 5); round++) {
  httpPlain.push(await httpPostRun(false, quick ? 2_000 : 10_000));
  httpKeyed.push(await httpPostRun(true, quick ? 2_000 : 10_000));
  process.stderr.write(`[feeds bench] HTTP POST round ${round}: ${httpPlain.at(-1)!.cpuMicros.toFixed(0)} µs plain, ${httpKeyed.at(-1)!.cpuMicros.toFixed(0)} µs with Idempotency-Key (server CPU per create)\n`);
}
const httpPlainCpu = median(httpPlain.map((run) => run.cpuMicros));
const httpKeyedCpu = median(httpKeyed.map((run) => run.cpuMicros));
const plainRate = median(plain.map((run) => run.perSecond));
const keyedRate = median(keyed.map((run) => run.perSecond));
const plainCpu = median(plain.map((run) => run.cpuMicros));
const keyedCpu = median(keyed.map((run) => run.cpuMicros));
const cost = (1 - keyedRate / plainRate) * 100;
const fanOutLines = onlyPosts
  ? []
  : [
    `change streams: ${STREAMS} open, one POST, time until every stream had it (median of ${rounds} rounds)`,
    `  p50 ${median(fanOut.map((r) => r.p50)).toFixed(1)} ms   p99 ${median(fanOut.map((r) => r.p99)).toFixed(1)} ms   max ${median(fanOut.map((r) => r.max)).toFixed(1)} ms`,
    `  server memory per open stream: ${median(fanOut.map((r) => r.kibPerStream)).toFixed(1)} KiB (VmRSS growth / ${STREAMS})`,
  ];
process.stdout.write(
  [
    '',
    ...fanOutLines,
    `durable POST /events through the core (fdatasync on, 64 writers): median of ${plain.length} alternated runs`,
    `  without Idempotency-Key ${plainRate.toFixed(0)}/s   with a fresh key each ${keyedRate.toFixed(0)}/s   cost ${cost.toFixed(1)} % of throughput (target < 5 %)`,
    `  CPU per request (this process, client loop included): ${plainCpu.toFixed(1)} µs without, ${keyedCpu.toFixed(1)} µs with (+${(keyedCpu - plainCpu).toFixed(1)} µs)`,
    `durable POST /events over HTTP (node dist/server.js, 64 keep-alive clients): median of ${httpPlain.length} alternated runs`,
    `  server CPU per create ${httpPlainCpu.toFixed(0)} µs without, ${httpKeyedCpu.toFixed(0)} µs with: cost ${((httpKeyedCpu / httpPlainCpu - 1) * 100).toFixed(1)} % (target < 5 %);` +
      ` ${median(httpPlain.map((run) => run.perSecond)).toFixed(0)}/s without, ${median(httpKeyed.map((run) => run.perSecond)).toFixed(0)}/s with`,
    '',
  ].join('\n'),
);
