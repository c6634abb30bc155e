// Issue 37: what a durable write costs us against a bare durable append (bare-append-server.ts), for POST /events on
// 10,000 events and for POST /events/{id}/registrations; 50 clients, server on CPU 0 and wrk on the other, A B A B.
// Run: node --import tsx test/bench/write-cost-bench.ts [--quick] [--only create|register] [--profile create|register]
// --quick: 1 s runs, 1 round. --profile: instead, ours alone under that load with `node --cpu-prof`, its top 20 by self time.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { alternate, planFor, ROOT, startOurs, type Target } from './bench-context.js';
import { topSelfTime } from './cpu-profile.js';
import { copyData, CREATE_BODY, generateData, type BenchData } from './data-generator.js';
import { median, type LoadPlan, type LoadResult } from './load-plan.js';
import { killStartedServers, startServerProcess, type ServerProcess } from './server-process.js';
import { standaloneContext } from './standalone-context.js';

const CLIENTS = 50;
const EVENTS = 10_000;
/** Events the registrations go to, in turn: each with seats for every registration a run can make. */
const REGISTRATION_EVENTS = 200;
const SEATS = 100_000;
const ATTENDEE_BODY = '{"name":"Benchmark attendee","email":"attendee{{n}}@campus.example"}';
const GOAL = 0.8;
const BARE_APPEND = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bare-append-server.ts');

const args = process.argv.slice(2);
const valueOf = (flag: string): string | undefined => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const quick = args.includes('--quick');
const only = valueOf('--only');
const profile = valueOf('--profile');
for (const [flag, value] of [['--only', only], ['--profile', profile]] as const) {
  if (value !== undefined && value !== 'create' && value !== 'register') {
    process.stderr.write(`write-cost-bench: ${flag} takes create or register, got "${value}"\n`);
    process.exit(2);
  }
}
if (!fs.existsSync(path.join(ROOT, 'dist/server.js'))) {
  process.stderr.write('write-cost-bench: dist/server.js is missing; run make build (make bench does)\n');
  process.exit(2);
}

const context = standaloneContext('write-cost', { warmupMs: 1000, durationMs: quick ? 1000 : 5000, rounds: quick ? 1 : 3 });

/** One comparison's runs, ours and the bare append alternated. */
interface Comparison {
  name: string;
  ours: LoadResult[];
  bare: LoadResult[];
}

/** Starts the bare durable append in `mode`, pinned where ours is, appending to a log of its own. */
function startBareAppend(mode: 'events' | 'registrations'): Promise<ServerProcess> {
  return startServerProcess({
    name: `bare append ${mode}`,
    argv: [process.execPath, '--import', 'tsx', BARE_APPEND, mode, path.join(context.workDir, `bare-${mode}-${Date.now()}.jsonl`)],
    stderrFile: path.join(context.workDir, `bare-${mode}.stderr`),
    cpus: context.serverCpus,
  });
}

/** Creates REGISTRATION_EVENTS published events of SEATS seats in 2030 through the API; their registration paths. */
async function registrationPaths(url: string, authorization: string): Promise<string[]> {
  const paths: string[] = [];
  const body = JSON.stringify({ ...JSON.parse(CREATE_BODY), capacity: SEATS, start_time: '2030-10-01T18:00:00Z', end_time: '2030-10-01T21:00:00Z' });
  for (let i = 0; i < REGISTRATION_EVENTS; i++) {
    const created = await fetch(`${url}/events`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body });
    if (created.status !== 201) throw new Error(`creating a registration event: ${created.status} ${await created.text()}`);
    paths.push(`/events/${((await created.json()) as { id: string }).id}/registrations`);
  }
  return paths;
}

/** The plan of each kind of write against `url`. */
function planOf(kind: 'create' | 'register', url: string, data: BenchData, postPaths: readonly string[]): LoadPlan {
  const post = kind === 'create' ? { path: '/events', body: CREATE_BODY, every: 1 } : { path: postPaths[0]!, paths: postPaths, body: ATTENDEE_BODY, every: 1 };
  return planFor(context, url, { paths: ['/'], concurrency: CLIENTS, authorization: `Bearer ${data.secret}`, post });
}

/** Ours (`node dist/server.js`, request log at info) and the bare append, A B A B …, on a fresh copy of the data. */
async function compare(kind: 'create' | 'register', data: BenchData): Promise<Comparison> {
  const ours = await startOurs(context, copyData(data, path.join(context.workDir, `ours-${kind}`)), { name: `ours ${kind}` });
  const bare = await startBareAppend(kind === 'create' ? 'events' : 'registrations');
  try {
    const postPaths = kind === 'register' ? await registrationPaths(ours.url, `Bearer ${data.secret}`) : [];
    const a: Target = { plan: planOf(kind, ours.url, data, postPaths), server: ours };
    const b: Target = { plan: planOf(kind, bare.url, data, postPaths), server: bare };
    const runs = await alternate(context, `${kind}: ours vs bare append`, a, b);
    return { name: kind === 'create' ? `durable POST /events, ${EVENTS.toLocaleString('en-US')} events` : `durable POST /events/{id}/registrations, ${REGISTRATION_EVENTS} events`, ours: runs.a, bare: runs.b };
  } finally {
    await ours.stop();
    await bare.stop();
  }
}

