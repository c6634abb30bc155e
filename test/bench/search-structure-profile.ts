// The profile that chose the search index's structure: a word-prefix index (sorted vocabulary, postings) against
// anchored trigrams and against no index (a scan), on the Zipf bench text: build time, heap per event, query time.
// Run: node --expose-gc --import tsx test/bench/search-structure-profile.ts [EVENTS]   (default 100,000)
import { type StoredEvent } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { queryWords as foldQuery, searchWords } from '../../src/search/search-words.js';
import { searchTextOf } from '../../src/search/event-search-text.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { queryWords, searchEvents, vocabulary } from './search-data.js';
import { STORE_EVENT_FORMS } from '../../src/store/views/store-event-forms.js';

const events = Number(process.argv[2] ?? 100_000);
const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const stored: StoredEvent[] = [];
let seq = 0;
for (const record of searchEvents(events)) stored.push(toStored(record, ++seq));
const words = queryWords(vocabulary());
const queries: [string, string][] = [
  ['one common word', words.common],
  ['one rare word', words.rare],
  ['two common words', `${words.common} ${words.common2}`],
  ['common + rare', `${words.common} ${words.rare}`],
  ['a 2-letter prefix', words.common.slice(0, 2)],
];

/** Anchored trigrams: each word's trigrams with a start mark, so a query word's own trigrams find word starts. */
class TrigramIndex {
  readonly postings = new Map<string, number[]>();
  constructor(all: readonly StoredEvent[]) {
    all.forEach((event, slot) => {
      for (const word of new Set(searchTextOf(event).flatMap(searchWords))) {
        for (const gram of trigrams(word)) {
          const list = this.postings.get(gram);
          if (list === undefined) this.postings.set(gram, [slot]);
          else if (list[list.length - 1] !== slot) list.push(slot);
        }
      }
    });
  }
  count(q: string): number {
    let candidates: number[] | undefined;
    const query = foldQuery(q);
    for (const word of query) {
      // A one- or two-letter word has one gram; longer ones, one per letter: intersect their sorted postings.
      for (const gram of trigrams(word).slice(0, Math.max(1, word.length - 1))) {
        const list = this.postings.get(gram) ?? [];
        candidates = candidates === undefined ? list : intersect(candidates, list);
      }
    }
    // Grams may come from different words of the event: every candidate is checked against its own text.
    return (candidates ?? []).filter((slot) => matches(stored[slot]!, query)).length;
  }
}

function trigrams(word: string): string[] {
  const marked = `\u0001${word}`;
  if (marked.length <= 3) return [marked];
  const out: string[] = [];
  for (let i = 0; i + 3 <= marked.length; i++) out.push(marked.slice(i, i + 3));
  return out;
}

function intersect(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else (out.push(a[i]!), i++, j++);
  }
  return out;
}

function matches(event: StoredEvent, query: readonly string[]): boolean {
  const own = searchTextOf(event).flatMap(searchWords);
  return query.every((word) => own.some((each) => each.startsWith(word)));
}

function heapNow(): number {
  gc!();
  gc!();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** CPU time of this process in µs: other work on a shared machine moves it far less than the wall clock. */
function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

function timeQuery(run: () => number, rounds: number): { micros: number; count: number } {
  let count = 0;
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = cpuMicros();
    count = run();
    times.push(cpuMicros() - started);
  }
  return { micros: times.sort((a, b) => a - b)[Math.floor(rounds / 2)]!, count };
}

const rows: string[] = [];
const structures: [string, () => unknown, (index: unknown, q: string) => number, number][] = [
  ['word-prefix index', () => {
    const index = new SearchIndex(stored, STORE_EVENT_FORMS);
    index.buildSome(stored.length, () => true);
    return index;
  }, (index, q) => {
    const found = (index as SearchIndex).match(foldQuery(q));
    return 'slots' in found ? found.slots.length : found.bitmap.count;
  }, 101],
  ['anchored trigrams', () => new TrigramIndex(stored), (index, q) => (index as TrigramIndex).count(q), 5],
  ['no index (scan)', () => null, (_, q) => stored.filter((event) => matches(event, foldQuery(q))).length, 1],
];
for (const [name, build, query, rounds] of structures) {
  const before = heapNow();
  const started = cpuMicros();
  const index = build();
  const buildMs = (cpuMicros() - started) / 1000;
  const bytes = heapNow() - before;
  const times = queries.map(([, q]) => timeQuery(() => query(index, q), rounds));
  rows.push(`| ${name} | ${Math.round(buildMs)} | ${Math.round(bytes / events)} | ${times.map((t) => `${t.micros < 100 ? t.micros.toFixed(1) : Math.round(t.micros)} (${t.count})`).join(' | ')} |`);
  process.stderr.write(`${name} done\n`);
  void index;
}
process.stdout.write(`Search structures on ${events.toLocaleString('en-US')} Zipf events (${process.version}): build, heap, and the match set of each query (median CPU µs, matches); CPU time of one process\n\n`);
process.stdout.write(`| structure | build CPU ms | heap B/event | ${queries.map(([label]) => label).join(' | ')} |\n|---|--:|--:|${queries.map(() => '--:').join('|')}|\n${rows.join('\n')}\n`);
