// SearchBuild, the search index's bulk build, step by step with writes between steps, against brute force: once
// done, each word's posting holds exactly the slots of the live events with that word, every other slot is free,
// and no step added a slot a posting held or removed one it did not hold. Both ways: words collected here, or
// adopted from a build of the log (with events moved by a registration, so its slots must be renamed). The number
// of steps and the progress after each are pinned too (a step places, collects and packs a bounded amount).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type StoredEvent } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { searchWords } from '../../src/search/search-words.js';
import { searchTextOf } from '../../src/search/event-search-text.js';
import { type BuildHost, SearchBuild } from '../../src/search/search-build.js';
import { BulkPostings } from '../../src/search/search-bulk.js';
import { type BuiltSearch, builtSearch } from '../../src/search/search-built.js';
import { EventTerms } from '../../src/search/search-event-terms.js';
import { PostingTable } from '../../src/search/search-posting-table.js';
import { postingAdd, postingHas, postingPushInto, postingRemove } from '../../src/search/search-postings.js';
import { SlotTable } from '../../src/search/search-slots.js';
import { mulberry32 } from '../helpers/random.js';
import { sampleRecord } from '../store/helpers.js';
import { STORE_EVENT_FORMS } from '../../src/store/views/store-event-forms.js';

const SEED = Number(process.env['SEARCH_BUILD_UNIT_SEED'] ?? Date.now() % 1_000_000);
const WORDS = ['seminar', 'lab', 'chemistry', 'yoga', 'run', 'café', 'straße', '2026', 'zebra', 'tag'];
type Random = () => number;

/** Event `n` at `seq`: 'seminar' in most (a bitmap once packed), a few other words. */
function randomEvent(random: Random, n: number, seq: number): StoredEvent {
  const words = Array.from({ length: 1 + Math.floor(random() * 3) }, () => WORDS[Math.floor(random() * WORDS.length)]! + (random() < 0.3 ? String(Math.floor(random() * 20)) : ''));
  const title = `${random() < 0.9 ? 'seminar ' : ''}${words.join(' ')}`;
  return toStored(sampleRecord(n, { title, description: '', location: random() < 0.5 ? 'lab' : 'hall', organizer: { name: 'ann', email: 'o@campus.example' } }), seq);
}

/** The host of a build (as SearchIndex is), its writes done as SearchIndex does them while it builds. */
class Host implements BuildHost {
  readonly slots = new SlotTable(STORE_EVENT_FORMS);
  readonly eventTerms = new EventTerms(STORE_EVENT_FORMS);
  readonly postings = new PostingTable();
  build: SearchBuild | undefined;

  readonly add = (term: number, slot: number): void => {
    const posting = this.postings.get(term);
    assert.ok(posting === undefined || !postingHas(posting, slot), `term ${this.eventTerms.terms.word(term)} added to slot ${slot}, which it held`);
    this.postings.set(term, postingAdd(posting, slot, this.slots.capacity));
  };

  readonly remove = (term: number, slot: number): void => {
    const posting = this.postings.get(term);
    assert.ok(posting !== undefined && postingHas(posting, slot), `term ${this.eventTerms.terms.word(term)} removed from slot ${slot}, which it did not hold`);
    this.postings.set(term, postingRemove(posting, slot, this.slots.capacity));
  };

  put(stored: StoredEvent, previous: StoredEvent | undefined): void {
    this.build!.noteChange();
    const slot = previous === undefined ? undefined : this.slots.slotOf(previous);
    if (slot !== undefined && previous !== undefined) {
      this.build!.noteWrite(slot);
      this.slots.replace(slot, previous, stored);
      return;
    }
    const fresh = this.slots.newSlot();
    this.slots.place(stored, fresh);
    this.build!.noteNew(fresh);
  }

  delete(stored: StoredEvent): void {
    this.build!.noteChange();
    const slot = this.slots.slotOf(stored);
    if (slot === undefined) return;
    this.build!.noteWrite(slot);
    this.slots.remove(slot);
  }
}

