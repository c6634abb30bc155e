// WordMatcher's work (MatchWork) on indexes made by hand: the same slots as brute force, and the cheapest way to
// them, at the edges of each choice (the few-slots threshold, the ties of the three ways of filtering, the bound on
// cached unions, the union's shortcuts). A dearer way gives the same slots, so only the work shows it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type StoredEvent } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { searchWords } from '../../src/search/search-words.js';
import { searchTextOf } from '../../src/search/event-search-text.js';
import { type MatchSource, type MatchWork, type SlotSet, WordMatcher } from '../../src/search/search-match.js';
import { PostingTable } from '../../src/search/search-posting-table.js';
import { type Posting, postingSize, SlotBitmap } from '../../src/search/search-postings.js';
import { SearchTerms } from '../../src/search/search-terms.js';
import { sampleRecord } from '../store/helpers.js';
import { slotList } from './search-match-slots.js';

/** Each word's slots; `{ bitmap }` makes its posting a bitmap however few they are. */
type Words = Record<string, number[] | { bitmap: number[] }>;

const NO_WORK: MatchWork = { listed: 0, byPosting: 0, byText: 0, byUnion: 0, unions: 0, ored: 0, copies: 0, recounts: 0 };
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/** An index made by hand: each word's posting in the form asked, and in each slot an event titled with its words. */
class HandIndex implements MatchSource {
  readonly terms = new SearchTerms();
  readonly postings = new PostingTable();
  postingsVersion = 0;
  readonly #events = new Map<number, StoredEvent>();

  constructor(readonly capacity: number, words: Words) {
    const titles = new Map<number, string[]>();
    for (const [word, given] of Object.entries(words)) {
      const slots = Array.isArray(given) ? [...given].sort((a, b) => a - b) : given.bitmap;
      let posting: Posting = slots.length === 1 ? slots[0]! : slots;
      if (!Array.isArray(given)) {
        posting = new SlotBitmap(capacity);
        for (const slot of slots) posting.add(slot);
      }
      this.postings.set(this.terms.internWord(word), posting);
      for (const slot of slots) titles.set(slot, [...(titles.get(slot) ?? []), word]);
    }
    for (const [slot, title] of titles) {
      const record = sampleRecord(slot, { title: title.join(' '), description: '', location: '', organizer: { name: '', email: 'o@campus.example' } });
      this.#events.set(slot, toStored(record, slot + 1));
    }
  }

  eventAt(slot: number): StoredEvent | undefined {
    return this.#events.get(slot);
  }

  /** The slots whose event has, for each query word, a word it starts (from the events' own text). */
  brute(query: readonly string[]): number[] {
    const slots: number[] = [];
    for (const [slot, stored] of this.#events) {
      const own = searchTextOf(stored).flatMap((text) => searchWords(text));
      if (query.every((word) => own.some((each) => each.startsWith(word)))) slots.push(slot);
    }
    return slots.sort((a, b) => a - b);
  }
}


/** Asks `query` of a new matcher over `index`: the slots brute force gives, with exactly `work` done. */
function assertMatch(index: HandIndex, query: string[], work: Partial<MatchWork>, why: string): SlotSet {
  const matcher = new WordMatcher(index);
  const found = matcher.match(query);
  assert.deepEqual(slotList(found), index.brute(query), `${why}: ${JSON.stringify(query)}`);
  assert.deepEqual(matcher.work, { ...NO_WORK, ...work }, `${why}: the work of ${JSON.stringify(query)}`);
  return found;
}

/** The costs of filtering `slots` slots by `prefix`: by its postings (8 a check), by text (1,000 each), by its union (its slots + capacity / 32). */
function costs(index: HandIndex, slots: number, prefix: string): number[] {
  const postings = index.terms.startingWith(prefix).map((term) => index.postings.get(term)!);
  const size = postings.reduce<number>((sum, posting) => sum + postingSize(posting), 0);
  return [slots * postings.length * 8, slots * 1000, size + (index.capacity >>> 5)];
}

test('a query word in no event answers at once, whatever the other words', () => {
  const index = new HandIndex(128, { common: range(0, 100) });
  assertMatch(index, ['zzz', 'common'], {}, 'nothing to list or filter');
  assertMatch(index, ['common', 'zzz', 'co'], {}, 'in any place of the query');
});

test('the word in fewest events lists the slots, whichever place it has in the query; the others filter them', () => {
  const index = new HandIndex(1024, { common: { bitmap: range(0, 200) }, mid: [3, 9, 50, 60, 70, 201, 202, 203, 204, 205], rare: [3, 50, 201] });
  // 3 slots × 1 posting × 8 = 24 against 3 × 1,000 by text, and 10 (mid) or 200 (common) + 1,024 / 32 by union.
  for (const query of [['rare', 'common'], ['common', 'rare']]) assertMatch(index, query, { listed: 3, byPosting: 1 }, 'rare first');
  for (const query of [['common', 'mid', 'rare'], ['mid', 'common', 'rare'], ['rare', 'mid', 'common']]) assertMatch(index, query, { listed: 3, byPosting: 2 }, 'rare, then mid, then common');
});

