// Benchmark (not a test): writes a log of N events straight through the encoder, then times openFileStore's replay and its memory.
// Run: node --expose-gc --import tsx test/bench/replay-bench.ts [events=1000000]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CATEGORIES } from '../../src/events/event.js';
import type { EventRecord } from '../../src/events/event.js';
import { encodePut } from '../../src/store/records/encode-record.js';
import { openFileStore } from '../../src/store/file/open-file-store.js';

const count = Number(process.argv[2] ?? 1_000_000);
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
let seed = 1;
/** Deterministic pseudo-random numbers, so runs compare. */
function random(below: number): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return Math.floor((seed / 2 ** 32) * below);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-bench-'));
try {
  const out = fs.openSync(path.join(dir, 'events.jsonl'), 'w');
  let chunk = '';
  for (let i = 0; i < count; i++) {
    // Starts on the half hour over about a year, so many events share a start time, as real ones do.
    const start = Date.UTC(2026, 0, 1) + random(20_000) * 1_800_000;
    let id = 'evt_';
    for (let k = 0; k < 22; k++) id += ALPHABET[random(62)];
    const record: EventRecord = {
      id,
      title: `Event number ${i} with a reasonably long title`,
      description: 'A description of the event that runs to a few dozen words, as most real ones do: where, who, what to bring.',
      category: CATEGORIES[i % 4]!,
      location: `Hall ${i % 50}, room ${i % 300}`,
      start_time: new Date(start).toISOString(),
      end_time: new Date(start + 7_200_000).toISOString(),
      capacity: 100,
      registered_count: 0,
      organizer: { name: `Organizer ${i % 500}`, email: `organizer${i % 500}@campus.example` },
      created_at: '2026-01-01T00:00:00.000Z',
    };
    chunk += encodePut(i + 1, record);
    if (chunk.length > 1 << 20) {
      fs.writeSync(out, chunk);
      chunk = '';
    }
  }
  fs.writeSync(out, chunk);
  fs.closeSync(out);
  const bytes = fs.statSync(path.join(dir, 'events.jsonl')).size;
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const store = await openFileStore({ dataDir: dir, sync: false, logger: { info: (m, f) => console.error(m, f), warn: console.error } });
  const ms = performance.now() - started;
  globalThis.gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  console.log(
    JSON.stringify({ events: store.size, mib: Math.round(bytes / 1048576), replay_ms: Math.round(ms), heap_mib: Math.round((heapAfter - heapBefore) / 1048576), bytes_per_event: Math.round((heapAfter - heapBefore) / count) }),
  );
  const listStarted = performance.now();
  for (let i = 0; i < 1000; i++) store.list({ limit: 50, page: 1 + (i % 100), category: CATEGORIES[i % 4], startFromMs: Date.UTC(2026, 3, 1) });
  console.log(JSON.stringify({ list_page_us: Math.round((performance.now() - listStarted) * 1000 / 1000) }));
  await store.close();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
