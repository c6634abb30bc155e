// The file store's start with the search index built from the log in a worker thread: the same answers to `q` as a
// start that builds it on the main thread, when the worker fails, and with writes while it builds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { queryWords } from '../../../src/search/search-words.js';
import type { FileStore } from '../../../src/store/file/file-store.js';
import { type FileStoreOptions, openFileStore } from '../../../src/store/file/open-file-store.js';
import { mulberry32 } from '../../helpers/random.js';
import { sampleRecord, tempDir } from '../helpers.js';
import { registrationId } from '../views/roster-helpers.js';

const SEED = Number(process.env['SEARCH_WORKER_SEED'] ?? Date.now() % 1_000_000);
const WORDS = ['seminar', 'lab', 'Chemistry', 'yoga', 'Straße', 'café', '東京', 'run', 'running', '2026', 'ka', 'kalo'];
const QUERIES = ['s', 'sem', 'la', 'chem', 'yo', 'strasse', 'cafe', '京', 'run', 'runn', '20', 'ka', 'kal', 'ka run', 'z'];

type Random = () => number;

const text = (random: Random, count: number): string => Array.from({ length: count }, () => WORDS[Math.floor(WORDS.length * random() ** 2)]!).join(' ');
const record = (random: Random, n: number) => sampleRecord(n, { title: text(random, 2), description: text(random, 4), location: text(random, 1), capacity: 2 });

/** What a log line said about the search index's build. */
interface Logged {
  by?: string;
}

async function open(dir: string, logged: Logged, options: Partial<FileStoreOptions>): Promise<FileStore> {
  const logger = {
    info(message: string, fields?: Record<string, unknown>) {
      if (message === 'search index built') logged.by = String(fields?.['by']);
    },
    warn() {},
  };
  return openFileStore({ dataDir: dir, sync: false, logger, ...options });
}

/** Each query's total and ids, once the index is built. */
async function answers(store: FileStore): Promise<string[]> {
  await store.whenSearchReady();
  return QUERIES.map((q) => {
    const { events, total } = store.list({ words: queryWords(q), page: 1, limit: 1000 });
    return `${q}: ${total} ${events.map((stored) => stored.id).join(',')}`;
  });
}

/** A log of 250 events, updates, deletes, and registrations (which move an event in replay's order). */
async function writeLog(dir: string, random: Random): Promise<void> {
  const store = await open(dir, {}, { searchWorker: false });
  for (let n = 1; n <= 250; n++) await store.write(`evt_${String(n).padStart(16, '0')}`, () => record(random, n));
  for (let k = 0; k < 100; k++) {
    const n = 1 + Math.floor(random() * 250);
    const id = `evt_${String(n).padStart(16, '0')}`;
    const roll = random();
    const next = record(random, n);
    if (roll < 0.55) await store.write(id, (current) => (roll < 0.4 || current === undefined ? next : null));
    else {
      // A confirmed registration moves its event to the registration's seq in replay's order.
      if (store.get(id) === undefined) continue;
      await store.changeRegistrations(id, () => ({ op: 'register', registration: { id: registrationId(k), name: 'Ada', email: `ada${k}@campus.example` } }));
    }
  }
  await store.close();
}

test(`a start with the search worker answers q as a start that builds the index on the main thread (seed ${SEED})`, async (t) => {
  const dir = tempDir(t);
  await writeLog(dir, mulberry32(SEED));
  const byMain: Logged = {};
  const main = await open(dir, byMain, { searchWorker: false });
  const expected = await answers(main);
  await main.close();
  assert.match(byMain.by ?? '', /main thread/);
  assert.ok(expected.some((line) => !line.includes(': 0 ')), 'some queries match');

  const byWorker: Logged = {};
  const worker = await open(dir, byWorker, { searchWorker: { minLogBytes: 0 } });
  assert.deepEqual(await answers(worker), expected, `seed ${SEED}`);
  await worker.close();
  assert.match(byWorker.by ?? '', /worker thread/, 'the worker built the index');
});

test(`a worker that fails leaves the build to the main thread, with the same answers (seed ${SEED})`, async (t) => {
  const dir = tempDir(t);
  await writeLog(dir, mulberry32(SEED));
  const main = await open(dir, {}, { searchWorker: false });
  const expected = await answers(main);
  await main.close();

  const logged: Logged = {};
  const store = await open(dir, logged, { searchWorker: { minLogBytes: 0, url: new URL('./no-such-search-worker.js', import.meta.url) } });
  assert.deepEqual(await answers(store), expected, `seed ${SEED}`);
  await store.close();
  assert.match(logged.by ?? '', /main thread \(the worker failed/);
});

test(`writes while the worker builds are in the index once it is built (seed ${SEED})`, async (t) => {
  const dir = tempDir(t);
  const random = mulberry32(SEED);
  await writeLog(dir, random);
  const logged: Logged = {};
  const store = await open(dir, logged, { searchWorker: { minLogBytes: 0 } });
  // Issued before the build is done: creates, updates and deletes of events the worker is reading.
  const writes: Promise<unknown>[] = [];
  for (let k = 0; k < 60; k++) {
    const n = 1 + Math.floor(random() * 300);
    const id = `evt_${String(n).padStart(16, '0')}`;
    const remove = random() < 0.25;
    const next = record(random, n);
    writes.push(store.write(id, (current) => (remove && current !== undefined ? null : next)));
  }
  await Promise.all(writes);
  const during = await answers(store);
  await store.close();
  assert.match(logged.by ?? '', /worker thread/, 'the worker built the index');

  const main = await open(dir, {}, { searchWorker: false });
  assert.deepEqual(during, await answers(main), `seed ${SEED}: the index after the writes, against one built from the log that holds them`);
  await main.close();
});
