import fs from 'node:fs';
import { openFileStore } from '../../src/store/file-store.js';
import { generateSearchData } from './search-data.js';
const [dir, events, mode] = [process.argv[2]!, Number(process.argv[3]), process.argv[4]];
if (!fs.existsSync(dir)) { await generateSearchData(dir, events); console.log('generated'); process.exit(0); }
const mib = (n: number) => (n / 2 ** 20).toFixed(0);
const show = (label: string) => { const u = process.memoryUsage(); console.log(label, 'rss', mib(u.rss), 'heapTotal', mib(u.heapTotal), 'heapUsed', mib(u.heapUsed), 'arrayBuffers', mib(u.arrayBuffers), 'external', mib(u.external)); };
const t = process.cpuUsage();
const store = await openFileStore({ dataDir: dir, searchIndex: mode !== 'bare' } as never);
show('opened');
await store.whenSearchReady();
const c = process.cpuUsage(t);
console.log('cpu s', ((c.user + c.system) / 1e6).toFixed(2));
show('built');
globalThis.gc?.(); globalThis.gc?.();
show('after gc');
await store.close();
