// The search index built from the log's bytes (what the start-up worker does), adopted by the main thread: the same
// answers as an index built on the main thread and as a scan, with updates, deletes, atomic groups and events that
// replay moved (a registration after their put) in the log, and writes before, during and after the adoption.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type StoredEvent } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { queryWords } from '../../src/search/search-words.js';
import { encodeDelete, encodeGroup, encodePut } from '../../src/store/records/encode-record.js';
import { LogTermCollector } from '../../src/search/search-log-terms.js';
import { hasSearchWords } from '../../src/search/event-search-text.js';
import type { BuiltSearch } from '../../src/search/search-built.js';
import { SearchIndex, type SlotSet } from '../../src/search/search-index.js';
import { mulberry32 } from '../helpers/random.js';
import { sampleRecord } from '../store/helpers.js';
import { STORE_EVENT_FORMS } from '../../src/store/views/store-event-forms.js';

const SEED = Number(process.env['SEARCH_LOG_SEED'] ?? Date.now() % 1_000_000);
/** Words with accents, a fold of several letters, CJK, an astral emoji, JSON escapes (quote, newline, backslash). */
const WORDS = ['seminar', 'lab', 'Chemistry', 'chemie', 'yoga', 'Straße', 'café', 'Łódź', '東京', 'run', 'running', 'ré', 'ü', '2026', 'ka', 'İz', '🎉party', '"quoted"', 'line\nbreak', 'back\\slash', 'ﬁsh'];

type Random = () => number;

function text(random: Random, count: number): string {
  return Array.from({ length: count }, () => WORDS[Math.floor(WORDS.length * random() ** 2)]! + (random() < 0.3 ? String(Math.floor(random() * 40)) : '')).join(' ');
}

function randomRecord(random: Random, n: number) {
  const start = Date.UTC(2026, Math.floor(random() * 12), 1 + Math.floor(random() * 28));
  return sampleRecord(n, {
    title: text(random, 1 + Math.floor(random() * 3)),
    description: random() < 0.3 ? '' : text(random, Math.floor(random() * 8)),
    location: text(random, 1),
    organizer: { name: text(random, 1), email: 'org@campus.example' },
    category: CATEGORIES[Math.floor(random() * CATEGORIES.length)]!,
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + 3_600_000).toISOString(),
  });
}

/** A log of random puts, updates, deletes and groups; the live events as replay orders them; the built search of it. */
function randomLog(random: Random, events: number): { pending: StoredEvent[]; built: BuiltSearch } {
  const live = new Map<string, StoredEvent>();
  const lines: string[] = [];
  let seq = 0;
  const put = (n: number): string => {
    const record = randomRecord(random, n);
    const stored = toStored(record, ++seq);
    live.delete(stored.id);
    live.set(stored.id, stored);
    return encodePut(seq, record);
  };
  for (let n = 0; n < events; n++) {
    const roll = random();
    if (roll < 0.1 && n > 0) lines.push(put(Math.floor(random() * n)));
    else if (roll < 0.15 && n > 0) {
      const id = [...live.keys()][Math.floor(random() * live.size)]!;
      live.delete(id);
      lines.push(encodeDelete(++seq, id));
    } else if (roll < 0.2) lines.push(encodeGroup([put(n), put(events + n)]));
    else lines.push(put(n));
  }
  const collector = new LogTermCollector();
  const bytes = Buffer.from(lines.join(''), 'utf8');
  let start = 0;
  for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
    collector.line(bytes, start, newline);
    start = newline + 1;
  }
  const built = collector.finish(start);
  // A registration after an event's put moves it to that later seq in replay's order (log-replay.ts, recount).
  const pending = [...live.values()];
  for (let moved = Math.floor(random() * 20); moved > 0 && pending.length > 0; moved--) {
    const [stored] = pending.splice(Math.floor(random() * pending.length), 1);
    pending.push(toStored(JSON.parse(stored!.json), ++seq));
  }
  return { pending, built };
}

const idsOf = (index: SearchIndex, found: SlotSet): string[] => {
  const slots: number[] = 'slots' in found ? found.slots : [];
  if ('bitmap' in found) found.bitmap.forEach((slot) => slots.push(slot));
  return slots.map((slot) => index.eventAt(slot)!.id).sort();
};

