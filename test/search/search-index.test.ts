// SearchIndex against a model of live events over seeded random steps (SEARCH_INDEX_SEED=n replays one): a bulk load
// built on the main thread or adopted from a worker's build, with puts, updates (same text or not, another category or
// month, a registration), deletes and unknown ids before, during and after the build; then every slot, category,
// month and query compared with a scan. Small (a few hundred events) so a mutation run stays fast.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, type StoredEvent } from '../../src/events/event.js';
import { toStored, withRegisteredCount } from '../../src/store/views/served-event.js';
import { queryWords, searchWords } from '../../src/search/search-words.js';
import { searchTextOf } from '../../src/search/event-search-text.js';
import { builtSearch, type BuiltSearch } from '../../src/search/search-built.js';
import { EventTerms } from '../../src/search/search-event-terms.js';
import { DEAD_TERMS_MIN, monthOf, SearchIndex, type SlotSet } from '../../src/search/search-index.js';
import { type Posting, postingPushInto, SlotBitmap } from '../../src/search/search-postings.js';
import { mulberry32 } from '../helpers/random.js';
import { sampleRecord } from '../store/helpers.js';
import { randomSearchEvent } from './search-index-events.js';
import { STORE_EVENT_FORMS } from '../../src/store/views/store-event-forms.js';

