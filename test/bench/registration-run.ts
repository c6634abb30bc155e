// Runs the registration scenarios alone (make bench and make bench-full run them among the others), pinned as run.ts pins.
// Run: node --import tsx test/bench/registration-run.ts [--write] [--campus] [--quick] [--events N] [--registrations N]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BenchContext, ROOT, snapshotDist } from './bench-context.js';
import type { LoadRow } from './bench-results.js';
import { generateData } from './data-generator.js';
import { runNodeLoad } from './load-generator.js';
import { findProgram } from './programs.js';
import { campusScenario, type CampusFigure, registrationReport, registrationWriteScenario } from './registration-scenarios.js';
import { killStartedServers } from './server-process.js';
import { runWrk } from './wrk-runner.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const quick = args.includes('--quick');
const campusWanted = args.includes('--campus');
const writeWanted = args.includes('--write') || !campusWanted;
process.chdir(ROOT);
const startedAt = performance.now();
const cpuCount = os.availableParallelism();
const canPin = findProgram('taskset') !== undefined && cpuCount >= 2;
const generatorCpus = canPin ? (cpuCount === 2 ? '1' : `1-${cpuCount - 1}`) : undefined;
if (generatorCpus !== undefined) spawnSync('taskset', ['-a', '-cp', generatorCpus, String(process.pid)], { stdio: 'ignore' });
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-events-registration-bench-'));
const wrk = findProgram('wrk');
const context: BenchContext = {
  workDir,
  distDir: snapshotDist(workDir),
  serverCpus: canPin ? '0' : undefined,
  generatorCpus,
  generator: wrk === undefined ? 'node' : 'wrk',
  runLoad: wrk === undefined ? runNodeLoad : (plan, onMeasuring) => runWrk(plan, { wrk, scriptDir: workDir, threads: Math.max(1, cpuCount - 1), cpus: generatorCpus }, onMeasuring),
  warmupMs: 1000,
  durationMs: quick ? 1000 : 5000,
  rounds: quick ? 1 : 3,
  strace: false,
  progress: (line) => void process.stderr.write(`[bench ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(3)} s] ${line}\n`),
};
try {
  const rows: LoadRow[] = [];
  let campus: CampusFigure | undefined;
  if (writeWanted) rows.push(await registrationWriteScenario(context, await generateData(path.join(workDir, 'events-10000'), 10_000)));
  if (campusWanted) {
    const run = await campusScenario(context, option('--events', 100_000), option('--registrations', 2_000_000));
    rows.push(run.row);
    campus = run.figure;
  }
  process.stdout.write(`load average ${os.loadavg()[0]!.toFixed(2)}; ${JSON.stringify(rows.map((row) => ({ scenario: row.scenario, ours: row.ours, baseline: row.baseline, notes: row.notes })))}\n`);
  process.stdout.write(registrationReport(rows, campus));
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  killStartedServers();
  fs.rmSync(workDir, { recursive: true, force: true });
}
