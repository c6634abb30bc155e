// Profiles one scenario on a generated folder: `node --cpu-prof` on the server, top functions by self time, CPU per request.
// Run: node --import tsx test/bench/profile-scenario.ts post|filtered|single EVENTS [--data DIR] [--seconds N] [--top N]
// The folder is generated into --data (kept, so a second profile skips the generation) or a temporary one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BenchContext, planFor, ROOT, snapshotDist, startOurs } from './bench-context.js';
import { topSelfTime } from './cpu-profile.js';
import { copyData, CREATE_BODY, generateData, type BenchData } from './data-generator.js';
import { runNodeLoad } from './load-generator.js';
import { FILTERED } from './read-scenarios.js';

const [scenario, eventsArg] = process.argv.slice(2);
const valueOf = (flag: string): string | undefined => (process.argv.includes(flag) ? process.argv[process.argv.indexOf(flag) + 1] : undefined);
const events = Number(eventsArg);
if (!['post', 'filtered', 'single'].includes(scenario ?? '') || !Number.isInteger(events) || events < 1) {
  process.stderr.write('usage: profile-scenario.ts post|filtered|single EVENTS [--data DIR] [--seconds N]\n');
  process.exit(2);
}
process.chdir(ROOT);
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-events-profile-'));
const dataDir = valueOf('--data') ?? path.join(workDir, 'data');
const context: BenchContext = {
  workDir,
  distDir: snapshotDist(workDir),
  serverCpus: undefined,
  generatorCpus: undefined,
  generator: 'node',
  runLoad: runNodeLoad,
  warmupMs: 1000,
  durationMs: Number(valueOf('--seconds') ?? 5) * 1000,
  rounds: 1,
  strace: false,
  progress: (line) => void process.stderr.write(`${line}\n`),
};
try {
  const metaFile = path.join(dataDir, 'bench-data.json');
  let data: BenchData;
  if (fs.existsSync(metaFile)) data = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as BenchData;
  else {
    data = await generateData(dataDir, events);
    fs.writeFileSync(metaFile, JSON.stringify(data));
  }
  // A POST changes the folder: profile a copy.
  const served = scenario === 'post' ? copyData(data, path.join(workDir, 'copy')) : data;
  const profileDir = path.join(workDir, 'cpu-profile');
  const server = await startOurs(context, served, { name: `profile ${scenario}`, launcher: scenario === 'post', nodeFlags: ['--cpu-prof', '--cpu-prof-dir', profileDir] });
  process.stderr.write(`start-up ${Math.round(server.startupMs)} ms, RSS ${Math.round(server.rssMiB())} MiB\n`);
  const window = { from: NaN, to: NaN };
  let cpuBefore = NaN;
  const authorization = `Bearer ${data.secret}`;
  const plan =
    scenario === 'post'
      ? planFor(context, server.url, { paths: ['/events'], concurrency: 50, authorization, post: { path: '/events', body: CREATE_BODY, every: 1 } })
      : scenario === 'filtered'
        ? planFor(context, server.url, { paths: [FILTERED], concurrency: 1, authorization })
        : planFor(context, server.url, { paths: data.sampleIds.map((id) => `/events/${id}`), concurrency: 10, authorization });
  const micros = (): number => Number(process.hrtime.bigint() / 1000n);
  const result = await context.runLoad(plan, () => {
    window.from = micros();
    cpuBefore = server.cpuMs();
  });
  window.to = micros();
  const cpuUs = ((server.cpuMs() - cpuBefore) * 1000) / Math.max(1, result.requests);
  await server.stop();
  const file = fs.readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'))!;
  const profile = JSON.parse(fs.readFileSync(path.join(profileDir, file), 'utf8'));
  const out = path.join(ROOT, `test/bench/results/${scenario}-${events}.cpuprofile`);
  fs.copyFileSync(path.join(profileDir, file), out);
  process.stdout.write(`${scenario} at ${events} events: ${Math.round(result.requestsPerSecond)} req/s, p99 ${result.p99Ms.toFixed(2)} ms, server CPU ${cpuUs.toFixed(0)} us/request, non-2xx ${result.non2xx}\n`);
  for (const entry of topSelfTime(profile, Number(valueOf('--top') ?? 15), context.distDir, window)) process.stdout.write(`  ${entry.percent.toFixed(1).padStart(5)} %  ${entry.functionName}  ${entry.location}\n`);
  process.stdout.write(`profile: ${path.relative(ROOT, out)}\n`);
} finally {
  fs.rmSync(workDir, { recursive: true, force: true });
}
