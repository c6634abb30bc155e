// Child script: heap held by a store of events with registrations, less the same events alone, per registration.
// Run: node --expose-gc --import tsx test/bench/registration-heap-probe.ts FULL_DIR EVENTS_ONLY_DIR DIST
import path from 'node:path';
import { pathToFileURL } from 'node:url';

type FileStoreModule = typeof import('../../src/store/file/open-file-store.js');

const [fullDir, eventsOnlyDir, dist] = process.argv.slice(2);
const gc = globalThis.gc;
if (fullDir === undefined || eventsOnlyDir === undefined || dist === undefined || gc === undefined) {
  process.stderr.write('usage: node --expose-gc --import tsx test/bench/registration-heap-probe.ts FULL_DIR EVENTS_ONLY_DIR DIST\n');
  process.exit(2);
}
const { openFileStore } = (await import(pathToFileURL(path.join(dist, 'store/file/open-file-store.js')).href)) as FileStoreModule;

/** Heap and array buffers a store opened on `dir` holds, with its counts. */
async function held(dir: string): Promise<{ bytes: number; events: number; registrations: number }> {
  gc!();
  const before = process.memoryUsage();
  const store = await openFileStore({ dataDir: dir, sync: false, lock: false });
  gc!();
  const after = process.memoryUsage();
  const result = { bytes: after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers), events: store.size, registrations: store.stats.liveRegistrations };
  await store.close();
  return result;
}

const alone = await held(eventsOnlyDir);
const full = await held(fullDir);
process.stdout.write(`${JSON.stringify({ events: full.events, registrations: full.registrations, eventsBytes: alone.bytes, fullBytes: full.bytes, bytesPerRegistration: (full.bytes - alone.bytes) / full.registrations })}\n`);
