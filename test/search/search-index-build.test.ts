// The search index's bulk build at start-up, taken in steps with writes between them, against a brute-force scan:
// the same matches for random queries once built, and after more writes that move packed terms to ordinary postings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredEvent } from '../../src/events/event.js';
import { queryWords } from '../../src/search/search-words.js';
import { hasSearchWords } from '../../src/search/event-search-text.js';
import { monthOf, SearchIndex, type SlotSet } from '../../src/search/search-index.js';
import { mulberry32 } from '../helpers/random.js';
import { randomSearchEvent } from './search-index-events.js';
import { STORE_EVENT_FORMS } from '../../src/store/views/store-event-forms.js';

const SEED = Number(process.env['SEARCH_BUILD_SEED'] ?? Date.now() % 1_000_000);
const WORDS = ['seminar', 'lab', 'Chemistry', 'chemie', 'yoga', 'Straße', 'café', 'Łódź', '東京', 'run', 'running', 'rune', '2026', 'ka', 'kalo', 'İz'];

type Random = () => number;

const randomEvent = (random: Random, n: number, seq: number): StoredEvent => randomSearchEvent(random, n, seq, WORDS);

const idsOf = (index: SearchIndex, found: SlotSet): string[] => {
  const slots: number[] = 'slots' in found ? found.slots : [];
  if ('bitmap' in found) found.bitmap.forEach((slot) => slots.push(slot));
  return slots.map((slot) => index.eventAt(slot)!.id).sort();
};

function assertSameAsScan(index: SearchIndex, live: Map<string, StoredEvent>, random: Random, when: string): void {
  for (let n = 0; n < 200; n++) {
    const word = WORDS[Math.floor(random() * WORDS.length)]!;
    const q = `${word.slice(0, 1 + Math.floor(random() * word.length))}${random() < 0.3 ? ` ${WORDS[Math.floor(random() * WORDS.length)]!.slice(0, 2)}` : ''}`;
    const words = queryWords(q);
    const expected = [...live.values()].filter((stored) => hasSearchWords(stored, words)).map((stored) => stored.id).sort();
    assert.deepEqual(idsOf(index, index.match(words)), expected, `seed ${SEED}, ${when}: q=${q}`);
  }
}

test(`SearchIndex built in steps with writes between them matches a scan, then again after more writes (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const live = new Map<string, StoredEvent>();
  let seq = 0;
  for (let n = 0; n < 1500; n++) {
    const stored = randomEvent(random, n, ++seq);
    live.set(stored.id, stored);
  }
  const index = new SearchIndex(live.values(), STORE_EVENT_FORMS);
  let next = 1500;
  const write = (): void => {
    const ids = [...live.keys()];
    const roll = random();
    if (roll < 0.4) {
      const stored = randomEvent(random, next++, ++seq);
      index.put(stored, undefined);
      live.set(stored.id, stored);
    } else if (roll < 0.8) {
      const id = ids[Math.floor(random() * ids.length)]!;
      const previous = live.get(id)!;
      const stored = randomEvent(random, Number(id.slice(4)), ++seq);
      index.put(stored, previous);
      live.set(id, stored);
    } else {
      const id = ids[Math.floor(random() * ids.length)]!;
      index.delete(live.get(id)!);
      live.delete(id);
    }
  };
  while (!index.buildSome(100, (stored) => live.get(stored.id) === stored)) for (let n = Math.floor(random() * 20); n > 0; n--) write();
  assert.ok(index.ready);
  assertSameAsScan(index, live, random, 'just built');
  for (let n = 0; n < 1500; n++) write();
  assertSameAsScan(index, live, random, 'after 1,500 more writes');
});

test('SearchIndex.buildSome() indexes a load of one step in that step (a small campus is indexed before it listens)', () => {
  const random = mulberry32(SEED);
  const events = Array.from({ length: 500 }, (_, n) => randomEvent(random, n, n + 1));
  const index = new SearchIndex(events, STORE_EVENT_FORMS);
  assert.equal(index.buildSome(500, () => true), true);
  assert.ok(index.ready);
  assert.equal(idsOf(index, index.match(queryWords('seminar'))).length, events.filter((stored) => hasSearchWords(stored, ['seminar'])).length);
});

test(`monthOf() is the UTC year and month Date gives, from 1970 to 9999 (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const edges = [0, Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(2026, 2, 1), Date.UTC(2100, 1, 28), Date.UTC(9999, 11, 31, 23, 59, 59, 999)];
  for (let n = 0; n < 20_000; n++) edges.push(Math.floor(random() * Date.UTC(10000, 0, 1)));
  for (const ms of edges) {
    const date = new Date(ms);
    assert.equal(monthOf(ms), date.getUTCFullYear() * 12 + date.getUTCMonth(), `seed ${SEED}: ${date.toISOString()}`);
  }
});
