// Child script: opens a data folder's store from dist/ and prints, as JSON, the heap it holds per event.
// Run: node --expose-gc --import tsx test/bench/heap-probe.ts DATA_DIR DIST
import path from 'node:path';
import { pathToFileURL } from 'node:url';

type FileStoreModule = typeof import('../../src/store/file/open-file-store.js');

const [dir, dist] = process.argv.slice(2);
const gc = globalThis.gc;
if (dir === undefined || dist === undefined || gc === undefined) {
  process.stderr.write('usage: node --expose-gc --import tsx test/bench/heap-probe.ts DATA_DIR DIST\n');
  process.exit(2);
}
const { openFileStore } = (await import(pathToFileURL(path.join(dist, 'store/file/open-file-store.js')).href)) as FileStoreModule;

gc();
const before = process.memoryUsage();
const store = await openFileStore({ dataDir: dir, sync: false, lock: false });
gc();
const after = process.memoryUsage();
const heapBytes = after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers);
process.stdout.write(`${JSON.stringify({ events: store.size, heapBytes, bytesPerEvent: heapBytes / store.size })}\n`);
await store.close();