/** A build of the log holding `events` (in the order of their put lines, at `putSeqs`), as a worker makes one. */
function builtOf(events: readonly StoredEvent[], putSeqs: readonly number[]): BuiltSearch {
  const eventTerms = new EventTerms(STORE_EVENT_FORMS);
  const bulk = new BulkPostings();
  const terms: number[] = [];
  events.forEach((stored, slot) => {
    terms.length = 0;
    eventTerms.termsOf(stored, terms);
    bulk.add(slot, terms);
  });
  const idEnds = new Uint32Array(events.length);
  let end = 0;
  events.forEach((stored, slot) => (idEnds[slot] = end += stored.id.length));
  const ids = new Uint8Array(Buffer.from(events.map((stored) => stored.id).join(''), 'latin1'));
  return builtSearch(eventTerms.terms, bulk.pack(eventTerms.terms.size, events.length), { ids, idEnds, putSeqs: Float64Array.from(putSeqs), logLength: 0 });
}

/** Each word held by a posting of `host`, with its slots, sorted; the same from the live events as `host` places them. */
function postingsOf(host: Host): Map<string, number[]> {
  const found = new Map<string, number[]>();
  const { terms } = host.eventTerms;
  for (let term = 0; term < terms.size; term++) {
    const posting = host.postings.get(term);
    if (posting === undefined) continue;
    const slots: number[] = [];
    postingPushInto(posting, slots);
    if (slots.length > 0) found.set(terms.word(term), slots.sort((a, b) => a - b));
  }
  return new Map([...found].sort());
}

function expectedPostings(host: Host, live: ReadonlyMap<string, StoredEvent>): Map<string, number[]> {
  const expected = new Map<string, number[]>();
  for (const stored of live.values()) {
    const slot = host.slots.slotOf(stored)!;
    for (const word of new Set(searchTextOf(stored).flatMap((text) => searchWords(text)))) expected.set(word, [...(expected.get(word) ?? []), slot]);
  }
  for (const slots of expected.values()) slots.sort((a, b) => a - b);
  return new Map([...expected].sort());
}

interface Round {
  events: number;
  count: number;
  adopt: boolean;
  /** Events placed (placeSome) before the first step. */
  placedFirst: number;
  /** The most writes between two steps. */
  writes: number;
  /** Whether a write may put back a bulk-loaded state replaced since (a state holding a slot before its own is placed). */
  putBack?: boolean;
}

/** Builds `round.events` random events with writes between steps; checks everything once built, and returns the steps taken. */
function buildRound(random: Random, round: Round, where: string): number {
  const { events, count, adopt, placedFirst, writes, putBack = false } = round;
  // The log: puts 1…events; some events then got a registration (seq after every put), which moves them last in replay.
  const logged = Array.from({ length: events }, (_, n) => randomEvent(random, n, n + 1));
  let seq = events;
  const pending = logged.map((stored) => (random() < 0.1 ? toStored(JSON.parse(stored.json), ++seq) : stored)).sort((a, b) => a.seq - b.seq);
  const host = new Host();
  const build = (host.build = new SearchBuild(host, pending));
  const live = new Map(pending.map((stored) => [stored.id, stored]));
  const unchanged = (stored: StoredEvent): boolean => live.get(stored.id) === stored;
  let asked = 0;
  const isCurrent = (stored: StoredEvent): boolean => {
    asked++;
    return unchanged(stored);
  };
  const built = builtOf(logged, logged.map((stored) => stored.seq));
  if (adopt) {
    assert.equal(build.adopt(built), undefined, `${where}: adopted`);
    assert.equal(built.ids.length + built.idEnds.length + built.putSeqs.length, 0, `${where}: the build's events released`);
    assert.equal(build.adopt(builtOf(logged, [])), 'the build had begun', `${where}: adopted once`);
  }
  let placed = Math.min(events, placedFirst);
  if (placedFirst > 0) assert.equal(build.placeSome(placedFirst, isCurrent), placedFirst >= events, `${where}: placed first`);
  assert.equal(asked, 0, `${where}: no event placed asked about before any write`);
  const loaded = new Map(pending.map((stored) => [stored.id, stored]));
  const written = new Set<string>();
  let next = events;
  const write = (): void => {
    const ids = [...live.keys()];
    const roll = random();
    const id = ids[Math.floor(random() * ids.length)]!;
    if (roll >= 0.3) written.add(id);
    if (roll < 0.3) {
      const stored = randomEvent(random, next++, ++seq);
      host.put(stored, undefined);
      live.set(stored.id, stored);
    } else if (roll < 0.75) {
      const first = loaded.get(id);
      const stored = putBack && first !== undefined && first !== live.get(id) && random() < 0.5 ? first : randomEvent(random, Number(id.slice(4)), ++seq);
      host.put(stored, live.get(id));
      live.set(id, stored);
    } else {
      host.delete(live.get(id)!);
      live.delete(id);
    }
  };
  let steps = 0;
  let collected = 0;
  for (;;) {
    steps++;
    const [placedBefore, askedBefore] = [placed, asked];
    const done = build.step(count, isCurrent);
    placed = Math.min(events, Math.max(placed, adopt ? placed + count * 8 : collected + count));
    // Without writes, no event placed is asked about; with writes, each at most once (one put back is not: its slot tells).
    if (writes === 0) assert.equal(asked, 0, `${where}, step ${steps}: no write, nothing asked`);
    else assert.ok(asked - askedBefore <= placed - placedBefore, `${where}, step ${steps}: asked ${asked - askedBefore} for ${placed - placedBefore} placed`);
    collected = Math.min(events, collected + count);
    assert.deepEqual(build.progress, { indexed: adopt ? placed : collected, total: events }, `${where}, step ${steps}: progress`);
    if (done) break;
    if (!adopt && steps === 1) assert.equal(build.adopt(built), 'the build had begun', `${where}: adopted after a step`);
    for (let n = Math.floor(random() * (writes + 1)); n > 0; n--) write();
  }
  assert.deepEqual(postingsOf(host), expectedPostings(host, live), `${where}: the postings`);
  for (const [slot, stored] of pending.entries()) if (!written.has(stored.id)) assert.equal(host.slots.slotOf(stored), slot, `${where}: pending event ${slot} in its slot`);
  for (const stored of live.values()) assert.equal(host.slots.eventAt(host.slots.slotOf(stored)!), stored, `${where}: ${stored.id} in its slot`);
  // Every slot not live is free: new events take them all before the slots grow.
  const { capacity } = host.slots;
  const free = new Set(Array.from({ length: capacity - live.size }, () => host.slots.newSlot()));
  assert.equal(free.size, capacity - live.size, `${where}: free slots`);
  for (const slot of free) assert.ok(slot < capacity && host.slots.eventAt(slot) === undefined, `${where}: slot ${slot} is free`);
  assert.equal(host.slots.newSlot(), capacity, `${where}: then a new slot`);
  return steps;
}

