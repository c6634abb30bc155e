// Lists with several categories or words (filtered-list, window-count) against a plain filter, sort and count of every
// live event: seeded random events crowded into a few months (so month and word postings become bitmaps) and spread
// thin over others (arrays, single slots), random updates and deletes, then random queries with words, categories
// (repeated ones too) and date bounds at month edges, day edges and any millisecond; pages inside and past the end.
// Also without a search index (words scanned) and while it is still being built. FILTERED_SEED=n replays a run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type Category, type StoredEvent } from '../../../src/events/event.js';
import { toStored } from '../../../src/store/views/served-event.js';
import { queryWords, searchWords } from '../../../src/search/search-words.js';
import type { ListQuery } from '../../../src/store/event-store.js';
import { EventIndex } from '../../../src/store/views/event-index.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, sampleRecord } from '../helpers.js';
import { plainList } from './plain-list.js';

const SEED = Number(process.env['FILTERED_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Months of 2027 and how many events start in each: two crowded (bitmap postings), some thin, one with a single event. */
const MONTHS: [number, number][] = [[0, 700], [1, 20], [2, 600], [3, 1], [5, 60], [6, 3]];
/** Words: `common` in most titles, `often` in many, the rest rare; `xenon` and `yodel` in a few dozen events at most. */
const RARE = ['kappa', 'kilo', 'lima', 'mango', 'nectar', 'oboe', 'papa', 'quartz', 'romeo', 'sierra', 'tango', 'umbra'];

type Random = () => number;
type Entry = { stored: StoredEvent; words: string[] };

function randomEvent(random: Random, n: number, month: number): { stored: StoredEvent; words: string[] } {
  const monthStart = Date.UTC(2027, month, 1);
  const monthDays = (Date.UTC(2027, month + 1, 1) - monthStart) / DAY;
  // Starts on the hour mostly, a few at the very first or last millisecond of the month.
  const roll = random();
  const start = roll < 0.03 ? monthStart : roll < 0.06 ? Date.UTC(2027, month + 1, 1) - 1 : monthStart + Math.floor(random() * monthDays * 24) * HOUR;
  const words: string[] = [];
  if (random() < 0.6) words.push('common');
  if (random() < 0.2) words.push('often');
  for (let k = Math.floor(random() * 3); k > 0; k--) words.push(RARE[Math.floor(random() * RARE.length)]!);
  // A word in a few events only: the index answers it with a list of slots, not a bitmap.
  if (random() < 0.02) words.push(random() < 0.5 ? 'xenon' : 'yodel');
  // Most events last hours; some days, so they end after a date bound their start is inside.
  const length = random() < 0.8 ? (1 + Math.floor(random() * 5)) * HOUR : (1 + Math.floor(random() * 20)) * DAY;
  const category = random() < 0.5 ? 'academic' : CATEGORIES[Math.floor(random() * CATEGORIES.length)]!;
  const record = sampleRecord(n, { title: words.join(' ') || 'untitled', category, start_time: new Date(start).toISOString(), end_time: new Date(start + length).toISOString() });
  return { stored: toStored(record, n), words: [record.title, record.description, record.location, record.organizer.name].flatMap(searchWords) };
}

/** The live events: MONTHS' counts, then random updates (new times, words, category) and deletes. */
function randomEvents(random: Random): Map<string, Entry> {
  const live = new Map<string, Entry>();
  let n = 0;
  for (const [month, count] of MONTHS) for (let k = 0; k < count; k++) live.set(eventId(++n), randomEvent(random, n, month));
  for (let k = 0; k < 300; k++) {
    const id = eventId(1 + Math.floor(random() * n));
    if (random() < 0.5) live.delete(id);
    else live.set(id, randomEvent(random, Number(id.slice(4)), MONTHS[Math.floor(random() * MONTHS.length)]![0]));
  }
  return live;
}

function randomBound(random: Random): number | undefined {
  const roll = random();
  if (roll < 0.35) return undefined;
  const month = Math.floor(random() * 8) - 1;
  const edge = Date.UTC(2027, month, 1);
  if (roll < 0.55) return edge + (random() < 0.5 ? 0 : -1);
  if (roll < 0.8) return edge + Math.floor(random() * 31) * DAY;
  return edge + Math.floor(random() * 31 * DAY);
}

function randomQuery(random: Random): ListQuery {
  const query: ListQuery = { limit: [1, 3, 20, 100, 5000][Math.floor(random() * 5)]!, page: 1 };
  const roll = random();
  if (roll < 0.75) {
    const words = [];
    for (let k = 1 + Math.floor(random() * 2); k > 0; k--) {
      const roll = random();
      const word = roll < 0.3 ? 'common' : roll < 0.5 ? 'often' : roll < 0.65 ? (random() < 0.5 ? 'xenon' : 'yodel') : RARE[Math.floor(random() * RARE.length)]!;
      words.push(word.slice(0, 1 + Math.floor(random() * word.length)));
    }
    query.words = queryWords(words.join(' '));
  }
  const categories: Category[] = CATEGORIES.filter(() => random() < 0.4);
  if (random() < 0.15) categories.push(...categories); // a category named twice counts once
  if (categories.length === 1 && random() < 0.5) query.category = categories[0];
  else if (categories.length > 0 || query.words === undefined) query.categories = categories;
  if (random() < 0.2) query.category = 'cultural'; // ignored when categories are given
  query.startFromMs = randomBound(random);
  const end = randomBound(random);
  query.endByMs = end === undefined || query.startFromMs === undefined || random() < 0.2 ? end : Math.max(end, query.startFromMs + Math.floor(random() * 40 * DAY));
  return query;
}

function compare(index: EventIndex, live: Map<string, Entry>, random: Random, queries: number, phase: string, words = true): void {
  for (let n = 0; n < queries; n++) {
    const query = randomQuery(random);
    if (!words) delete query.words;
    const total = plainList(live.values(), query).total;
    const lastPage = Math.max(1, Math.ceil(total / query.limit));
    for (const page of new Set([1, 1 + Math.floor(random() * lastPage), lastPage, lastPage + 1])) {
      const paged = { ...query, page };
      const expected = plainList(live.values(), paged);
      const answer = index.list(paged);
      assert.deepEqual({ ids: answer.events.map((stored) => stored.id), total: answer.total }, expected, `seed ${SEED}, ${phase}, query ${n}: ${JSON.stringify(paged)}`);
    }
  }
}

test(`lists with words, several categories and dates answer as a plain filter of every event does (FILTERED_SEED=${SEED})`, (t) => {
  t.diagnostic(`seed ${SEED}`);
  const random = mulberry32(SEED);
  const live = randomEvents(random);
  const index = new EventIndex();
  for (const { stored } of live.values()) index.put(stored);
  compare(index, live, random, 400, 'indexed');
  // Without a search index, words are scanned along the window.
  const scanned = new EventIndex(new Map([...live].map(([id, { stored }]) => [id, stored])), { searchIndex: false });
  compare(scanned, live, random, 80, 'scanned');
});

test(`while the search index is built after a start, q is answered by a scan, as every list is (FILTERED_SEED=${SEED})`, async () => {
  const random = mulberry32(SEED + 3);
  const live = randomEvents(random);
  const index = new EventIndex(new Map([...live].map(([id, { stored }]) => [id, stored])));
  compare(index, live, random, 80, 'building');
  await index.buildSearchIndex();
  compare(index, live, random, 60, 'built');
});
