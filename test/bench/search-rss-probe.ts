// Where the search index's RSS goes at start-up: the file store opened from dist/ in a fresh process per way of
// building it (a worker during replay, the main thread after it, no index), with process.memoryUsage and the
// process's memory maps once the index is built, after a forced GC, and a few seconds later.
// Run (after `make build`): node --import tsx test/bench/search-rss-probe.ts [--events N] [--data usual|zipf] [--dir DIR]
//   --dir keeps the generated folder there (and reuses it when it holds events.jsonl) instead of a temporary one.
//   --ways worker,main,none picks the ways (default all three); --node-flags "..." passes flags to each child.
//   SEARCH_RSS_MALLOC_STATS=1 prints glibc's malloc_stats() of each child on stderr (gdb attaches to it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateData } from './data-generator.js';
import { generateSearchData } from './search-data.js';

type FileStoreModule = typeof import('../../src/store/file/open-file-store.js');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const valueOf = (flag: string): string | undefined => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const WAYS = ['worker', 'main', 'none'] as const;
type Way = (typeof WAYS)[number];

/** Memory figures of this process, in MiB. */
function figures(): Record<string, number> {
  const usage = process.memoryUsage();
  const mib = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;
  const maps = mapsMiB();
  return { rss: mib(usage.rss), heapTotal: mib(usage.heapTotal), heapUsed: mib(usage.heapUsed), external: mib(usage.external), arrayBuffers: mib(usage.arrayBuffers), ...maps };
}

/**
 * Resident MiB of the anonymous mappings, by kind: the main arena (`[heap]`), glibc's thread arenas (64 MiB-aligned
 * reservations: the resident part of each), and the rest (V8's pages, mmapped malloc chunks).
 */
function mapsMiB(): Record<string, number> {
  let text: string;
  try {
    text = fs.readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return {};
  }
  const kinds = { brkHeap: 0, threadArenas: 0, otherAnon: 0, files: 0 };
  let kind: keyof typeof kinds = 'otherAnon';
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header !== null) {
      const start = BigInt(`0x${header[1]}`);
      const name = header[3]!;
      if (name === '[heap]') kind = 'brkHeap';
      else if (name.startsWith('/')) kind = 'files';
      else if (name === '' && start % (64n << 20n) === 0n) kind = 'threadArenas';
      else kind = 'otherAnon';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss !== null) kinds[kind] += Number(rss[1]) / 1024;
  }
  return Object.fromEntries(Object.entries(kinds).map(([key, value]) => [key, Math.round(value * 10) / 10]));
}

/** The child: opens the store the way `way` says, waits for the index, prints its figures as one JSON line. */
async function child(dir: string, way: Way): Promise<void> {
  const { openFileStore } = (await import(pathToFileURL(path.join(ROOT, 'dist/store/file/open-file-store.js')).href)) as FileStoreModule;
  const started = performance.now();
  const store = await openFileStore({ dataDir: dir, sync: false, searchIndex: way !== 'none', searchWorker: way === 'main' ? false : undefined });
  await store.whenSearchReady();
  const readyMs = Math.round(performance.now() - started);
  const ready = figures();
  globalThis.gc?.();
  const collected = figures();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const later = figures();
  // glibc's own count of each arena's bytes in use and held (on stderr), read by gdb attached to this process.
  if (process.env['SEARCH_RSS_MALLOC_STATS'] !== undefined) spawnSync('gdb', ['-p', String(process.pid), '-batch', '-ex', 'call (void)malloc_stats()'], { stdio: 'ignore' });
  await store.close();
  process.stdout.write(`${JSON.stringify({ way, readyMs, ready, collected, later })}\n`);
}

async function parent(): Promise<void> {
  const events = Number(valueOf('--events') ?? 1_000_000);
  const kind = valueOf('--data') ?? 'usual';
  const kept = valueOf('--dir');
  const dir = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), 'search-rss-'));
  const ways = (valueOf('--ways')?.split(',') ?? WAYS) as Way[];
  const nodeFlags = valueOf('--node-flags')?.split(' ').filter((flag) => flag !== '') ?? [];
  try {
    if (!fs.existsSync(path.join(dir, 'events.jsonl'))) await (kind === 'zipf' ? generateSearchData(dir, events) : generateData(dir, events));
    process.stdout.write(`${events} events (${kind}), log ${(fs.statSync(path.join(dir, 'events.jsonl')).size / 1048576).toFixed(0)} MiB; load average ${os.loadavg()[0]!.toFixed(2)}\n`);
    for (const way of ways) {
      const run = spawnSync(process.execPath, ['--expose-gc', ...nodeFlags, '--import', 'tsx', fileURLToPath(import.meta.url), '--child', dir, way], { encoding: 'utf8', timeout: 600_000 });
      if (run.status !== 0) throw new Error(`the ${way} child failed (${run.status ?? run.signal}): ${run.stderr}`);
      process.stdout.write(run.stdout);
      if (process.env['SEARCH_RSS_MALLOC_STATS'] !== undefined) process.stdout.write(run.stderr);
    }
  } finally {
    if (kept === undefined) fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (args[0] === '--child') await child(args[1]!, args[2] as Way);
else await parent();
