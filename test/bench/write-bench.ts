// Benchmark (not a test): write throughput and fdatasync count of the file store under concurrent writers.
// Run: node --import tsx test/bench/write-bench.ts [writes=20000] [concurrency=200]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EventRecord } from '../../src/events/event.js';
import { openFileStore } from '../../src/store/file/open-file-store.js';
import { TestFileSystem } from '../store/helpers.js';

const total = Number(process.argv[2] ?? 20_000);
const concurrency = Number(process.argv[3] ?? 200);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'write-bench-'));
try {
  const files = new TestFileSystem();
  const store = await openFileStore({ dataDir: dir, fs: files });
  const record = (n: number): EventRecord => ({
    id: `evt_${String(n).padStart(20, '0')}`, title: `Event ${n}`, description: 'A short description.', category: 'social', location: 'Hall',
    start_time: '2026-09-01T17:00:00.000Z', end_time: '2026-09-01T19:00:00.000Z', capacity: 100, registered_count: 0,
    organizer: { name: 'Ada', email: 'ada@campus.example' }, created_at: '2026-08-01T00:00:00.000Z',
  });
  let next = 0;
  const started = performance.now();
  const latencies: number[] = [];
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const n = next++;
      const t = performance.now();
      await store.write(record(n).id, () => record(n));
      latencies.push(performance.now() - t);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(JSON.stringify({ writes: total, concurrency, per_second: Math.round(total / seconds), fdatasyncs: files.syncs, p50_ms: latencies[latencies.length >> 1]!.toFixed(2), p99_ms: latencies[Math.floor(latencies.length * 0.99)]!.toFixed(2) }));
  await store.close();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
