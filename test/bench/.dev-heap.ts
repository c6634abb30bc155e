import path from 'node:path';
import { pathToFileURL } from 'node:url';
const [dir, dist] = process.argv.slice(2);
const gc = globalThis.gc!;
const { openFileStore } = await import(pathToFileURL(path.join(dist!, 'store/file-store.js')).href);
gc();
const before = process.memoryUsage();
const t = performance.now();
const store = await openFileStore({ dataDir: dir, sync: false, lock: false });
const ms = performance.now() - t;
gc(); gc();
const after = process.memoryUsage();
const mb = (n: number) => (n / 1048576).toFixed(1);
console.log(`open ${ms.toFixed(0)} ms; heapUsed +${mb(after.heapUsed - before.heapUsed)} MiB, arrayBuffers +${mb(after.arrayBuffers - before.arrayBuffers)} MiB, external +${mb(after.external - before.external)}, rss ${mb(after.rss)} MiB, per event ${((after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / store.size).toFixed(0)} B`);
if (process.argv[4]) { const v8 = await import('node:v8'); v8.writeHeapSnapshot(process.argv[4]); }
await store.close();
