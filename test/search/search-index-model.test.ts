// The search index against a brute-force scan: 3,000 seeded random events, 600 random queries with filters, every
// page compared; again after random updates and deletes, and again after a restart that rebuilds the index from the log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type Category, type EventRecord, type StoredEvent } from '../../src/events/event.js';
import { searchWords, queryWords } from '../../src/search/search-words.js';
import { compareEvents } from '../../src/store/views/event-index.js';
import type { EventStore, ListQuery } from '../../src/store/event-store.js';
import { openFileStore } from '../../src/store/file/open-file-store.js';
import { mulberry32 } from '../helpers/random.js';
import { eventId, sampleRecord, tempDir, TestFileSystem } from '../store/helpers.js';

const SEED = Number(process.env['SEARCH_MODEL_SEED'] ?? Date.now() % 1_000_000);
const FIRST_DAY = Date.UTC(2026, 8, 1);
const DAY = 86_400_000;
const DAYS = 60;
/** Words the events are made of: a few very common (bitmaps), accents, ß, Turkish, CJK, digits, emoji between words. */
const HEAD = ['seminar', 'lab', 'Chemistry', 'yoga', 'Straße', 'İstanbul', 'café', 'Łódź', '東京大学', '2026', 'résumé', 'ISTANBUL'];

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

function makeVocabulary(random: Random): string[] {
  const syllables = ['ka', 'lo', 'mi', 'chem', 'ne', 'sta', 'ré', 'bü', 'ço', 'ß', 'x', 'qu', 'é', '1', '42', '7'];
  const words = [...HEAD];
  while (words.length < 400) {
    let word = '';
    for (let n = 1 + Math.floor(random() * 4); n > 0; n--) word += pick(random, syllables);
    words.push(random() < 0.2 ? word.toUpperCase() : word);
  }
  return words;
}

/** Zipf-like: early words of the vocabulary are far more common. */
function text(random: Random, vocabulary: readonly string[], words: number): string {
  const parts: string[] = [];
  for (let n = 0; n < words; n++) parts.push(vocabulary[Math.floor(vocabulary.length * random() ** 3)]!);
  return parts.join(pick(random, [' ', ', ', ' — ', '🎉', '-', ' / ']));
}

function randomRecord(random: Random, vocabulary: readonly string[], n: number): EventRecord {
  const start = FIRST_DAY + Math.floor(random() * DAYS * 24) * 3_600_000 + (random() < 0.1 ? 0 : 1_800_000);
  return sampleRecord(n, {
    title: text(random, vocabulary, 1 + Math.floor(random() * 4)),
    description: random() < 0.3 ? '' : text(random, vocabulary, Math.floor(random() * 12)),
    location: text(random, vocabulary, 1 + Math.floor(random() * 2)),
    organizer: { name: text(random, vocabulary, 1 + Math.floor(random() * 2)), email: 'org@campus.example' },
    category: pick(random, CATEGORIES),
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + (1 + Math.floor(random() * 30)) * 3_600_000).toISOString(),
  });
}

function randomQuery(random: Random, vocabulary: readonly string[]): { q: string; query: ListQuery } {
  const parts: string[] = [];
  for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
    const word = random() < 0.85 ? vocabulary[Math.floor(vocabulary.length * random() ** 2)]! : `zz${Math.floor(random() * 99)}`;
    const cut = 1 + Math.floor(random() * word.length);
    parts.push(random() < 0.2 ? word.slice(0, cut).toUpperCase() : word.slice(0, cut));
  }
  const q = parts.join(' ');
  const query: ListQuery = { words: queryWords(q), limit: pick(random, [1, 7, 20, 50, 100]), page: 1 };
  const categories = CATEGORIES.filter(() => random() < 0.4);
  if (categories.length === 1 && random() < 0.5) query.category = categories[0];
  else if (categories.length > 0) query.categories = categories;
  // Day edges mostly (as the campus zone gives them), any millisecond sometimes; windows cross months.
  const edge = (): number => (random() < 0.7 ? 0 : Math.floor(random() * DAY));
  if (random() < 0.4) query.startFromMs = FIRST_DAY + Math.floor(random() * DAYS) * DAY + edge();
  if (random() < 0.4) query.endByMs = (query.startFromMs ?? FIRST_DAY) + Math.floor(random() * DAYS) * DAY + edge();
  return { q, query };
}

/** The scan the index must agree with: every event, its own words, filtered and sorted. */
function bruteForce(records: Map<string, { record: EventRecord; words: string[]; stored: StoredEvent }>, query: ListQuery): string[] {
  const categories: readonly Category[] | undefined = query.categories ?? (query.category === undefined ? undefined : [query.category]);
  return [...records.values()]
    .filter(({ stored, words }) =>
      (categories === undefined || categories.includes(stored.category)) &&
      (query.startFromMs === undefined || stored.startMs >= query.startFromMs) &&
      (query.endByMs === undefined || stored.endMs <= query.endByMs) &&
      (query.words ?? []).every((word) => words.some((own) => own.startsWith(word))))
    .map(({ stored }) => stored)
    .sort(compareEvents)
    .map((stored) => stored.id);
}