function assertSameAnswers(indexes: SearchIndex[], live: Map<string, StoredEvent>, random: Random, when: string): void {
  for (let n = 0; n < 80; n++) {
    const word = WORDS[Math.floor(random() * WORDS.length)]!;
    const q = `${word.slice(0, 1 + Math.floor(random() * word.length))}${random() < 0.3 ? ` ${WORDS[Math.floor(random() * WORDS.length)]!.slice(0, 2)}` : ''}`;
    const words = queryWords(q);
    if (words.length === 0) continue;
    const expected = [...live.values()].filter((stored) => hasSearchWords(stored, words)).map((stored) => stored.id).sort();
    for (const [at, index] of indexes.entries()) assert.deepEqual(idsOf(index, index.match(words)), expected, `seed ${SEED}, ${when}, index ${at}: q=${JSON.stringify(q)}`);
  }
}

test(`an index adopted from the log's build answers as one built on the main thread and as a scan, with writes throughout (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const { pending, built } = randomLog(random, 600);
  const live = new Map(pending.map((stored) => [stored.id, stored]));
  const adopted = new SearchIndex(pending, STORE_EVENT_FORMS);
  const mainThread = new SearchIndex(pending, STORE_EVENT_FORMS);
  const indexes = [adopted, mainThread];
  let next = 10_000;
  let seq = 1_000_000;
  const write = (): void => {
    const ids = [...live.keys()];
    const roll = random();
    if (roll < 0.4 || ids.length === 0) {
      const stored = toStored(randomRecord(random, next++), ++seq);
      for (const index of indexes) index.put(stored, undefined);
      live.set(stored.id, stored);
    } else if (roll < 0.8) {
      const id = ids[Math.floor(random() * ids.length)]!;
      const stored = toStored({ ...randomRecord(random, 0), id }, ++seq);
      for (const index of indexes) index.put(stored, live.get(id));
      live.set(id, stored);
    } else {
      const id = ids[Math.floor(random() * ids.length)]!;
      for (const index of indexes) index.delete(live.get(id)!);
      live.delete(id);
    }
  };
  const isCurrent = (stored: StoredEvent): boolean => live.get(stored.id) === stored;
  const writes = (): void => {
    for (let n = Math.floor(random() * 10); n > 0; n--) write();
  };
  // Writes before any event is placed, between placing steps, then the adoption at a random point.
  writes();
  const adoptAfter = Math.floor(random() * 4);
  for (let step = 0; step < adoptAfter && !adopted.placeSome(1 + Math.floor(random() * 400), isCurrent); step++) writes();
  writes();
  assert.equal(adopted.adoptBuilt(built), undefined, `seed ${SEED}: the build holds the replayed events`);
  while (!adopted.buildSome(100, isCurrent)) writes();
  while (!mainThread.buildSome(100, isCurrent)) writes();
  assertSameAnswers(indexes, live, random, 'just built');
  for (let n = 0; n < 300; n++) write();
  assertSameAnswers(indexes, live, random, 'after 300 more writes');
});

test(`adoptBuilt() refuses a build of other events, and the main thread then builds the index itself (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const { pending, built } = randomLog(random, 300);
  const live = new Map(pending.map((stored) => [stored.id, stored]));
  const isCurrent = (stored: StoredEvent): boolean => live.get(stored.id) === stored;

  const fewer = new SearchIndex(pending.slice(1), STORE_EVENT_FORMS);
  assert.match(fewer.adoptBuilt(built) ?? '', /holds \d+ events, the replay \d+/);
  const newer = pending.map((stored, at) => (at === 7 ? toStored(JSON.parse(stored.json), 0) : stored));
  const older = new SearchIndex(newer, STORE_EVENT_FORMS);
  assert.match(older.adoptBuilt(built) ?? '', /newer than its 0/, 'an event the build read from a later put than the replay');
  const renamed = pending.map((stored, at) => (at === 3 ? toStored({ ...JSON.parse(stored.json), id: 'evt_ZZZZZZZZZZZZZZZZ' }, stored.seq) : stored));
  assert.match(new SearchIndex(renamed, STORE_EVENT_FORMS).adoptBuilt(built) ?? '', /evt_ZZZZZZZZZZZZZZZZ is not in the build/);

  const index = new SearchIndex(pending, STORE_EVENT_FORMS);
  assert.equal(index.buildSome(50, isCurrent), false);
  assert.equal(index.adoptBuilt(built), 'the build had begun', 'words already collected here are not mixed with a build');
  while (!index.buildSome(50, isCurrent));
  assertSameAnswers([index], live, random, 'built on the main thread after a refusal');
});