test('a first word in up to 64 events, or in less than 1/64 of the slots, lists them; more goes by bitmap', () => {
  assertMatch(new HandIndex(4096, { word: range(0, 64) }), ['word'], { listed: 64 }, '64 events, 4,096 slots');
  // 65 events, 65 × 64 slots: a union of the one array posting.
  const union = assertMatch(new HandIndex(65 * 64, { word: range(0, 65) }), ['word'], { unions: 1, ored: 65 }, '65 events, 4,160 slots');
  assert.ok('bitmap' in union, 'a bitmap');
  assertMatch(new HandIndex(100 * 64 + 1, { word: range(0, 100) }), ['word'], { listed: 100 }, '100 events, 6,401 slots');
});

test('the few slots are filtered the cheapest way (a posting check 8, a text 1,000, a union its slots + capacity / 32), the first of a tie', () => {
  // 'tag' starts 125 words: 1 slot × 125 × 8 = 1,000 by postings, 1,000 by text, 126 + 32,000 / 32 by union.
  const tags = (count: number, from: number): Words => Object.fromEntries(range(0, count).map((n) => [`tag${String(n).padStart(3, '0')}`, [from + n]]));
  const postingOrText = new HandIndex(32_000, { unicorn: [0], ...tags(125, 1), tag007: [0, 8] });
  assert.deepEqual(costs(postingOrText, 1, 'tag'), [1000, 1000, 1126]);
  assertMatch(postingOrText, ['unicorn', 'tag'], { listed: 1, byPosting: 1 }, 'posting = text < union');
  // 'run' starts 2 words in 12 events: 2 slots × 2 × 8 = 32 by postings, 2,000 by text, 12 + 640 / 32 by union.
  const runs = { zebra: [0, 1], runa: [0, 2, 3, 4, 5, 6], runb: range(7, 13) };
  assert.deepEqual(costs(new HandIndex(640, runs), 2, 'run'), [32, 2000, 32]);
  assertMatch(new HandIndex(640, runs), ['zebra', 'run'], { listed: 2, byPosting: 1 }, 'posting = union < text');
  // The same with 320 slots: 12 + 10 by union is cheapest.
  assert.deepEqual(costs(new HandIndex(320, runs), 2, 'run'), [32, 2000, 22]);
  assertMatch(new HandIndex(320, runs), ['zebra', 'run'], { listed: 2, byUnion: 1, unions: 1, ored: 12 }, 'union < posting < text');
  // 200 words in 201 events: 2 slots × 200 × 8 = 3,200 by postings, 2,000 by text, 201 + 57,568 / 32 by union.
  // Slot 1 has no 'tag' word; slot 0 has one among others.
  const textOrUnion = new HandIndex(57_568, { unicorn: [0, 1], zebra: [1], ...tags(200, 2), tag007: [0, 9] });
  assert.deepEqual(costs(textOrUnion, 2, 'tag'), [3200, 2000, 2000]);
  assertMatch(textOrUnion, ['unicorn', 'tag'], { listed: 2, byText: 1 }, 'text = union < posting');
  // 1 slot: 1,600 by postings, 1,000 by text, 200 + 64,000 / 32 by union (posting before text would be wrong here).
  const text = new HandIndex(64_000, { unicorn: [0], ...tags(200, 1) });
  assert.deepEqual(costs(text, 1, 'tag'), [1600, 1000, 2200]);
  assertMatch(text, ['unicorn', 'tag'], { listed: 1, byText: 1 }, 'text < posting < union');
});

test('unions of the 8 query words asked last are kept, while no posting changes', () => {
  const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india'];
  const index = new HandIndex(320, Object.fromEntries(names.map((name, n) => [name, range(n * 30, n * 30 + 100)])));
  const matcher = new WordMatcher(index);
  const ask = (word: string, unions: number): void => {
    assert.deepEqual(slotList(matcher.match([word])), index.brute([word]), word);
    assert.equal(matcher.work.unions, unions, `unions made once ${word} was asked`);
  };
  names.forEach((name, n) => ask(name, n + 1));
  ask('india', 9);
  ask('alpha', 10);
  ask('charlie', 10);
  ask('bravo', 11);
  index.postingsVersion++;
  ask('india', 12);
  assert.deepEqual(matcher.work, { ...NO_WORK, unions: 12, ored: 1200 });
});

test('a union starts from a copy of its largest bitmap and ors in the rest, counting again only after a bitmap', () => {
  const words: Words = {
    sea: { bitmap: range(0, 300) },
    seb: { bitmap: range(200, 700) },
    sec: [5, 800, 1000],
    sed: [1020],
    see: { bitmap: range(600, 1000) },
    taa: range(100, 200),
    tab: [900],
  };
  const index = new HandIndex(1024, words);
  assertMatch(index, ['se'], { unions: 1, copies: 1, ored: 300 + 3 + 1 + 400, recounts: 1 }, 'the largest bitmap copied');
  assertMatch(index, ['ta'], { unions: 1, ored: 101 }, 'arrays and a number: counted as they are set');
  const only = assertMatch(index, ['sea'], { unions: 1 }, 'one bitmap');
  assert.ok('bitmap' in only && only.bitmap === index.postings.get(index.terms.internWord('sea')), 'the one bitmap is the union');
  // Two unions: the smaller one copied, the other intersected into it.
  assertMatch(index, ['se', 'ta'], { unions: 2, copies: 2, ored: 704 + 101, recounts: 1 }, 'two unions');
});
