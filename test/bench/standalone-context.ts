// The context of a bench script run on its own (not from run.ts): a work folder, CPU pinning as run.ts pins, wrk when found.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BenchContext, ROOT, snapshotDist } from './bench-context.js';
import { runNodeLoad } from './load-generator.js';
import { findProgram } from './programs.js';
import { runWrk } from './wrk-runner.js';

/**
 * Pins this process (and so the load generator) off CPU 0, where servers run; makes a work folder named after
 * `name`; loads with wrk when it is on the PATH, unless `generator` says `node`. Call from the script's top.
 */
export function standaloneContext(name: string, runs: { warmupMs: number; durationMs: number; rounds: number; generator?: 'node' | 'wrk' }): BenchContext {
  process.chdir(ROOT);
  const startedAt = performance.now();
  const cpuCount = os.availableParallelism();
  const canPin = findProgram('taskset') !== undefined && cpuCount >= 2;
  const generatorCpus = canPin ? (cpuCount === 2 ? '1' : `1-${cpuCount - 1}`) : undefined;
  if (generatorCpus !== undefined) spawnSync('taskset', ['-a', '-cp', generatorCpus, String(process.pid)], { stdio: 'ignore' });
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `campus-events-${name}-bench-`));
  const wrk = runs.generator === 'node' ? undefined : findProgram('wrk');
  return {
    workDir,
    distDir: snapshotDist(workDir),
    serverCpus: canPin ? '0' : undefined,
    generatorCpus,
    generator: wrk === undefined ? 'node' : 'wrk',
    runLoad: wrk === undefined ? runNodeLoad : (plan, onMeasuring) => runWrk(plan, { wrk, scriptDir: workDir, threads: Math.max(1, cpuCount - 1), cpus: generatorCpus }, onMeasuring),
    warmupMs: runs.warmupMs,
    durationMs: runs.durationMs,
    rounds: runs.rounds,
    strace: false,
    progress: (line) => void process.stderr.write(`[${name} bench ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(3)} s] ${line}\n`),
  };
}
