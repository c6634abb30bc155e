// Start-up of `node dist/server.js` (spawn to listening line), its RSS, and heap bytes per event, on a generated folder.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { type BenchContext, ROOT, startOurs } from './bench-context.js';
import type { LimiterFigures, StartupFigure } from './bench-results.js';
import { generateData, type BenchData } from './data-generator.js';
import { median } from './load-plan.js';

/**
 * Generates `events` events (or takes the folder `existing` already holding them), starts the server `runs` times
 * on them, and measures the heap per event in a probe.
 */
export async function startupFigure(context: BenchContext, events: number, runs: number, existing?: BenchData): Promise<{ figure: StartupFigure; data: BenchData }> {
  const generatedAt = performance.now();
  const data = existing ?? (await generateData(path.join(context.workDir, `events-${events}`), events));
  const generateMs = existing === undefined ? performance.now() - generatedAt : 0;
  if (existing === undefined) context.progress(`generated ${events} events in ${Math.round(generateMs)} ms`);
  return measureStartup(context, data, runs, generateMs);
}

/** Starts the server `runs` times on `data` and measures the heap per event in a probe. */
async function measureStartup(context: BenchContext, data: BenchData, runs: number, generateMs: number): Promise<{ figure: StartupFigure; data: BenchData }> {
  const events = data.events;
  const startups: number[] = [];
  const rss: number[] = [];
  const cpu: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const server = await startOurs(context, data, { name: `start-up ${events}` });
    startups.push(server.startupMs);
    rss.push(server.rssMiB());
    cpu.push(server.cpuMs());
    await server.stop();
    context.progress(`start-up with ${events} events, run ${run}: ${Math.round(server.startupMs)} ms (CPU ${Math.round(cpu.at(-1)!)} ms), RSS ${rss.at(-1)!.toFixed(0)} MiB`);
  }
  const probe = JSON.parse(await runProbe(['heap-probe.ts', data.dir, context.distDir])) as { events: number; bytesPerEvent: number };
  if (probe.events !== events) throw new Error(`the heap probe opened ${probe.events} events, expected ${events}`);
  return { figure: { events, startupMs: median(startups), startupCpuMs: median(cpu), rssMiB: median(rss), heapBytesPerEvent: probe.bytesPerEvent, generateMs, runs }, data };
}

/** Limiter and failure-throttle memory, from a probe process run with --expose-gc. */
export async function limiterFigures(): Promise<LimiterFigures> {
  return JSON.parse(await runProbe(['limiter-memory.ts'])) as LimiterFigures;
}

/** Runs a probe script of this folder with --expose-gc and returns its stdout. */
function runProbe(args: readonly string[]): Promise<string> {
  const [script, ...rest] = args;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(ROOT, 'test/bench', script!), ...rest], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited with ${code}: ${err.trim()}`))));
  });
}
