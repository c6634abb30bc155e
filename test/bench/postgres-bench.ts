// `make bench`, PostgreSQL part (API.md §12): our PostgreSQL store against the file store and against an idiomatic peer
// (Fastify 5 + pg, test/bench/fastify-peer/) on the same database, in one run on this machine. Reads by CPU per request
// (target ≥ 0.9× the file store's), durable writes at 64 clients (≥ 0.5× its rate), and the p99 of a write on one
// instance reaching another's change stream. Skipped (with a line saying so) when no PostgreSQL can start.
// BENCH_SECONDS (default 2) per run, BENCH_ROUNDS (default 3) rounds, servers alternating; BENCH_ONLY=writes|reads;
// BENCH_SERVER: another build's server.js for our instances (to compare before and after a change with one command).
import { loadavg } from 'node:os';
import * as path from 'node:path';
import { tempDir } from '../helpers/harness.js';
import { postgresMissing, startPostgres } from '../helpers/postgres-server.js';
import { ROOT, SERVER, spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { newEvent } from '../helpers/instances.js';
import { runNodeLoad } from './load-generator.js';
import { median, type LoadPlan } from './load-plan.js';
import { postgresCpu } from './postgres-cpu.js';
import { processCpuMs } from './server-process.js';
import { propagationTimes } from './postgres-propagation.js';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 2);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const ONLY = process.env['BENCH_ONLY'];
const OURS = [process.execPath, path.resolve(process.env['BENCH_SERVER'] ?? SERVER)];

const missing = postgresMissing();
if (missing !== undefined) {
  process.stdout.write(`postgres bench: skipped (${missing})\n`);
  process.exit(0);
}

/** One server under test: its process, key, and the events seeded on it. */
interface Target { name: string; server: SpawnedServer; key: string; ids: string[]; usesDatabase: boolean }
/** What one run measured; CPU in ms per response, of the server's node process and of PostgreSQL. */
interface Run { perSecond: number; p50: number; p99: number; nodeCpu: number; dbCpu: number }