function wordsOf(record: EventRecord): string[] {
  return [record.title, record.description, record.location, record.organizer.name].flatMap(searchWords);
}

async function compareQueries(store: EventStore, model: Map<string, { record: EventRecord; words: string[]; stored: StoredEvent }>, random: Random, vocabulary: readonly string[], phase: string, queries = 600): Promise<void> {
  for (let n = 0; n < queries; n++) {
    const { q, query } = randomQuery(random, vocabulary);
    const expected = bruteForce(model, query);
    // Every page is compared; a large answer gets a larger page so that is at most 40 pages.
    query.limit = Math.min(100, Math.max(query.limit, Math.ceil(expected.length / 40)));
    const where = `seed ${SEED}, ${phase}, query ${n}: q=${JSON.stringify(q)} ${JSON.stringify({ ...query, words: undefined })}`;
    const pages = Math.ceil(expected.length / query.limit) + 1;
    for (let page = 1; page <= pages; page++) {
      const answer = store.list({ ...query, page });
      assert.equal(answer.total, expected.length, `${where}, page ${page}: total`);
      assert.deepEqual(answer.events.map((stored) => stored.id), expected.slice((page - 1) * query.limit, page * query.limit), `${where}, page ${page}: ids`);
    }
  }
}

test(`the search index answers 600 random queries a phase as a brute-force scan does, on every page, after updates and deletes, and after a restart (seed ${SEED}; SEARCH_MODEL_SEED replays it)`, async (t) => {
  t.diagnostic(`seed ${SEED}`);
  const random = mulberry32(SEED);
  const vocabulary = makeVocabulary(random);
  const dataDir = tempDir(t);
  const fs = new TestFileSystem({ noSync: true });
  let store = await openFileStore({ dataDir, fs, sync: false });
  const model = new Map<string, { record: EventRecord; words: string[]; stored: StoredEvent }>();
  // The model changes when a write is queued (writes to one id apply in queue order); its stored states are read once they settle.
  const put = (record: EventRecord): Promise<unknown> => {
    model.set(record.id, { record, words: wordsOf(record), stored: undefined as unknown as StoredEvent });
    return store.write(record.id, () => record);
  };
  const settle = (): void => {
    for (const entry of model.values()) entry.stored = store.get(entry.record.id) ?? assert.fail(`seed ${SEED}: ${entry.record.id} is missing from the store`);
    assert.equal(store.size, model.size, `seed ${SEED}: live events`);
  };

  await Promise.all(Array.from({ length: 3000 }, (_, i) => put(randomRecord(random, vocabulary, i + 1))));
  settle();
  await compareQueries(store, model, random, vocabulary, 'after 3,000 creates');

  await randomWrites(1500);
  settle();
  await compareQueries(store, model, random, vocabulary, 'after 1,500 random updates and deletes');

  await store.close();
  const reopened = await openFileStore({ dataDir, fs, sync: false });
  store = reopened;
  t.after(() => store.close());
  // Until the index is built after the start, q is answered by a scan (the same answers) and lists without it work;
  // writes while it is built are indexed at once, and the build passes over the states they replaced.
  settle();
  assert.equal(reopened.searchReady, false, 'the index is still being built');
  // compareQueries runs to its end without a pause: the build cannot finish in the middle of it.
  const scanned = compareQueries(store, model, random, vocabulary, 'while the index is built after a restart: a scan', 40);
  assert.equal(reopened.searchReady, false, 'the queries were answered before the index was built');
  await scanned;
  assert.equal(store.list({ categories: ['academic', 'social'], limit: 10, page: 1 }).total, [...model.values()].filter(({ record }) => record.category === 'academic' || record.category === 'social').length);
  await randomWrites(300);
  await reopened.whenSearchReady();
  settle();
  await compareQueries(store, model, random, vocabulary, 'after a restart and writes during the build, with the rebuilt index');

  /** `count` random writes at once: deletes, updates that keep or change the text, and creates of deleted ids. */
  async function randomWrites(count: number): Promise<void> {
    const writes: Promise<unknown>[] = [];
    for (let n = 0; n < count; n++) {
      const id = eventId(1 + Math.floor(random() * 3000));
      const known = model.get(id);
      if (known !== undefined && random() < 0.3) {
        model.delete(id);
        writes.push(store.write(id, () => null));
      } else {
        // An update may keep the text (only the category or times move) or change it; a deleted id comes back.
        const fresh = randomRecord(random, vocabulary, Number(id.slice(4)));
        const record = known !== undefined && random() < 0.3 ? { ...known.record, category: fresh.category, start_time: fresh.start_time, end_time: fresh.end_time } : fresh;
        writes.push(put(record));
      }
    }
    await Promise.all(writes);
  }
});
