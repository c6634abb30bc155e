// The CPU of one list page in process (EventIndex.list, no HTTP), with and without `q`, on 100,000 events of the search
// bench's Zipf text: the part of a page's cost the index adds, with far less noise than a server under load.
// Run (after `make build`): node --import tsx test/bench/search-list-probe.ts [DIST] [CALLS]
//   DIST: a compiled tree's dist/ (default this repo's), so two trees can be compared in turn; CALLS: per page (300).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { queryWords as benchWords, searchEvents, vocabulary } from './search-data.js';

const dist = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '../../dist'));
const calls = Number(process.argv[3] ?? 300);
const load = async <T>(module: string): Promise<T> => (await import(pathToFileURL(path.join(dist, module)).href)) as T;
type ServedModule = typeof import('../../src/store/views/served-event.js');
type IndexModule = typeof import('../../src/store/views/event-index.js');
type WordsModule = typeof import('../../src/search/search-words.js');
// store/views/served-event.js since issue 32; events/event.js in an older tree.
const { toStored } = await load<ServedModule>('store/views/served-event.js').catch(() => load<ServedModule>('events/event.js'));
const { EventIndex } = await load<IndexModule>('store/views/event-index.js');
// search/ since issue 32; lib/ in an older tree.
const { queryWords } = await load<WordsModule>('search/search-words.js').catch(() => load<WordsModule>('lib/search-words.js'));

const byId = new Map<string, ReturnType<typeof toStored>>();
let seq = 0;
for (const record of searchEvents(100_000)) {
  const stored = toStored(record, ++seq);
  byId.set(stored.id, stored);
}
const index = new EventIndex(byId);
await index.buildSearchIndex();
const { common } = benchWords(vocabulary());
// The pages of search-bench.ts: its dated page is `category=academic&start_date=2026-07-01&end_date=2026-09-30`.
const dated = { categories: ['academic' as const], startFromMs: Date.UTC(2026, 6, 1), endByMs: Date.UTC(2026, 8, 30) + 86_399_999, limit: 20, page: 1 };
const pages = { 'q + category + dates': { ...dated, words: queryWords(common) }, 'category + dates': dated, 'q one common word': { words: queryWords(common), limit: 20, page: 1 }, 'no filter': { limit: 20, page: 1 } };
const medians: Record<string, number> = {};
for (const [name, query] of Object.entries(pages)) {
  const micros: number[] = [];
  for (let call = 0; call < calls; call++) {
    const started = process.cpuUsage();
    index.list(query);
    const spent = process.cpuUsage(started);
    micros.push(spent.user + spent.system);
  }
  medians[name] = micros.sort((a, b) => a - b)[Math.floor(calls / 2)]!;
}
console.log(JSON.stringify({ dist, calls, medianCpuMicros: medians, loadAverage: os.loadavg()[0]!.toFixed(2) }));