function call(target: Target, method: string, route: string, body?: unknown): Promise<Response> {
  return fetch(`${target.server.url}${route}`, { method, headers: { authorization: `Bearer ${target.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function seed(target: Target, count: number): Promise<void> {
  let n = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (n < count) {
      const created = await call(target, 'POST', '/events', newEvent(n++, 100_000));
      if (created.status !== 201) throw new Error(`seeding ${target.name}: POST /events answered ${created.status}: ${await created.text()}`);
      target.ids.push(((await created.json()) as { id: string }).id);
    }
  }));
}

// fsync on, synchronous_commit on: PostgreSQL's commits are as durable as the file store's fdatasync.
const pg = await startPostgres({ fsync: true });
const dbCpu = postgresCpu(path.join(pg.dir, 'data'));
const { dir, remove } = tempDir();
const servers: SpawnedServer[] = [];

async function measure(target: Target, plan: Omit<LoadPlan, 'url' | 'warmupMs' | 'durationMs' | 'authorization'>, seconds = SECONDS): Promise<Run> {
  let node = NaN;
  let db = NaN;
  const result = await runNodeLoad({ ...plan, url: target.server.url, authorization: `Bearer ${target.key}`, warmupMs: 500, durationMs: seconds * 1000 }, () => {
    node = processCpuMs(target.server.child.pid!);
    db = dbCpu();
  });
  if (result.non2xx > 0 || result.socketErrors > 0) throw new Error(`${target.name}: ${result.non2xx} non-2xx answers, ${result.socketErrors} socket errors: the bench measures successes only`);
  const per = (ms: number): number => ms / Math.max(1, result.requests);
  return { perSecond: result.requestsPerSecond, p50: result.p50Ms, p99: result.p99Ms, nodeCpu: per(processCpuMs(target.server.child.pid!) - node), dbCpu: target.usesDatabase ? per(dbCpu() - db) : 0 };
}

try {
  const url = await pg.createDatabase('bench');
  const args = ['--port', '0', '--rate-limit', '1000000000', '--console', 'off', '--log-level', 'warn'];
  const file = await spawnServer([...args, '--data-dir', dir], {}, OURS);
  const pgA = await spawnServer([...args, '--store', url], {}, OURS);
  const pgB = await spawnServer([...args, '--store', url], {}, OURS);
  const peer = await spawnServer(['--store', url], {}, [process.execPath, '--import', 'tsx', path.join(ROOT, 'test/bench/fastify-peer/server.ts')]);
  servers.push(file, pgA, pgB, peer);
  const keyOf = (server: SpawnedServer): string => /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(server.stderr())![1]!;
  const targets: Target[] = [
    { name: 'file store', server: file, key: keyOf(file), ids: [], usesDatabase: false },
    { name: 'ours, postgres', server: pgA, key: keyOf(pgA), ids: [], usesDatabase: true },
    // The same key as ours: the peer checks it against our campus_keys table.
    { name: 'fastify 5 + pg', server: peer, key: keyOf(pgA), ids: [], usesDatabase: true },
  ];
  for (const target of targets) await seed(target, 500);
  for (const target of targets) {
    // The same key check on both: a key that is not in campus_keys is refused.
    const wrong = `${target.key.slice(0, -1)}${target.key.endsWith('x') ? 'y' : 'x'}`;
    const refused = await fetch(`${target.server.url}/events/${target.ids[0]}`, { headers: { authorization: `Bearer ${wrong}` } });
    if (refused.status !== 401) throw new Error(`${target.name}: a wrong key answered ${refused.status}, not 401`);
  }

  type Scenario = { name: string; kind: 'reads' | 'writes'; plan: (target: Target) => Omit<LoadPlan, 'url' | 'warmupMs' | 'durationMs' | 'authorization'> };
  const registration = JSON.stringify({ name: 'Bench Person', email: 'p{{n}}@bench.example' });
  const scenarios: Scenario[] = [
    { name: 'GET /events/{id}, 16 clients', kind: 'reads', plan: (t) => ({ concurrency: 16, paths: t.ids.map((id) => `/events/${id}`) }) },
    { name: 'GET /events?limit=50&page=3, 16 clients', kind: 'reads', plan: () => ({ concurrency: 16, paths: ['/events?limit=50&page=3'] }) },
    { name: 'durable POST /events, 64 clients', kind: 'writes', plan: () => ({ concurrency: 64, paths: ['/'], post: { path: '/events', body: JSON.stringify(newEvent(7)), every: 1 } }) },
    { name: 'registrations, 64 clients', kind: 'writes', plan: (t) => ({ concurrency: 64, paths: ['/'], post: { path: '', paths: t.ids.map((id) => `/events/${id}/registrations`), body: registration, every: 1 } }) },
  ];
  const lines: string[] = [];
  const ms = (value: number): string => value.toFixed(value < 10 ? 2 : 1);
  for (const scenario of scenarios.filter((s) => ONLY === undefined || s.kind === ONLY)) {
    const runs = targets.map((): Run[] => []);
    // A first run of each, not counted: the first run at a new concurrency was always slow, whichever server it was.
    for (const target of targets) await measure(target, scenario.plan(target), 1);
    for (let round = 0; round < ROUNDS; round++) for (const [i, target] of targets.entries()) runs[i]!.push(await measure(target, scenario.plan(target)));
    const med = runs.map((list) => Object.fromEntries((Object.keys(list[0]!) as (keyof Run)[]).map((k) => [k, median(list.map((run) => run[k]))])) as unknown as Run);
    lines.push(scenario.name);
    for (const [i, target] of targets.entries()) {
      const m = med[i]!;
      lines.push(`  ${target.name.padEnd(16)} ${String(Math.round(m.perSecond)).padStart(6)} req/s  p50 ${ms(m.p50).padStart(5)} ms  p99 ${ms(m.p99).padStart(5)} ms  CPU/req node ${m.nodeCpu.toFixed(3)} ms + db ${m.dbCpu.toFixed(3)} ms   (rounds: ${runs[i]!.map((run) => Math.round(run.perSecond)).join(', ')} req/s)`);
    }
    const [ours, fastify] = [med[1]!, med[2]!];
    // Each round's ratio of two runs next to each other, then their median: a change of the machine's load between rounds cancels out.
    const paired = runs[0]!.map((base, round) => (scenario.kind === 'reads' ? base.nodeCpu / runs[1]![round]!.nodeCpu : runs[1]![round]!.perSecond / base.perSecond));
    const [ratio, what] = [median(paired), scenario.kind === 'reads' ? 'file store CPU/req ÷ ours (node), median of rounds' : 'ours req/s ÷ file store, median of rounds'];
    const target = scenario.kind === 'reads' ? 0.9 : 0.5;
    lines.push(`  ours vs file store: ${ratio.toFixed(2)}× (${what}; target ≥ ${target}×) ${ratio >= target ? 'PASS' : 'MISS'}`);
    lines.push(`  ours vs fastify:    ${(ours.perSecond / fastify.perSecond).toFixed(2)}× req/s, ${((fastify.nodeCpu + fastify.dbCpu) / (ours.nodeCpu + ours.dbCpu)).toFixed(2)}× less CPU/req (node + db), p99 ${ms(ours.p99)} vs ${ms(fastify.p99)} ms (no target)`);
  }
  if (ONLY !== 'reads') {
    const times = await propagationTimes(pgA.url, pgB.url, targets[1]!.key, 200);
    const p99 = times[Math.ceil(times.length * 0.99) - 1]!;
    lines.push(`write on A → B's change stream: p50 ${ms(times[times.length >> 1]!)} ms, p99 ${ms(p99)} ms (POST answered included; target < 1000 ms) ${p99 < 1000 ? 'PASS' : 'MISS'}`);
  }
  const load = loadavg().map((n) => n.toFixed(2)).join(' ');
  process.stdout.write(`\nPostgreSQL store vs file store vs Fastify 5 + pg on the same database (${SECONDS} s × ${ROUNDS} rounds, medians; load average now ${load})\n${lines.join('\n')}\n`);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  pg.stop();
  remove();
}