const SEED = Number(process.env['SEARCH_INDEX_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
/** The first words are in most events (a query of them takes the bitmap path), the last in few. */
const WORDS = ['seminar', 'lab', 'Chemistry', 'chemie', 'yoga', 'Straße', 'café', '東京', 'run', 'running', '2026', 'ka', 'kalo', 'İz'];

type Random = () => number;

const randomEvent = (random: Random, n: number, seq: number): StoredEvent => randomSearchEvent(random, n, seq, WORDS, { skew: 3, digits: 0, months: 4 });

const slotsOf = (posting: Posting | SlotBitmap | undefined): number[] => {
  const slots: number[] = [];
  if (posting !== undefined) postingPushInto(posting, slots);
  return slots.sort((a, b) => a - b);
};

const idsOf = (index: SearchIndex, found: SlotSet): string[] => slotsOf('slots' in found ? found.slots : found.bitmap).map((slot) => index.eventAt(slot)!.id).sort();

/** The build a worker would hand over for `events` (event i in slot i): a dictionary, runs, and bitmaps for common terms. */
function builtOf(events: readonly StoredEvent[]): BuiltSearch {
  const eventTerms = new EventTerms(STORE_EVENT_FORMS);
  const slotsByTerm: number[][] = [];
  events.forEach((stored, slot) => {
    for (const term of eventTerms.distinct(stored)) (slotsByTerm[term] ??= []).push(slot);
  });
  const offsets = new Uint32Array(eventTerms.terms.size + 1);
  const runs: number[] = [];
  const bitmaps = new Map<number, SlotBitmap>();
  for (let term = 0; term < eventTerms.terms.size; term++) {
    const slots = slotsByTerm[term] ?? [];
    if (slots.length > 40) {
      const bitmap = new SlotBitmap(events.length);
      for (const slot of slots) bitmap.add(slot);
      bitmaps.set(term, bitmap);
    } else runs.push(...slots);
    offsets[term + 1] = runs.length;
  }
  const ids = Buffer.from(events.map((stored) => stored.id).join(''), 'latin1');
  let end = 0;
  const idEnds = Uint32Array.from(events, (stored) => (end += stored.id.length));
  const putSeqs = Float64Array.from(events, (stored) => stored.seq);
  return builtSearch(eventTerms.terms, { offsets, slots: Uint32Array.from(runs), bitmaps }, { ids: new Uint8Array(ids), idEnds, putSeqs, logLength: 0 });
}

/** The live events and the writes a store makes: the index is told each write with the state it replaces. */
class Model {
  readonly live = new Map<string, StoredEvent>();
  readonly #words = new Map<StoredEvent, string[]>();
  seq = 0;
  next = 0;

  constructor(
    readonly random: Random,
    readonly index: SearchIndex,
  ) {}

  /** The distinct words of an event: its terms in the index. */
  termsOf(stored: StoredEvent): Set<string> {
    return new Set(searchTextOf(stored).flatMap(searchWords));
  }

  /** One random write; once the index is ready, the posting updates it costs are those of the words that changed. */
  write(): void {
    const { index, live } = this;
    const before = index.postingUpdates;
    const ready = index.ready;
    const states = new Map(live);
    this.#randomWrite();
    for (const [id, was] of states) if (live.has(id) && live.get(id) !== was) this.#former.set(id, was);
    if (!ready) return;
    let expected = 0;
    for (const id of new Set([...states.keys(), ...live.keys()])) {
      const [was, now] = [states.get(id), live.get(id)];
      if (was === now) continue;
      const [old, next] = [was === undefined ? new Set<string>() : this.termsOf(was), now === undefined ? new Set<string>() : this.termsOf(now)];
      for (const term of old) if (!next.has(term)) expected++;
      for (const term of next) if (!old.has(term)) expected++;
    }
    assert.equal(index.postingUpdates - before, expected, `posting updates of a write (SEARCH_INDEX_SEED=${SEED})`);
  }

  /** A state each id had before its live one: a write may put it back (the slot then lives on that object again). */
  readonly #former = new Map<string, StoredEvent>();

  #randomWrite(): void {
    const { random, index, live } = this;
    const ids = [...live.keys()];
    const roll = random();
    const some = (): StoredEvent => live.get(ids[Math.floor(random() * ids.length)]!)!;
    if (roll < 0.3 || ids.length === 0) {
      const stored = randomEvent(random, this.next++, ++this.seq);
      index.put(stored, undefined);
      live.set(stored.id, stored);
    } else if (roll < 0.6) {
      const previous = some();
      const stored = randomEvent(random, Number(previous.id.slice(4)), ++this.seq);
      index.put(stored, previous);
      live.set(stored.id, stored);
    } else if (roll < 0.7) {
      // A registration: the same text, another view.
      const previous = some();
      const stored = withRegisteredCount(previous, Math.floor(random() * 50), ++this.seq, previous.modifiedMs + 1);
      index.put(stored, previous);
      live.set(stored.id, stored);
    } else if (roll < 0.75) {
      // The same text in another category or month (an edit of the date or category only).
      const previous = some();
      const record = JSON.parse(previous.json) as Parameters<typeof sampleRecord>[1] & object;
      const start = Date.UTC(2026, Math.floor(random() * 4), 2);
      const changed = sampleRecord(0, { ...record, category: CATEGORIES[Math.floor(random() * CATEGORIES.length)]!, start_time: new Date(start).toISOString(), end_time: new Date(start + 60_000).toISOString() });
      const stored = toStored(changed, ++this.seq);
      index.put(stored, previous);
      live.set(stored.id, stored);
    } else if (roll < 0.8) {
      // A former state put back (as a write undone would): it takes the slot of the state it replaces.
      const previous = some();
      const stored = this.#former.get(previous.id) ?? randomEvent(random, Number(previous.id.slice(4)), ++this.seq);
      index.put(stored, previous);
      live.set(stored.id, stored);
    } else if (roll < 0.83) {
      // An unknown id, or a former state of a live one (not live itself: nothing changes).
      const stale = random() < 0.5 ? this.#former.get(some().id) : undefined;
      index.delete(stale ?? randomEvent(random, 100_000 + this.next++, ++this.seq));
    } else {
      const stored = some();
      index.delete(stored);
      live.delete(stored.id);
    }
  }

  writes(count: number): void {
    for (let n = 0; n < count; n++) this.write();
  }

  isCurrent = (stored: StoredEvent): boolean => this.live.get(stored.id) === stored;

  matching(words: readonly string[]): string[] {
    const ids: string[] = [];
    for (const stored of this.live.values()) {
      let own = this.#words.get(stored);
      if (own === undefined) this.#words.set(stored, (own = searchTextOf(stored).flatMap(searchWords)));
      if (words.every((word) => own.some((each) => each.startsWith(word)))) ids.push(stored.id);
    }
    return ids.sort();
  }

  /** Every view of the index against the live events. */
  check(when: string): void {
    const { index, live, random } = this;
    const where = `${when} (SEARCH_INDEX_SEED=${SEED})`;
    assert.ok(index.ready, where);
    assert.deepEqual(index.progress, { indexed: 0, total: 0 }, where);
    assert.equal(index.placeSome(1, this.isCurrent), true, where);
    assert.equal(index.buildSome(1, this.isCurrent), true, where);
    const bySlot = new Map<number, StoredEvent>();
    for (const stored of live.values()) {
      const slot = index.slotOf(stored);
      assert.ok(slot !== undefined && slot < index.capacity, `${where}: the slot of ${stored.id}`);
      assert.equal(index.eventAt(slot), stored, `${where}: the event in slot ${slot}`);
      bySlot.set(slot, stored);
    }
    for (let slot = 0; slot < index.capacity; slot++) if (!bySlot.has(slot)) assert.equal(index.eventAt(slot), undefined, `${where}: slot ${slot} is free`);
    for (const category of CATEGORIES) {
      const expected = [...bySlot].filter(([, stored]) => stored.category === category).map(([slot]) => slot);
      assert.deepEqual(slotsOf(index.categoryBitmap(category)), expected.sort((a, b) => a - b), `${where}: ${category}`);
    }
    const months = [...new Set([...live.values()].map((stored) => monthOf(stored.startMs)))].sort((a, b) => a - b);
    assert.deepEqual(index.months(), months, `${where}: months`);
    for (const month of [...months, months[0]! - 1]) {
      const expected = [...bySlot].filter(([, stored]) => monthOf(stored.startMs) === month).map(([slot]) => slot);
      assert.deepEqual(slotsOf(index.monthPosting(month)), expected.sort((a, b) => a - b), `${where}: month ${month}`);
    }
    // The common words first (asked again at every check: a union cached before a write must not answer after it).
    const queries = ['seminar', 'lab', 'se', 'l', 'seminar lab', 'c'];
    for (let n = 0; n < 12; n++) {
      const word = WORDS[Math.floor(random() * WORDS.length)]!;
      const other = WORDS[Math.floor(random() * WORDS.length)]!;
      queries.push(`${word.slice(0, 1 + Math.floor(random() * word.length))}${random() < 0.3 ? ` ${other.slice(0, 2)}` : ''}`);
    }
    for (const q of queries) {
      const words = queryWords(q);
      assert.deepEqual(idsOf(index, index.match(words)), this.matching(words), `${where}: q=${q}`);
    }
  }
}

type Start = 'collect' | 'place, then adopt' | 'adopt refused';

/** A bulk load of `events`, built in random steps with writes between them, then checked, written to and checked again. */
function round(random: Random, events: number, start: Start, what: string): void {
  const pending = Array.from({ length: events }, (_, n) => randomEvent(random, n, n + 1));
  const index = new SearchIndex(pending, STORE_EVENT_FORMS);
  const model = new Model(random, index);
  for (const stored of pending) model.live.set(stored.id, stored);
  model.seq = events;
  model.next = events;
  assert.equal(index.ready, events === 0, what);
  if (events === 0) assert.equal(index.adoptBuilt(builtOf([])), 'the index is built already', what);
  let placed = 0;
  let collected = 0;
  let adopted = false;
  const progress = (): void => {
    if (index.ready) return;
    assert.deepEqual(index.progress, { indexed: adopted ? placed : collected, total: events }, what);
  };
  if (start !== 'collect' && events > 0) {
    // Placed while a worker reads the log, with writes between; then its build adopted (or refused: another event count).
    for (let steps = Math.floor(random() * 4); steps > 0; steps--) {
      const count = 1 + Math.floor(random() * events);
      placed = Math.min(events, placed + count);
      assert.equal(index.placeSome(count, model.isCurrent), placed === events, what);
      progress();
      model.writes(Math.floor(random() * 8));
    }
    if (start === 'adopt refused') assert.equal(index.adoptBuilt(builtOf(pending.slice(1))), `the build holds ${events - 1} events, the replay ${events}`, what);
    else {
      assert.equal(index.adoptBuilt(builtOf(pending)), undefined, what);
      adopted = true;
    }
    progress();
  }
  while (!index.ready) {
    const count = 1 + Math.floor(random() * 40);
    if (adopted) placed = Math.min(events, placed + 8 * count);
    else {
      collected = Math.min(events, collected + count);
      placed = Math.max(placed, collected);
    }
    assert.equal(index.buildSome(count, model.isCurrent), index.ready, what);
    progress();
    if (!adopted && !index.ready) assert.equal(index.adoptBuilt(builtOf(pending)), 'the build had begun', what);
    model.writes(Math.floor(random() * 10));
  }
  model.check(`${what}, built`);
  for (let n = 0; n < 6; n++) {
    model.writes(1 + Math.floor(random() * 30));
    model.check(`${what}, after writes ${n}`);
  }
}

test(`SearchIndex answers as a scan of the live events, built, adopted or refused, with writes all along (SEARCH_INDEX_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const starts: Start[] = ['collect', 'place, then adopt', 'adopt refused'];
  for (const [n, events] of [0, 1, 40, 160, 160, 40, 1, 0, 160].entries()) {
    const start = starts[n % 3]!;
    round(random, events, start, `round ${n}: ${events} events, ${start}`);
  }
});

test('a new SearchIndex holds nothing and is ready: no build to adopt, nothing to place', () => {
  const index = new SearchIndex([], STORE_EVENT_FORMS);
  assert.equal(index.ready, true);
  assert.deepEqual(index.progress, { indexed: 0, total: 0 });
  assert.equal(index.adoptBuilt(builtOf([])), 'the index is built already');
  assert.equal(index.placeSome(10, () => true), true);
  assert.equal(index.capacity, 0);
  assert.deepEqual(index.months(), []);
  assert.deepEqual(index.match(['yoga']), { slots: [] });
});

test('a registration changes no posting; an edit, only those of the words it changes; a delete and a new slot, all', () => {
  const index = new SearchIndex([], STORE_EVENT_FORMS);
  const stored = toStored(sampleRecord(1, { title: 'Yoga lab', description: 'yoga at noon', location: 'Gym', organizer: { name: 'Ann', email: 'a@campus.example' } }), 1);
  index.put(stored, undefined);
  // yoga, lab, at, noon, gym, ann.
  assert.equal(index.postingUpdates, 6);
  const registered = withRegisteredCount(stored, 5, 2, stored.modifiedMs + 1);
  index.put(registered, stored);
  assert.equal(index.postingUpdates, 6);
  const edited = toStored(sampleRecord(1, { title: 'Yoga run', description: 'yoga at noon', location: 'Gym', organizer: { name: 'Ann', email: 'a@campus.example' } }), 3);
  index.put(edited, registered);
  assert.equal(index.postingUpdates, 8, 'lab out, run in');
  assert.deepEqual(index.match(['lab']), { slots: [] });
  assert.deepEqual(index.match(['ru']), { slots: [index.slotOf(edited)!] });
  index.delete(edited);
  assert.equal(index.postingUpdates, 14);
  index.delete(edited);
  assert.equal(index.postingUpdates, 14, 'a delete of an event not there');
});

test('a big campus: a word of few events of many gives a list of slots, and a prefix of many words is checked on those slots alone', () => {
  const index = new SearchIndex([], STORE_EVENT_FORMS);
  const put = (n: number, title: string): void => index.put(toStored(sampleRecord(n, { title, description: '', location: 'Hall', organizer: { name: 'Ann', email: 'a@campus.example' } }), n + 1), undefined);
  // 5,000 slots: `some` in 70 (more than 64, fewer than one in 64), `filler` in the rest, `rare` in one; 200 words
  // `w0`…`w199` in 5 events each, so `w` stands for 200 postings of 1,000 slots in all.
  for (let n = 0; n < 5000; n++) put(n, `${n < 70 ? 'some' : 'filler'}${n < 1000 ? ` w${Math.floor(n / 5)}` : ''}${n === 7 ? ' rare' : ''}`);
  assert.equal(index.capacity, 5000);
  const some = index.match(['some']);
  assert.ok('slots' in some, 'a list of slots');
  assert.deepEqual(some.slots, Array.from({ length: 70 }, (_, n) => n));
  const filler = index.match(['filler']);
  assert.ok('bitmap' in filler, 'a bitmap');
  assert.equal(filler.bitmap.count, 4930);
  // `rare` is in one event: `w` (200 postings) is checked by that event's own text, which holds `w1`.
  assert.deepEqual(index.match(['rare', 'w']), { slots: [7] });
  assert.deepEqual(index.match(['w', 'rare']), { slots: [7] });
  assert.deepEqual(index.match(['rare', 'w2']), { slots: [] });
});

test(`SearchIndex forgets words no event holds once they outnumber the held ones: its dictionary follows the live words, and it answers as a scan (SEARCH_INDEX_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  // 80 events in Hallmark, the last 30 of them in its North wing, only ever edited (their postings stay the build's packed bitmap
  // and run), and 40 in the Annex, deleted and made again.
  const place = (n: number): string => (n < 50 ? 'Hallmark' : n < 80 ? 'Hallmark North' : 'Annex');
  const pending = Array.from({ length: 120 }, (_, n) => toStored(sampleRecord(n, { title: WORDS[n % WORDS.length]!, location: place(n) }), n + 1));
  const index = new SearchIndex(pending, STORE_EVENT_FORMS);
  const model = new Model(random, index);
  for (const stored of pending) model.live.set(stored.id, stored);
  model.seq = model.next = pending.length;
  // The bulk load adopted from a worker's build: its packed runs and bitmaps are renumbered too.
  assert.equal(index.adoptBuilt(builtOf(pending)), undefined);
  while (!index.buildSome(50, model.isCurrent));
  let fresh = 0;
  /** `count` words never seen before ("zq0x", "zq1x"…): every edit leaves the ones before unheld. */
  const freshWords = (count: number): string => Array.from({ length: count }, () => `zq${(fresh++).toString(36)}x`).join(' ');
  let kept = '';
  for (let edit = 0; edit < (2 * DEAD_TERMS_MIN) / 40 + 40; edit++) {
    const n = edit % 120;
    const previous = model.live.get(pending[n]!.id)!;
    const stored = toStored(sampleRecord(n, { title: WORDS[edit % WORDS.length]!, description: freshWords(40), location: place(n) }), ++model.seq);
    if (n < 80) index.put(stored, previous);
    else {
      index.delete(previous);
      index.put(stored, undefined);
    }
    model.live.set(stored.id, stored);
    if (edit === 10) kept = stored.json.match(/zq[0-9a-z]+x/)![0];
    const { terms, live } = index.termCounts;
    assert.ok(terms - live <= Math.max(live, DEAD_TERMS_MIN), `edit ${edit}: ${terms} terms, ${live} held (SEARCH_INDEX_SEED=${SEED})`);
  }
  const { terms, live, compactions } = index.termCounts;
  assert.ok(compactions >= 1, `compacted at least once (${terms} terms, ${live} held)`);
  assert.ok(live < 120 * 42, `${live} words held by 120 events of at most 42 words`);
  // Every word held is found, a forgotten one finds nothing, and the bulk load's words still answer.
  const held = [...model.live.values()].flatMap((stored) => stored.json.match(/zq[0-9a-z]+x/g) ?? []);
  for (const q of [held[0]!, held.at(-1)!, 'zq', 'zq1', kept, 'hallmark', 'north', 'annex', 'seminar', 'Hallmark zq'])
    assert.deepEqual(idsOf(index, index.match(queryWords(q))), model.matching(queryWords(q)), `q=${q} (SEARCH_INDEX_SEED=${SEED})`);
  model.check('after forgetting words');
  for (let n = 0; n < 4; n++) {
    model.writes(1 + Math.floor(random() * 30));
    model.check(`after forgetting words and writes ${n}`);
  }
});
