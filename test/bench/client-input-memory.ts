// Does a client's input grow the server's memory? A fresh `node dist/server.js` per phase gets N requests, each
// with an input never sent before (a case variant of a zone name, an unknown zone, a search word, a path, a query),
// and its resident set is read before and after (issue 33.3: 4,000 POST /series with case variants of
// america/argentina/buenos_aires took RSS from 75 to 151 MiB). A baseline phase sends the same request with one zone
// every time; each phase's growth beyond the baseline's is the input's. Exits 1 when that is over --max-growth MiB
// (default 16).
// Run (after `make build`): node --import tsx test/bench/client-input-memory.ts [--requests N] [--phases a,b] [--max-growth MiB]
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killStartedServers, startServerProcess, type ServerProcess } from './server-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const valueOf = (flag: string): string | undefined => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const REQUESTS = Number(valueOf('--requests') ?? 4000);
const MAX_GROWTH_MIB = Number(valueOf('--max-growth') ?? 16);
const CONCURRENCY = 8;

/** The n-th case variant of `name`: bit k of n sets the case of its k-th letter. */
function caseVariant(name: string, n: number): string {
  let out = '';
  let bits = n;
  for (const char of name) {
    if (/[a-z]/i.test(char)) {
      out += bits & 1 ? char.toUpperCase() : char.toLowerCase();
      bits = Math.floor(bits / 2);
    } else out += char;
  }
  return out;
}

interface Phase {
  name: string;
  /** The request for input number `n`: method, target, body. */
  request(n: number): { method: string; target: string; body?: unknown };
}

const SERIES_WITHOUT_TITLE = { category: 'academic', location: 'Hall A', capacity: 10, start_time: '2027-09-01T09:00:00Z', end_time: '2027-09-01T10:00:00Z', recurrence: 'FREQ=DAILY;COUNT=3' };

const PHASES: Phase[] = [
  // The baseline: the same refused request with the same zone every time, so what any phase adds over it is the input's.
  { name: 'POST /series, one zone (the baseline)', request: () => ({ method: 'POST', target: '/series', body: { ...SERIES_WITHOUT_TITLE, time_zone: 'America/Buenos_Aires' } }) },
  // The issue's measure: refused for the missing title, after time_zone was checked.
  { name: 'POST /series, case variants of america/argentina/buenos_aires', request: (n) => ({ method: 'POST', target: '/series', body: { ...SERIES_WITHOUT_TITLE, time_zone: caseVariant('america/argentina/buenos_aires', n) } }) },
  { name: 'POST /series, case variants of Europe/Berlin', request: (n) => ({ method: 'POST', target: '/series', body: { ...SERIES_WITHOUT_TITLE, time_zone: caseVariant('europe/berlin', n) } }) },
  { name: 'POST /series, unknown zones', request: (n) => ({ method: 'POST', target: '/series', body: { ...SERIES_WITHOUT_TITLE, time_zone: `Nowhere/Place_${n}` } }) },
  { name: 'GET /events?q=, distinct words', request: (n) => ({ method: 'GET', target: `/events?q=w${n.toString(36)}x` }) },
  { name: 'GET /events?category=, distinct refused values', request: (n) => ({ method: 'GET', target: `/events?category=c${n}` }) },
  { name: 'GET /nowhere/N, distinct unknown paths', request: (n) => ({ method: 'GET', target: `/nowhere/${n}` }) },
  { name: 'GET /events/ID, distinct unknown ids', request: (n) => ({ method: 'GET', target: `/events/evt_${String(n).padStart(22, '0')}` }) },
];

function send(server: ServerProcess, key: string, request: { method: string; target: string; body?: unknown }): Promise<number> {
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const url = new URL(request.target, server.url);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method: request.method, agent, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

async function runPhase(server: ServerProcess, key: string, phase: Phase, from: number, count: number): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = from;
  const worker = async (): Promise<void> => {
    while (next < from + count) {
      const status = await send(server, key, phase.request(next++));
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return statuses;
}

const round = (mib: number): string => mib.toFixed(1);

/** One phase on a server of its own: its RSS after a warm-up and after the phase, and the statuses it answered. */
async function measure(phase: Phase): Promise<{ before: number; after: number; statuses: Map<number, number> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-events-input-memory-'));
  const stderrFile = path.join(dataDir, 'server.log');
  const server = await startServerProcess({ name: 'server', argv: [process.execPath, path.join(ROOT, 'dist/server.js'), '--port', '0', '--data-dir', path.join(dataDir, 'data'), '--rate-limit', '1000000000', '--log-level', 'warn'], stderrFile });
  try {
    const key = /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(fs.readFileSync(stderrFile, 'utf8'))?.[1];
    if (key === undefined) throw new Error(`no admin key in ${stderrFile}`);
    // A warm-up of the same shape (other inputs), so the first figure is past the code's own first-use growth.
    await runPhase(server, key, phase, 10_000_000, 500);
    const before = server.rssMiB();
    const statuses = await runPhase(server, key, phase, 0, REQUESTS);
    return { before, after: server.rssMiB(), statuses };
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const wanted = (valueOf('--phases') ?? '').split(',').filter((each) => each !== '');
  console.log(`client-input memory: ${REQUESTS} requests per phase, each phase on a fresh server, ${CONCURRENCY} connections, Node ${process.version}`);
  console.log('RSS of the server in MiB; "excess" is the growth over the baseline phase (the same request with one zone every time)');
  console.log(`${'phase'.padEnd(66)} ${'before'.padStart(7)} ${'after'.padStart(7)} ${'growth'.padStart(7)} ${'excess'.padStart(7)}  statuses`);
  let baseline: number | undefined;
  let failed = false;
  for (const [index, phase] of PHASES.entries()) {
    if (index > 0 && wanted.length > 0 && !wanted.some((each) => phase.name.includes(each))) continue;
    const { before, after, statuses } = await measure(phase);
    const growth = after - before;
    baseline ??= growth;
    const excess = growth - baseline;
    const over = index > 0 && excess > MAX_GROWTH_MIB;
    if (over) failed = true;
    const signed = (mib: number): string => `${mib >= 0 ? '+' : '-'}${round(Math.abs(mib))}`;
    console.log(`${phase.name.padEnd(66)} ${round(before).padStart(7)} ${round(after).padStart(7)} ${signed(growth).padStart(7)} ${(index === 0 ? '' : signed(excess)).padStart(7)}  ${[...statuses].map(([status, n]) => `${status}×${n}`).join(' ')}${over ? `  FAIL (over ${MAX_GROWTH_MIB} MiB)` : ''}`);
  }
  agent.destroy();
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  killStartedServers();
  console.error(error);
  process.exit(1);
});
