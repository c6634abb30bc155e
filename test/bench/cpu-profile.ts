// `--profile`: runs `node --cpu-prof dist/server.js` under the single-read load and ranks functions by self time.
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchContext, planFor, ROOT, startOurs } from './bench-context.js';
import type { ProfileEntry } from './bench-results.js';
import type { BenchData } from './data-generator.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  /** CLOCK_MONOTONIC in microseconds, as process.hrtime counts on Linux. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of CLOCK_MONOTONIC in microseconds. */
interface Window {
  from: number;
  to: number;
}

const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

/** Profiles our server under `GET /events/{id}` for one measured run and returns the top `count` functions by self time. */
export function profileSingleRead(context: BenchContext, data: BenchData, count = 15): Promise<ProfileEntry[]> {
  return profileReads(context, data, { name: 'single-read', paths: data.sampleIds.map((id) => `/events/${id}`) }, count);
}

/**
 * Profiles our server (request log at info) under GETs of `paths` in turn for one measured run, keeps the profile as
 * test/bench/results/NAME.cpuprofile (for Chrome DevTools) and returns the top `count` functions by self time.
 */
export async function profileReads(context: BenchContext, data: BenchData, load: { name: string; paths: string[] }, count = 15): Promise<ProfileEntry[]> {
  const profileDir = path.join(context.workDir, `cpu-profile-${load.name}`);
  fs.mkdirSync(profileDir, { recursive: true });
  const server = await startOurs(context, data, { name: 'ours --cpu-prof', nodeFlags: ['--cpu-prof', '--cpu-prof-dir', profileDir] });
  // Only the measured window counts: not the start-up (log replay) nor the warm-up.
  const window: Window = { from: NaN, to: NaN };
  try {
    const plan = planFor(context, server.url, { paths: load.paths, concurrency: 10, authorization: `Bearer ${data.secret}` });
    const result = await context.runLoad(plan, () => (window.from = monotonicMicros()));
    window.to = monotonicMicros();
    context.progress(`profiled run: ${Math.round(result.requestsPerSecond)} req/s`);
  } finally {
    await server.stop();
  }
  const file = fs.readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`node --cpu-prof wrote no profile into ${profileDir}`);
  const top = topSelfTime(JSON.parse(fs.readFileSync(path.join(profileDir, file), 'utf8')) as CpuProfile, count, context.distDir, window);
  fs.copyFileSync(path.join(profileDir, file), path.join(ROOT, `test/bench/results/${load.name}.cpuprofile`));
  return top;
}

/**
 * Self time per function (summed over its call sites) among the samples inside `window`, largest first, idle and GC
 * included as V8 names them. Without a window, or if no sample falls inside it, every sample counts.
 */
export function topSelfTime(profile: CpuProfile, count: number, distDir: string, window?: Window): ProfileEntry[] {
  const byNode = new Map<number, ProfileNode>(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<string, { entry: ProfileEntry; micros: number }>();
  let totalUs = 0;
  const maps = new SourceMaps(distDir);
  const times: number[] = [];
  for (let i = 0, at = profile.startTime; i < profile.samples.length; i++) times.push((at += profile.timeDeltas[i] ?? 0));
  const inWindow = (i: number): boolean => window === undefined || (times[i]! >= window.from && times[i]! <= window.to);
  const windowed = window !== undefined && times.some((_, i) => inWindow(i));
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byNode.get(profile.samples[i]!);
    const delta = profile.timeDeltas[i] ?? 0;
    if (node === undefined || (windowed && !inWindow(i))) continue;
    totalUs += delta;
    const frame = node.callFrame;
    const key = `${frame.functionName}@${frame.url}:${frame.lineNumber}`;
    let slot = selfUs.get(key);
    if (slot === undefined) {
      slot = { entry: { functionName: frame.functionName || '(anonymous)', location: maps.locate(frame.url, frame.lineNumber, frame.columnNumber), selfMs: 0, percent: 0 }, micros: 0 };
      selfUs.set(key, slot);
    }
    slot.micros += delta;
  }
  return [...selfUs.values()]
    .sort((a, b) => b.micros - a.micros)
    .slice(0, count)
    .map(({ entry, micros }) => ({ ...entry, selfMs: micros / 1000, percent: (100 * micros) / Math.max(1, totalUs) }));
}

/** Maps a position in the run's copy of dist/ to its src/ file and line through the .js.map tsc wrote. */
class SourceMaps {
  readonly #maps = new Map<string, SourceMap | undefined>();
  readonly #distDir: string;

  constructor(distDir: string) {
    this.#distDir = distDir;
  }

  locate(url: string, line: number, column: number): string {
    if (!url.startsWith('file://')) return url === '' ? '(native)' : url;
    const copied = fileURLToPath(url);
    // The maps name sources relative to dist/ (../src/…): resolve them from where the copy came from.
    const file = copied.startsWith(this.#distDir + path.sep) ? path.join(ROOT, 'dist', path.relative(this.#distDir, copied)) : copied;
    if (!this.#maps.has(file)) {
      let map: SourceMap | undefined;
      try {
        map = new SourceMap(JSON.parse(fs.readFileSync(`${copied}.map`, 'utf8')));
      } catch {
        map = undefined;
      }
      this.#maps.set(file, map);
    }
    const map = this.#maps.get(file);
    const entry = map?.findEntry(line, column) as { originalSource?: string; originalLine?: number } | undefined;
    if (entry?.originalSource === undefined) return path.relative(ROOT, file);
    const source = entry.originalSource.startsWith('file://') ? fileURLToPath(entry.originalSource) : path.resolve(path.dirname(file), entry.originalSource);
    return `${path.relative(ROOT, source)}:${(entry.originalLine ?? 0) + 1}`;
  }
}
