// `make bench` (10k events, about 3 minutes) and `make bench-full` (adds 1M events): scenarios against baselines, a table, JSON.
// Flags: --full, --generator node|wrk (default wrk when on the PATH), --quick (1 s runs, 1 round: for trying the bench out), --profile,
// --reads (only the read scenarios at 10k events, with their baselines: for work on the read path; leaves README-figures.md alone).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BenchContext, ROOT, snapshotDist } from './bench-context.js';
import type { BenchResults, LimiterFigures, LoadRow, ProfileEntry, ScalingRow, StartupFigure } from './bench-results.js';
import { authOverheadScenario } from './auth-scenario.js';
import { profileSingleRead } from './cpu-profile.js';
import { generateData } from './data-generator.js';
import { runNodeLoad } from './load-generator.js';
import type { RunLoad } from './load-plan.js';
import { findProgram, straceWorks, versionOf } from './programs.js';
import { readScenarios } from './read-scenarios.js';
import { campusScenario, type CampusFigure, registrationReport, registrationWriteScenario } from './registration-scenarios.js';
import { scalingRow } from './scaling-scenario.js';
import { formatText, saveResults } from './report.js';
import { killStartedServers } from './server-process.js';
import { limiterFigures, startupFigure } from './startup-scenario.js';
import { mixedScenario, postScenario } from './write-scenarios.js';
import { runWrk } from './wrk-runner.js';

const args = process.argv.slice(2);
const full = args.includes('--full');
const quick = args.includes('--quick');
const readsOnly = args.includes('--reads');
const generatorFlag = args.includes('--generator') ? args[args.indexOf('--generator') + 1] : undefined;
if (generatorFlag !== undefined && generatorFlag !== 'node' && generatorFlag !== 'wrk') {
  process.stderr.write(`bench: --generator must be node or wrk, got "${generatorFlag}"\n`);
  process.exit(2);
}
if (!fs.existsSync(path.join(ROOT, 'dist/server.js'))) {
  process.stderr.write('bench: dist/server.js is missing; run make build (make bench does)\n');
  process.exit(2);
}

// Children run `node --import tsx`, which resolves tsx from the working folder.
process.chdir(ROOT);
const startedAt = performance.now();
const loadAtStart = os.loadavg()[0]!;
const progress = (line: string): void => void process.stderr.write(`[bench ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);

// Pinning: the server on CPU 0, this process (and so the Node generator and wrk) on the others.
const cpuCount = os.availableParallelism();
const canPin = findProgram('taskset') !== undefined && cpuCount >= 2;
const serverCpus = canPin ? '0' : undefined;
const generatorCpus = canPin ? (cpuCount === 2 ? '1' : `1-${cpuCount - 1}`) : undefined;
if (generatorCpus !== undefined) spawnSync('taskset', ['-a', '-cp', generatorCpus, String(process.pid)], { stdio: 'ignore' });

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-events-bench-'));
const cleanUp = (): void => {
  killStartedServers();
  fs.rmSync(workDir, { recursive: true, force: true });
};
process.on('SIGINT', () => {
  cleanUp();
  process.exit(130);
});

const wrk = generatorFlag === 'node' ? undefined : findProgram('wrk');
if (generatorFlag === 'wrk' && wrk === undefined) {
  process.stderr.write('bench: --generator wrk given but wrk is not on the PATH\n');
  process.exit(2);
}
const runLoad: RunLoad = wrk === undefined ? runNodeLoad : (plan, onMeasuring) => runWrk(plan, { wrk, scriptDir: workDir, threads: Math.max(1, cpuCount - 1), cpus: generatorCpus }, onMeasuring);
const generatorVersion = wrk === undefined ? `node:http keep-alive generator (node ${process.version})` : versionOf(wrk).replace(/\s+Copyright.*$/, '');

const context: BenchContext = {
  workDir,
  distDir: snapshotDist(workDir),
  serverCpus,
  generatorCpus,
  generator: wrk === undefined ? 'node' : 'wrk',
  runLoad,
  warmupMs: 1000,
  durationMs: quick ? 1000 : 5000,
  rounds: quick ? 1 : 3,
  strace: straceWorks(),
  progress,
};

try {
  progress(`load generator: ${generatorVersion}; ${canPin ? `server on CPU ${serverCpus}, generator on CPU ${generatorCpus}` : 'no CPU pinning'}; fdatasync counted by ${context.strace ? 'strace' : 'nothing (strace missing)'}`);
  const data = await generateData(path.join(workDir, 'events-10000'), 10_000);
  progress('generated 10,000 events');
  const rows: LoadRow[] = [];
  rows.push(...(await readScenarios(context, data, true)));
  const startup: StartupFigure[] = [];
  const scaling: ScalingRow[] = [];
  let limiter: LimiterFigures | undefined;
  let campus: CampusFigure | undefined;
  if (!readsOnly) {
    rows.push(await authOverheadScenario(context, data));
    rows.push(await postScenario(context, data));
    rows.push(await mixedScenario(context, data));
    rows.push(await registrationWriteScenario(context, data));
    const startupRuns = quick ? 1 : 3;
    if (full) scaling.push(await scalingRow(context, data, (await startupFigure(context, data.events, startupRuns, data)).figure));
    const hundredThousand = await startupFigure(context, 100_000, startupRuns);
    startup.push(hundredThousand.figure);
    if (full) scaling.push(await scalingRow(context, hundredThousand.data, hundredThousand.figure));
    fs.rmSync(path.join(workDir, 'events-100000'), { recursive: true, force: true });
    progress('measuring limiter memory');
    limiter = await limiterFigures();
    if (full) {
      const million = await startupFigure(context, 1_000_000, startupRuns);
      startup.push(million.figure);
      rows.push(...(await readScenarios(context, million.data, false)));
      scaling.push(await scalingRow(context, million.data, million.figure));
      fs.rmSync(million.data.dir, { recursive: true, force: true });
      const campusRun = await campusScenario(context);
      rows.push(campusRun.row);
      campus = campusRun.figure;
    }
  }
  let profile: ProfileEntry[] | undefined;
  if (args.includes('--profile')) profile = await profileSingleRead(context, data);

  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: { nproc: cpuCount, cpu: os.cpus()[0]?.model.trim() ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.release()}` },
    generator: context.generator,
    generatorVersion,
    pinning: canPin ? { server: serverCpus!, generator: generatorCpus! } : null,
    warmupMs: context.warmupMs,
    durationMs: context.durationMs,
    rounds: context.rounds,
    full,
    loadAverage: { start: loadAtStart, end: os.loadavg()[0]! },
    rows,
    startup,
    limiter,
    scaling: full ? scaling : undefined,
    profile,
    elapsedSeconds: (performance.now() - startedAt) / 1000,
  };
  process.stdout.write(formatText(results));
  process.stdout.write(registrationReport(rows, campus));
  const figures = !quick && !readsOnly;
  const jsonFile = saveResults(results, path.join(ROOT, 'test/bench/results'), { figures });
  process.stdout.write(`saved ${path.relative(ROOT, jsonFile)}${figures ? ' and test/bench/results/README-figures.md' : ' (a --quick or --reads run leaves README-figures.md alone)'}\n`);
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  cleanUp();
}
