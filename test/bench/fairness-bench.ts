// One client must not hurt others (issue 33.8): the latency of a single reader (GET /events/{id}, one connection,
// one request at a time) alone, then while other clients load the same server: eight connections of heavy `q`
// searches, then one connection creating, rescheduling and deleting 500-occurrence series. The reader runs in a
// worker thread of its own and the load in a child process at a lower CPU priority (nice 10), so neither the load's
// client work nor the bench delays the reader's clock. Prints p50/p99/max of the reader per phase, each p99 against
// the reader's alone (same run), and the server's own event-loop delay (loop-delay-probe.ts): how long one task held
// its loop.
// Run (after `make build`): node --import tsx test/bench/fairness-bench.ts [--events N] [--seconds S]
//   --cpu-prof DIR starts the server with --cpu-prof writing its profile there (to find what holds the event loop);
//   --node-flags "..." passes more flags to the server's node; --server FILE runs another build's server.js (the
//   build before a change, for a before/after figure: git archive REF | tar -x -C DIR, then tsc there).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { generateData } from './data-generator.js';
import { killStartedServers, startServerProcess, type ServerProcess } from './server-process.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const args = process.argv.slice(2);
const valueOf = (flag: string): string | undefined => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const EVENTS = Number(valueOf('--events') ?? 300_000);
const SECONDS = Number(valueOf('--seconds') ?? 10);
const WARMUP_MS = 2_000;
/** The p99 the issue asks for: a concurrent single read under 50 ms during each load. */
const TARGET_P99_MS = 50;

