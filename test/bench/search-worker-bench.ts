// The CPU of the search index's start-up build (what the worker thread does while replay runs), measured on its
// own so that a loaded machine does not matter: CPU time (user + system) of the build, not wall-clock time.
// Run: make build && node --import tsx test/bench/search-worker-bench.ts [--events N] [--runs R] [--baseline REF] [--profile]
// Each run is a child `node` on dist (no tsx: it turns imports into getters and distorts a profile) that builds the
// index from a 1,000,000-event log (generated once into a temp folder, then reused) of each kind of data the search
// bench uses, and prints its CPU. The baseline is the build of git REF (default main), compiled once into the same
// temp folder, run in the same way, in turn with ours; both must build the same index (a hash of its arrays).
// `--profile`: one more run of ours under `node --cpu-prof`, and its top functions by self time.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { topSelfTime } from './cpu-profile.js';
import { generateData, type BenchData } from './data-generator.js';
import { median } from './load-plan.js';
import { generateSearchData } from './search-data.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => (args.includes(name) ? args[args.indexOf(name) + 1]! : fallback);
const EVENTS = Number(option('--events', '1000000'));
const RUNS = Number(option('--runs', '3'));
const BASELINE = option('--baseline', 'main');
const PROFILE = args.includes('--profile');
/** Issue 19's perf19 target: the build at least 20 % cheaper in CPU than the baseline's. */
const TARGET = 0.8;
const WORK = path.join(os.tmpdir(), 'campus-search-worker-bench');

/**
 * What a child runs: the build of the log `file` from `dist`, by its exported function in this thread when the
 * dist has one, else by its worker module in a worker thread (an older dist), the main thread idle meanwhile; then
 * its CPU and a hash of every array of the built index, as one line of JSON.
 */
const CHILD = `
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
const [dist, file] = process.argv.slice(-2);
const length = statSync(file).size;
// search/ since issue 32; store/file/ in an older dist.
const room = existsSync(new URL(dist + '/search/search-log-worker.js')) ? '/search/' : '/store/file/';
let build;
try {
  const { buildSearchFromLog } = await import(dist + room + 'search-log-read.js');
  build = async () => buildSearchFromLog(file, length);
} catch {
  build = () => new Promise((resolve, reject) => {
    const worker = new Worker(new URL(dist + room + 'search-log-worker.js'), { workerData: { file, length }, execArgv: [] });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}
const before = process.cpuUsage();
const built = await build();
const used = process.cpuUsage(before);
const hash = createHash('sha256');
const feed = (value) => {
  if (ArrayBuffer.isView(value)) hash.update(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
  else if (typeof value === 'object') for (const key of Object.keys(value).sort()) { hash.update(key); feed(value[key]); }
  else hash.update(String(value));
};
const terms = built.terms;
feed({ ...built, terms: { ...terms, units: terms.units.subarray(0, terms.used), starts: terms.starts.subarray(0, terms.count), hashes: terms.hashes.subarray(0, terms.count) } });
console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, terms: terms.count, hash: hash.digest('hex').slice(0, 16) }));
`;

interface Run {
  cpuMs: number;
  terms: number;
  hash: string;
}

function runBuild(dist: string, file: string, nodeFlags: string[] = []): Run {
  const out = execFileSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', CHILD, pathToFileURL(dist).href, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as Run;
}

/** The dist of git `ref`, compiled once into WORK (the baseline's sources as they are in that commit). */
function baselineDist(ref: string): string {
  const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', ref], { encoding: 'utf8' }).trim();
  const dir = path.join(WORK, `baseline-${commit}`);
  if (!fs.existsSync(path.join(dir, 'dist/search/search-log-worker.js')) && !fs.existsSync(path.join(dir, 'dist/store/file/search-log-worker.js'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${commit} src tsconfig.json package.json | tar -x -C "${dir}"`]);
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    execFileSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(dir, 'tsconfig.json')], { stdio: 'inherit' });
  }
  process.stderr.write(`baseline: ${ref} (${commit}), built in ${dir}\n`);
  return path.join(dir, 'dist');
}

/** The log of `events` events of one kind, generated into WORK the first time. */
async function log(kind: 'zipf' | 'usual', events: number): Promise<string> {
  const dir = path.join(WORK, `${kind}-${events}`);
  const file = path.join(dir, 'events.jsonl');
  const done = path.join(dir, 'complete');
  if (!fs.existsSync(done)) {
    fs.rmSync(dir, { recursive: true, force: true });
    process.stderr.write(`generating ${events} events (${kind}) into ${dir}\n`);
    const data: BenchData = kind === 'zipf' ? await generateSearchData(dir, events) : await generateData(dir, events);
    fs.writeFileSync(done, String(data.events));
  }
  return file;
}

const ours = path.join(ROOT, 'dist');
if (!fs.existsSync(path.join(ours, 'search/search-log-read.js'))) throw new Error('run make build first');
const base = baselineDist(BASELINE);
const size = EVENTS.toLocaleString('en-US');
const verdicts: string[] = [];
process.stdout.write(`\n## The search index's start-up build, CPU ms (user + system) at ${size} events, medians of ${RUNS} runs in turn with ${BASELINE}; load average ${os.loadavg()[0]!.toFixed(2)} at the start\n\n`);
process.stdout.write(`| data | ${BASELINE} | ours | ours / ${BASELINE} | terms |\n|---|---:|---:|---:|---:|\n`);
for (const [kind, label] of [['zipf', 'Zipf text, 39 words an event'], ['usual', "the main bench's data"]] as const) {
  const file = await log(kind, EVENTS);
  const baseRuns: Run[] = [];
  const ourRuns: Run[] = [];
  for (let run = 0; run < RUNS; run++) {
    baseRuns.push(runBuild(base, file));
    ourRuns.push(runBuild(ours, file));
    process.stderr.write(`${kind} run ${run + 1}: ${BASELINE} ${baseRuns.at(-1)!.cpuMs.toFixed(0)} ms, ours ${ourRuns.at(-1)!.cpuMs.toFixed(0)} ms\n`);
  }
  const hashes = new Set([...baseRuns, ...ourRuns].map((run) => run.hash));
  if (hashes.size !== 1) throw new Error(`${kind}: the builds differ (hashes ${[...hashes].join(', ')})`);
  const [b, o] = [median(baseRuns.map((run) => run.cpuMs)), median(ourRuns.map((run) => run.cpuMs))];
  process.stdout.write(`| ${label} | ${b.toFixed(0)} | ${o.toFixed(0)} | ${(o / b).toFixed(3)} | ${ourRuns[0]!.terms.toLocaleString('en-US')} |\n`);
  verdicts.push(`- **${o <= b * TARGET ? 'PASS' : 'MISS'}** ${label}: the build at most ${TARGET} of ${BASELINE}'s CPU: ${(o / b).toFixed(3)} (the same index: hash ${[...hashes][0]})`);
}
process.stdout.write(`\n${verdicts.join('\n')}\n`);

if (PROFILE) {
  const dir = fs.mkdtempSync(path.join(WORK, 'profile-'));
  runBuild(ours, await log('zipf', EVENTS), ['--cpu-prof', '--cpu-prof-dir', dir]);
  const file = fs.readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!;
  const top = topSelfTime(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), 20, ours);
  process.stdout.write(`\nProfile of ours (Zipf data; ${path.join(dir, file)}), self time:\n\n| function | where | ms | % |\n|---|---|---:|---:|\n`);
  for (const entry of top) process.stdout.write(`| ${entry.functionName} | ${entry.location} | ${entry.selfMs.toFixed(0)} | ${entry.percent.toFixed(1)} |\n`);
}
