// WordMatcher against brute force: a slot matches when each query word starts some word of its event's searched
// text. Seeded random campuses large enough for every path (few slots, bitmaps, checks by posting, by text and by
// union: a prefix of hundreds of words, 'tag'), with events removed and added between queries so that stale cached unions would show.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type StoredEvent } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { searchWords } from '../../src/search/search-words.js';
import { searchTextOf } from '../../src/search/event-search-text.js';
import { type SlotSet, WordMatcher } from '../../src/search/search-match.js';
import { PostingTable } from '../../src/search/search-posting-table.js';
import { postingAdd, postingRemove } from '../../src/search/search-postings.js';
import { SearchTerms } from '../../src/search/search-terms.js';
import { mulberry32 } from '../helpers/random.js';
import { sampleRecord } from '../store/helpers.js';
import { slotList } from './search-match-slots.js';

const SEED = Number(process.env['SEARCH_MATCH_SEED'] ?? Date.now() % 1_000_000);
type Random = () => number;
// A few very common words (in most events: bitmaps), some rare ones, and words sharing prefixes.
const COMMON = ['seminar', 'lab', 'session'];
const RARE = ['chemistry', 'chemie', 'chess', 'yoga', 'run', 'running', 'rune', 'café', 'straße', '2026', 'ka', 'kalo', 'kale', 'zebra'];


class Campus {
  readonly terms = new SearchTerms();
  readonly postings = new PostingTable();
  readonly events: (StoredEvent | undefined)[] = [];
  postingsVersion = 0;
  constructor(readonly capacity: number) {}

  eventAt(slot: number): StoredEvent | undefined {
    return this.events[slot];
  }

  #wordsOf(stored: StoredEvent): Set<string> {
    return new Set(searchTextOf(stored).flatMap((text) => searchWords(text)));
  }

  put(random: Random, slot: number, extra = ''): void {
    this.remove(slot);
    const pick = (): string => (random() < 0.5 ? COMMON[Math.floor(random() * COMMON.length)]! : random() < 0.3 && this.capacity > 1000 ? `tag${Math.floor(random() * 300)}` : RARE[Math.floor(random() * RARE.length)]!);
    const title = `${extra} ${Array.from({ length: 1 + Math.floor(random() * 3) }, pick).join(' ')}`.trim();
    const stored = toStored(sampleRecord(slot, { title, description: random() < 0.5 ? '' : pick(), location: pick(), organizer: { name: pick(), email: 'o@campus.example' } }), slot + 1);
    this.events[slot] = stored;
    for (const word of this.#wordsOf(stored)) {
      const term = this.terms.internWord(word);
      this.postings.set(term, postingAdd(this.postings.get(term), slot, this.capacity));
    }
    this.postingsVersion++;
  }

  remove(slot: number): void {
    const stored = this.events[slot];
    if (stored === undefined) return;
    for (const word of this.#wordsOf(stored)) {
      const term = this.terms.internWord(word);
      this.postings.set(term, postingRemove(this.postings.get(term)!, slot, this.capacity));
    }
    this.events[slot] = undefined;
    this.postingsVersion++;
  }

  /** The slots whose event has, for each query word, a word it starts. */
  brute(words: readonly string[]): number[] {
    const slots: number[] = [];
    this.events.forEach((stored, slot) => {
      if (stored === undefined) return;
      const own = [...this.#wordsOf(stored)];
      if (words.every((word) => own.some((w) => w.startsWith(word)))) slots.push(slot);
    });
    return slots;
  }
}

function randomQuery(random: Random): string[] {
  const all = [...COMMON, ...RARE, 'nothing', 'tag', 'tag1'];
  return Array.from({ length: Math.floor(random() * 4) }, () => {
    const word = all[Math.floor(random() * all.length)]!;
    return word.slice(0, 1 + Math.floor(random() * word.length));
  });
}

test(`WordMatcher.match() gives the slots whose event has a word starting with each query word, as brute force does (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (const capacity of [40, 300, 3000]) {
    const campus = new Campus(capacity);
    const matcher = new WordMatcher(campus);
    const live = Math.floor(capacity * (0.3 + 0.7 * random()));
    for (let slot = 0; slot < live; slot++) campus.put(random, slot);
    for (let round = 0; round < 150; round++) {
      const words = randomQuery(random);
      const where = `seed ${SEED}, capacity ${capacity}, round ${round}: ${JSON.stringify(words)}`;
      assert.deepEqual(slotList(matcher.match(words)), words.length === 0 ? [] : campus.brute(words), where);
      // The same query again, from the cached unions.
      assert.deepEqual(slotList(matcher.match(words)), words.length === 0 ? [] : campus.brute(words), `${where}, asked again`);
      // A few writes: the cached unions are stale now.
      for (let write = Math.floor(random() * 3); write > 0; write--) {
        const slot = Math.floor(random() * capacity);
        if (random() < 0.5) campus.remove(slot);
        else campus.put(random, slot);
      }
    }
  }
});

test('WordMatcher answers from its cached union of a word until a posting changes', () => {
  const random = mulberry32(7);
  const campus = new Campus(256);
  for (let slot = 0; slot < 256; slot++) campus.put(random, slot);
  const matcher = new WordMatcher(campus);
  const bitmapOf = (set: SlotSet): unknown => ('bitmap' in set ? set.bitmap : set.slots);
  const first = matcher.match(['se']);
  assert.ok('bitmap' in first, 'a common prefix gives a bitmap');
  assert.equal(bitmapOf(matcher.match(['se'])), first.bitmap, 'asked again: the same union');
  campus.remove(slotList(first)[0]!);
  const after = matcher.match(['se']);
  assert.notEqual(bitmapOf(after), first.bitmap);
  assert.deepEqual(slotList(after), campus.brute(['se']));
});

test(`WordMatcher checks a few slots against a prefix of hundreds of words by their own text, as brute force does (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const campus = new Campus(3000);
  for (let slot = 0; slot < 3000; slot++) campus.put(random, slot);
  const matcher = new WordMatcher(campus);
  campus.put(random, 17, 'unicorn tag7');
  campus.put(random, 2999, 'unicorn Unicorn');
  for (const words of [['unicorn', 'tag'], ['unicorn', 'tag7'], ['unicorn', 'tag8'], ['tag', 'unicorn'], ['unicorn', 'ta', 'u']]) {
    assert.deepEqual(slotList(matcher.match(words)), campus.brute(words), `seed ${SEED}: ${JSON.stringify(words)}`);
  }
  assert.ok(campus.brute(['unicorn', 'tag7']).includes(17), `seed ${SEED}: the planted event matches`);
});
