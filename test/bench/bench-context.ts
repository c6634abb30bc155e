// What every scenario shares: the work folder, CPU pinning, the load generator and run lengths, and how to start our server.
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchData } from './data-generator.js';
import type { LoadPlan, LoadResult, RunLoad } from './load-plan.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LAUNCHER = path.join(ROOT, 'test/bench/bench-server.ts');
/** High enough that no run ever meets a 429. */
export const RATE_LIMIT = '1000000000';

export interface BenchContext {
  /** A temporary folder for data, logs and scripts; removed at the end. */
  workDir: string;
  /** The copy of dist/ every server of the run starts from, so a rebuild during the run changes nothing. */
  distDir: string;
  /** taskset CPU lists; undefined where taskset is missing or there is one CPU. */
  serverCpus: string | undefined;
  generatorCpus: string | undefined;
  generator: 'wrk' | 'node';
  runLoad: RunLoad;
  warmupMs: number;
  durationMs: number;
  /** Rounds of A B A B … in a comparison. */
  rounds: number;
  /** Whether strace can count fdatasync calls. */
  strace: boolean;
  /** A progress line on stderr. */
  progress(line: string): void;
}

/**
 * Copies dist/ into `workDir` (with the package.json that makes its .js files ES modules) and returns the copy's path.
 * Others may rebuild dist/ while a long run goes on; every server of one run then still runs the same build.
 */
export function snapshotDist(workDir: string): string {
  const distDir = path.join(workDir, 'dist');
  fs.cpSync(path.join(ROOT, 'dist'), distDir, { recursive: true });
  fs.writeFileSync(path.join(distDir, 'package.json'), '{"type":"module"}\n');
  return distDir;
}

/** How to run our server: `node dist/server.js`, or the bench launcher when an unsafe switch is wanted. */
export interface OursOptions {
  name: string;
  /** Run through the bench launcher even with both switches off (so an A/B pair differs only in the switch). */
  launcher?: boolean;
  noSync?: boolean;
  noAuth?: boolean;
  /** Start without the search index (`q` then scans): the baseline of the index's memory, start-up and write cost. */
  noSearchIndex?: boolean;
  /** Count fdatasync calls with strace (summary in this file). */
  straceFile?: string;
  /** Not pinned to the server CPUs (start-up figures: no load generator runs then, and a start may use both cores). */
  unpinned?: boolean;
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeFlags?: readonly string[];
  /** `--log-level` of `node dist/server.js` (default info: one request line per request). */
  logLevel?: 'info' | 'warn';
}

/** Starts our server on `data` (request logging at info unless `logLevel` says warn, its stderr to a file) pinned to the server CPUs. */
export function startOurs(context: BenchContext, data: BenchData, options: OursOptions): Promise<ServerProcess> {
  const viaLauncher = options.launcher === true || options.noSync === true || options.noAuth === true || options.noSearchIndex === true;
  const common = ['--data-dir', data.dir, '--rate-limit', RATE_LIMIT];
  const switches = [...(options.noSync === true ? ['--no-sync'] : []), ...(options.noAuth === true ? ['--no-auth'] : []), ...(options.noSearchIndex === true ? ['--no-search-index'] : [])];
  const argv = viaLauncher
    ? [process.execPath, ...(options.nodeFlags ?? []), '--import', 'tsx', LAUNCHER, '--dist', context.distDir, ...common, ...switches]
    : [process.execPath, ...(options.nodeFlags ?? []), path.join(context.distDir, 'server.js'), '--port', '0', '--log-level', options.logLevel ?? 'info', ...common];
  return startServerProcess({
    name: options.name,
    argv,
    stderrFile: path.join(context.workDir, `${options.name.replace(/[^a-z0-9]+/gi, '-')}-${Date.now()}.stderr`),
    // Unpinned means every CPU, said explicitly: a child otherwise inherits the bench's own pinning to the generator's CPUs.
    cpus: options.unpinned === true ? (context.serverCpus === undefined ? undefined : `0-${os.cpus().length - 1}`) : context.serverCpus,
    straceFile: options.straceFile,
  });
}

/** The plan of a scenario against `url`, with the context's run lengths. */
export function planFor(context: BenchContext, url: string, plan: Omit<LoadPlan, 'url' | 'warmupMs' | 'durationMs'>): LoadPlan {
  return { ...plan, url, warmupMs: context.warmupMs, durationMs: context.durationMs };
}

/** A plan and the server it loads (whose CPU time is read around the run). */
export interface Target {
  plan: LoadPlan;
  server: ServerProcess;
}

/** Runs one plan and adds the server's CPU time per response in the measured window. */
export async function measure(context: BenchContext, target: Target): Promise<LoadResult> {
  let before = { userMs: NaN, systemMs: NaN };
  const result = await context.runLoad(target.plan, () => (before = target.server.cpuSplitMs()));
  const after = target.server.cpuSplitMs();
  const perRequest = (ms: number): number => (ms * 1000) / Math.max(1, result.requests);
  const userMs = after.userMs - before.userMs;
  return { ...result, serverCpuMicros: perRequest(userMs + after.systemMs - before.systemMs), serverUserMicros: perRequest(userMs) };
}

/** Runs A and B alternately, A B A B …, `rounds` times each. */
export async function alternate(context: BenchContext, label: string, a: Target, b: Target): Promise<{ a: LoadResult[]; b: LoadResult[] }> {
  const [runsA, runsB] = await alternateAll(context, label, [a, b]);
  return { a: runsA!, b: runsB! };
}

/** Runs every target in turn, A B C A B C …, `rounds` times each; the runs of each target, in the order given. */
export async function alternateAll(context: BenchContext, label: string, targets: readonly Target[]): Promise<LoadResult[][]> {
  const results = targets.map(() => [] as LoadResult[]);
  for (let round = 1; round <= context.rounds; round++) {
    for (const [i, target] of targets.entries()) results[i]!.push(await measure(context, target));
    const last = results.map((runs) => runs.at(-1)!);
    context.progress(`${label} round ${round}: ${last.map((run) => Math.round(run.requestsPerSecond)).join(' vs ')} req/s, server CPU ${last.map((run) => run.serverCpuMicros?.toFixed(1)).join(' vs ')} us/request`);
  }
  return results;
}

/** Runs one plan `rounds` times. */
export async function repeat(context: BenchContext, label: string, target: Target, rounds: number): Promise<LoadResult[]> {
  const results: LoadResult[] = [];
  for (let round = 1; round <= rounds; round++) {
    results.push(await measure(context, target));
    const last = results.at(-1)!;
    context.progress(`${label} run ${round}: ${Math.round(last.requestsPerSecond)} req/s, p99 ${last.p99Ms.toFixed(2)} ms, server CPU ${last.serverCpuMicros?.toFixed(0)} us/request`);
  }
  return results;
}