test(`SearchBuild collects or adopts the words of a bulk load with writes between its steps, as brute force indexes the live events (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let n = 0; n < 12; n++) {
    const events = 300 + Math.floor(random() * 60);
    // Adopted, a step places 8 × count: few a step, so that writes meet events not yet placed.
    const adopt = n % 2 === 1;
    const round = { events, count: adopt ? 1 + Math.floor(random() * 5) : 5 + Math.floor(random() * 40), adopt, placedFirst: n % 3 === 2 ? Math.floor(random() * events * 1.2) : 0, writes: 5, putBack: n % 4 >= 2 };
    buildRound(random, round, `seed ${SEED}, round ${n} ${JSON.stringify(round)}`);
  }
});

test(`SearchBuild takes a bounded amount a step: count events collected, then 8 × count packed; 8 × count placed when adopted (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const steps = (events: number, count: number, adopt: boolean, placedFirst = 0): number => buildRound(random, { events, count, adopt, placedFirst, writes: 0 }, `seed ${SEED}: ${events} events, ${count} a step${adopt ? ', adopted' : ''}`);
  // Collected 10 a step: 32 steps, the last of which packs the first 80, then 3 more of 80.
  assert.equal(steps(320, 10, false), 32 + 3);
  assert.equal(steps(300, 300, false), 1, 'a load of one step is packed in that step');
  assert.equal(steps(300, 299, false), 2, 'two steps: then 8 × 299 packed at once');
  assert.equal(steps(320, 10, true), 4, 'placed 80 a step');
  assert.equal(steps(320, 10, true, 100), 3, 'placed 100 first, then 80 a step');
  assert.equal(steps(320, 10, true, 320), 1, 'placed first');
  assert.equal(steps(320, 10, false, 320), 32 + 3, 'placed first, collected 10 a step');
});

test('SearchBuild.adopt() refuses a build of other events, and the steps then collect the words here', () => {
  const random = mulberry32(SEED);
  const pending = Array.from({ length: 20 }, (_, n) => randomEvent(random, n, n + 1));
  const host = new Host();
  const build = (host.build = new SearchBuild(host, pending));
  assert.equal(build.adopt(builtOf(pending.slice(1), pending.slice(1).map((stored) => stored.seq))), 'the build holds 19 events, the replay 20');
  assert.equal(build.step(20, () => true), true);
  assert.deepEqual(postingsOf(host), expectedPostings(host, new Map(pending.map((stored) => [stored.id, stored]))));
});