/** Ours alone under `kind`'s load for one measured run with `node --cpu-prof`; prints the top 20 by self time. */
async function profileOurs(kind: 'create' | 'register', data: BenchData): Promise<void> {
  const profileDir = path.join(context.workDir, 'cpu-profile');
  const ours = await startOurs(context, copyData(data, path.join(context.workDir, `profile-${kind}`)), { name: `ours ${kind} --cpu-prof`, nodeFlags: ['--cpu-prof', '--cpu-prof-dir', profileDir] });
  const window = { from: NaN, to: NaN };
  const micros = (): number => Number(process.hrtime.bigint() / 1000n);
  let cpuBefore = NaN;
  let result: LoadResult;
  try {
    const postPaths = kind === 'register' ? await registrationPaths(ours.url, `Bearer ${data.secret}`) : [];
    result = await context.runLoad(planOf(kind, ours.url, data, postPaths), () => {
      window.from = micros();
      cpuBefore = ours.cpuMs();
    });
    window.to = micros();
    result.serverCpuMicros = ((ours.cpuMs() - cpuBefore) * 1000) / Math.max(1, result.requests);
  } finally {
    await ours.stop();
  }
  const file = fs.readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`node --cpu-prof wrote no profile into ${profileDir}`);
  const saved = path.join(ROOT, `test/bench/results/write-cost-${kind}.cpuprofile`);
  fs.copyFileSync(path.join(profileDir, file), saved);
  const top = topSelfTime(JSON.parse(fs.readFileSync(saved, 'utf8')), 20, context.distDir, window);
  process.stdout.write(`ours under ${kind}, profiled: ${Math.round(result.requestsPerSecond)} req/s, ${result.serverCpuMicros.toFixed(1)} us of server CPU per request (the profiler adds its own), non-2xx ${result.non2xx}\n`);
  for (const entry of top) process.stdout.write(`  ${entry.percent.toFixed(1).padStart(5)} %  ${entry.functionName}  ${entry.location}\n`);
  process.stdout.write(`profile: ${path.relative(ROOT, saved)} (open in Chrome DevTools)\n`);
}

const rate = (runs: readonly LoadResult[]): number => median(runs.map((run) => run.requestsPerSecond));
const cpu = (runs: readonly LoadResult[]): number => median(runs.map((run) => run.serverCpuMicros ?? NaN));
const userCpu = (runs: readonly LoadResult[]): number => median(runs.map((run) => run.serverUserMicros ?? NaN));
const failures = (runs: readonly LoadResult[]): number => runs.reduce((sum, run) => sum + run.non2xx + run.socketErrors, 0);

/** The table of one comparison: medians of the rounds, the two ratios against GOAL, and each round's CPU ratio. */
function report(comparison: Comparison): string {
  const cpuRatio = cpu(comparison.bare) / cpu(comparison.ours);
  const rateRatio = rate(comparison.ours) / rate(comparison.bare);
  const verdict = (ratio: number): string => (ratio >= GOAL ? 'PASS' : 'MISS');
  const rounds = comparison.ours.map((run, i) => ((comparison.bare[i]!.serverCpuMicros ?? NaN) / (run.serverCpuMicros ?? NaN)).toFixed(2)).join(', ');
  const lines = [
    `${comparison.name}, ${CLIENTS} clients (medians of ${comparison.ours.length} alternated rounds)`,
    `  ${'server'.padEnd(22)} ${'req/s'.padStart(8)} ${'CPU us/request'.padStart(15)}`,
    `  ${'bare durable append'.padEnd(22)} ${Math.round(rate(comparison.bare)).toString().padStart(8)} ${cpu(comparison.bare).toFixed(1).padStart(15)}`,
    `  ${'ours'.padEnd(22)} ${Math.round(rate(comparison.ours)).toString().padStart(8)} ${cpu(comparison.ours).toFixed(1).padStart(15)}`,
    `  CPU: bare / ours = ${cpuRatio.toFixed(2)}x (rounds: ${rounds})  ${verdict(cpuRatio)} (goal >= ${GOAL}x)`,
    `  of which in user space (the rest in the kernel): bare ${userCpu(comparison.bare).toFixed(1)}, ours ${userCpu(comparison.ours).toFixed(1)} us/request`,
    `  req/s: ours / bare = ${rateRatio.toFixed(2)}x  ${verdict(rateRatio)} (goal >= ${GOAL}x)`,
  ];
  const failed = failures(comparison.ours) + failures(comparison.bare);
  if (failed > 0) lines.push(`  WARNING: ${failed} non-2xx responses or socket errors (ours ${failures(comparison.ours)}, bare ${failures(comparison.bare)}): the figures are not comparable`);
  return `${lines.join('\n')}\n`;
}

process.on('SIGINT', () => {
  killStartedServers();
  fs.rmSync(context.workDir, { recursive: true, force: true });
  process.exit(130);
});
try {
  context.progress(`load generator: ${context.generator}; ${context.serverCpus === undefined ? 'no CPU pinning' : `servers on CPU ${context.serverCpus}, generator on CPU ${context.generatorCpus}`}`);
  const data = await generateData(path.join(context.workDir, `events-${EVENTS}`), EVENTS);
  if (profile !== undefined) {
    await profileOurs(profile as 'create' | 'register', data);
  } else {
    const kinds = only === undefined ? (['create', 'register'] as const) : [only as 'create' | 'register'];
    const comparisons: Comparison[] = [];
    for (const kind of kinds) comparisons.push(await compare(kind, data));
    process.stdout.write(`\nThe cost of a write against a bare durable append (issue 37); ${context.generator}, ${context.durationMs / 1000} s runs\n`);
    for (const comparison of comparisons) process.stdout.write(report(comparison));
  }
} catch (error) {
  process.stderr.write(`write-cost-bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  killStartedServers();
  fs.rmSync(context.workDir, { recursive: true, force: true });
}
