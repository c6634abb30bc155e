// The heap the search index holds per event, and the CPU of building it (from events on the main thread, and from the
// log's bytes as the start-up worker does), on the Zipf text of the search bench.
// Run: node --expose-gc --import tsx test/bench/search-heap-probe.ts [EVENTS]   (default 100,000)
import { type EventRecord, type StoredEvent } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { LogTermCollector } from '../../src/search/search-log-terms.js';
import { encodePut } from '../../src/store/records/encode-record.js';
import { searchEvents } from './search-data.js';
import { STORE_EVENT_FORMS } from '../../src/store/views/store-event-forms.js';

const events = Number(process.argv[2] ?? 100_000);
const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with --expose-gc');

function heap(): number {
  gc!();
  gc!();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/**
 * Heap bytes per event of the search index alone (the heap with it, less the heap once it is dropped: garbage of
 * making the events does not count), and the CPU of building it.
 */
function measure(stored: readonly StoredEvent[]): { bytesPerEvent: number; buildMicrosPerEvent: number } {
  heap();
  const started = process.cpuUsage();
  let index: SearchIndex | undefined = new SearchIndex(stored, STORE_EVENT_FORMS);
  index.buildSome(stored.length, () => true);
  const spent = process.cpuUsage(started);
  if (!index.ready) throw new Error('the index is not built');
  const withIndex = heap();
  index = undefined;
  const bytes = withIndex - heap();
  return { bytesPerEvent: Math.round(bytes / events), buildMicrosPerEvent: Math.round((spent.user + spent.system) / events) };
}

/** The compact events of `records`, made before measuring so no record array is freed during it. */
function storedOf(records: Iterable<EventRecord>): StoredEvent[] {
  const stored: StoredEvent[] = [];
  for (const record of records) stored.push(toStored(record, stored.length + 1));
  // As the map by id does in the server: hashing flattens an id built piece by piece (a chain of cons strings).
  new Map(stored.map((event) => [event.id, event]));
  return stored;
}

/** The CPU of building the index from the log's bytes, as the start-up worker does (see search-log-build.ts). */
function measureLogBuild(records: Iterable<EventRecord>): { logBuildMicrosPerEvent: number } {
  const log = Buffer.from([...records].map((record, at) => encodePut(at + 1, record)).join(''), 'utf8');
  const started = process.cpuUsage();
  const collector = new LogTermCollector();
  let start = 0;
  for (let newline = log.indexOf(10); newline !== -1; newline = log.indexOf(10, start)) {
    collector.line(log, start, newline);
    start = newline + 1;
  }
  if (collector.finish(start).putSeqs.length !== events) throw new Error('the log build lost events');
  const spent = process.cpuUsage(started);
  return { logBuildMicrosPerEvent: Math.round((spent.user + spent.system) / events) };
}

const zipf = { ...measure(storedOf(searchEvents(events))), ...measureLogBuild(searchEvents(events)) };
process.stdout.write(`${JSON.stringify({ events, zipf })}\n`);
