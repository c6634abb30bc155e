import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { snapshotDist, type BenchContext } from './bench-context.js';
import { profileReads } from './cpu-profile.js';
import { generateData } from './data-generator.js';
import { runWrk } from './wrk-runner.js';
const which = process.argv[2] ?? 'single';
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfdev-'));
const context: BenchContext = {
  workDir, distDir: snapshotDist(workDir), serverCpus: '0', generatorCpus: '1', generator: 'wrk',
  runLoad: (plan, on) => runWrk(plan, { wrk: '/usr/bin/wrk', scriptDir: workDir, threads: 1, cpus: '1' }, on),
  warmupMs: 1000, durationMs: 5000, rounds: 1, strace: false, progress: (l) => process.stderr.write(l + '\n'),
};
const data = await generateData(path.join(workDir, 'd'), 10_000);
const paths = which === 'list' ? ['/events?limit=100'] : data.sampleIds.map((id) => `/events/${id}`);
const top = await profileReads(context, data, { name: `dev-${which}`, paths }, 40);
for (const e of top) console.log(`${e.percent.toFixed(1).padStart(5)} %  ${e.functionName}  ${e.location}`);
fs.rmSync(workDir, { recursive: true, force: true });