interface ReaderResult {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * The reader, in a worker thread as plain JavaScript (a worker does not inherit tsx's hooks on Node 20): single reads
 * one after another on one connection, each timed from its send to the end of its answer, after the warm-up.
 */
const READER_SOURCE = `
const http = require('node:http');
const { parentPort, workerData: job } = require('node:worker_threads');
const { hostname, port } = new URL(job.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const read = (id) => new Promise((resolve, reject) => {
  const request = http.request({ agent, host: hostname, port, method: 'GET', path: '/events/' + id, headers: { authorization: 'Bearer ' + job.key } }, (response) => {
    response.resume();
    response.on('end', () => resolve(response.statusCode));
  });
  request.on('error', reject);
  request.end();
});
(async () => {
  const latencies = [];
  const startedAt = performance.now();
  for (let n = 0; performance.now() - startedAt < job.warmupMs + job.durationMs; n++) {
    const sentAt = performance.now();
    const status = await read(job.ids[n % job.ids.length]);
    if (status !== 200) throw new Error('the reader got ' + status);
    if (sentAt - startedAt >= job.warmupMs) latencies.push(performance.now() - sentAt);
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (fraction) => latencies[Math.min(latencies.length - 1, Math.ceil(fraction * latencies.length) - 1)];
  parentPort.postMessage({ requests: latencies.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: latencies[latencies.length - 1] });
})();
`;

function runReader(job: { url: string; key: string; ids: string[]; warmupMs: number; durationMs: number }): Promise<ReaderResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(READER_SOURCE, { eval: true, workerData: job });
    worker.once('message', (result: ReaderResult) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/**
 * The loads, run by a child process (plain JavaScript, `node -e`) until SIGTERM, when it prints what it sent.
 * `search`: eight connections of searches costing the server milliseconds each: one- and two-letter prefixes (each the
 * union of many words' postings), a letter with a number's first digits, with dates and with several categories, on
 * pages deep into the matches (each walks the list up to it), small pages so the answers cost the client little.
 * `series`: one connection creating a 500-occurrence series, moving its schedule (a PUT that expands it again), then
 * deleting it.
 */
const LOAD_SOURCE = `
const http = require('node:http');
const job = JSON.parse(process.argv[1]);
const { hostname, port } = new URL(job.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
let running = true, requests = 0, failures = 0;
const send = (method, path, body) => new Promise((resolve, reject) => {
  const headers = { authorization: 'Bearer ' + job.key };
  if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  const request = http.request({ agent, host: hostname, port, method, path, headers }, (response) => {
    let text = '';
    response.setEncoding('utf8').on('data', (chunk) => (text += chunk));
    response.on('end', () => { requests++; if (response.statusCode >= 300) failures++; resolve({ status: response.statusCode, text }); });
  });
  request.on('error', reject);
  request.end(body);
});
const prefixes = ['s', 're', 'd', 'a', 'w', 'p', 'b', 'c', 'st', 'o', 'r', 'se', 'g', 'l'];
const searches = [
  (n) => '/events?q=' + prefixes[n % prefixes.length] + '+' + prefixes[(n * 7 + 3) % prefixes.length] + '&limit=10&page=' + (1 + (n % 400)),
  (n) => '/events?q=' + prefixes[n % prefixes.length] + '+' + (n % 100) + '&limit=10&page=' + (1 + ((n * 37) % 1000)),
  (n) => '/events?q=group+' + (n % 10) + '&start_date=2026-02-01&limit=10&page=' + (1 + ((n * 37) % 1000)),
  (n) => '/events?q=o+' + (n % 10) + '&category=academic,social&start_date=2026-03-01&end_date=2027-06-30&limit=10&page=' + (1 + ((n * 37) % 1000)),
];
async function searcher(c) {
  for (let n = c; running; n += 8) await send('GET', searches[n % searches.length](n));
}
async function scheduler() {
  for (let n = 0; running; n++) {
    const start = Date.UTC(2030, 0, 1 + (n % 300), 9);
    const body = { title: 'Fairness course ' + n, category: 'academic', location: 'Hall A', capacity: 100, time_zone: 'Europe/Berlin', start_time: new Date(start).toISOString(), end_time: new Date(start + 5400000).toISOString(), recurrence: 'FREQ=DAILY;COUNT=500' };
    const created = await send('POST', '/series', JSON.stringify(body));
    if (created.status !== 201) continue;
    const id = JSON.parse(created.text).id;
    await send('PUT', '/series/' + id, JSON.stringify({ start_time: new Date(start + 3600000).toISOString(), end_time: new Date(start + 9000000).toISOString() }));
    await send('DELETE', '/series/' + id);
  }
}
const clients = job.kind === 'search' ? Array.from({ length: 8 }, (_, c) => searcher(c)) : [scheduler()];
process.on('SIGTERM', async () => {
  running = false;
  await Promise.all(clients);
  process.stdout.write(JSON.stringify({ requests, failures }) + '\\n');
  process.exit(0);
});
`;

interface Load {
  name: string;
  kind: 'search' | 'series';
}

const LOADS: Load[] = [
  { name: '8 connections of heavy q', kind: 'search' },
  { name: '1 connection of 500-occurrence series POST/PUT/DELETE', kind: 'series' },
];

/** Starts a load in a child process at nice 10; `stop()` ends it and gives what it sent. */
function startLoad(load: Load, url: string, key: string): { stop: () => Promise<{ requests: number; failures: number }> } {
  const child = spawn('nice', ['-n', '10', process.execPath, '-e', LOAD_SOURCE, JSON.stringify({ url, key, kind: load.kind })], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      return JSON.parse(out) as { requests: number; failures: number };
    },
  };
}

/** The server's event-loop delay since the last call (it answers SIGUSR2 on stderr, see loop-delay-probe.ts). */
async function loopDelay(server: ServerProcess): Promise<{ p50: number; p99: number; max: number }> {
  const before = fs.readFileSync(server.stderrFile, 'utf8').length;
  process.kill(server.pid, 'SIGUSR2');
  for (;;) {
    const text = fs.readFileSync(server.stderrFile, 'utf8').slice(before);
    const line = text.split('\n').find((each) => each.startsWith('{"loop_delay"'));
    if (line !== undefined) return (JSON.parse(line) as { loop_delay: { p50: number; p99: number; max: number } }).loop_delay;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const fixed = (ms: number): string => ms.toFixed(1);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-fairness-'));
  const profileDir = valueOf('--cpu-prof');
  const nodeFlags = (valueOf('--node-flags') ?? '').split(' ').filter((flag) => flag !== '');
  console.log(`fairness: ${valueOf('--server') ?? 'dist/server.js'}, ${EVENTS} events, ${SECONDS} s per phase after ${WARMUP_MS / 1000} s of warm-up, Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}`);
  const data = await generateData(path.join(dir, 'data'), EVENTS);
  const argv = [
    process.execPath,
    ...nodeFlags,
    ...(profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir]),
    '--import',
    'tsx',
    '--import',
    path.join(HERE, 'loop-delay-probe.ts'),
    valueOf('--server') ?? path.join(ROOT, 'dist/server.js'),
    ...['--port', '0', '--data-dir', data.dir, '--rate-limit', '1000000000', '--log-level', 'warn'],
  ];
  const server = await startServerProcess({ name: 'server', argv, stderrFile: path.join(dir, 'server.log') });
  try {
    // A large log's search index is built after the start; until then q is answered by a scan, far slower than the
    // index's few milliseconds: wait for two quick answers in a row.
    const probe = new http.Agent({ keepAlive: false });
    for (let quick = 0; quick < 2; ) {
      const started = performance.now();
      assert200(await statusOf(probe, server.url, data.secret, '/events?q=seminar&limit=1'));
      quick = performance.now() - started < 20 ? quick + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    probe.destroy();
    const job = { url: server.url, key: data.secret, ids: data.sampleIds, warmupMs: WARMUP_MS, durationMs: SECONDS * 1000 };
    console.log(`${'single reader (GET /events/{id})'.padEnd(62)} ${'reads'.padStart(6)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'max ms'.padStart(7)} ${'p99/alone'.padStart(9)} ${'loop p99/max ms'.padStart(16)}  load`);
    const row = (name: string, result: ReaderResult, alone: ReaderResult | undefined, loop: { p99: number; max: number }, load: string): void => {
      const verdict = alone === undefined ? '' : result.p99Ms < TARGET_P99_MS ? '  PASS' : `  over ${TARGET_P99_MS} ms`;
      const ratio = alone === undefined ? '1.0' : (result.p99Ms / alone.p99Ms).toFixed(1);
      console.log(`${name.padEnd(62)} ${String(result.requests).padStart(6)} ${fixed(result.p50Ms).padStart(7)} ${fixed(result.p99Ms).padStart(7)} ${fixed(result.maxMs).padStart(7)} ${ratio.padStart(9)} ${`${fixed(loop.p99)}/${fixed(loop.max)}`.padStart(16)}  ${load}${verdict}`);
    };
    await loopDelay(server);
    const alone = await runReader(job);
    row('alone', alone, undefined, await loopDelay(server), '');
    for (const load of LOADS) {
      const running = startLoad(load, server.url, data.secret);
      await loopDelay(server);
      const cpuBefore = server.cpuMs();
      const during = await runReader(job);
      const cpuMs = server.cpuMs() - cpuBefore;
      const loop = await loopDelay(server);
      const sent = await running.stop();
      row(`during ${load.name}`, during, alone, loop, `${sent.requests} requests (${sent.failures} failed), server CPU ${(cpuMs / Math.max(1, sent.requests)).toFixed(1)} ms each`);
    }
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function assert200(status: number): void {
  if (status !== 200) throw new Error(`the search probe got ${status}`);
}

function statusOf(agent: http.Agent, url: string, key: string, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(new URL(target, url), { agent, headers: { authorization: `Bearer ${key}` } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    }).on('error', reject);
  });
}

main().catch((error: unknown) => {
  killStartedServers();
  console.error(error);
  process.exit(1);
});
