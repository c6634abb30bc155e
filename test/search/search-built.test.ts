// A search index built away from the main thread, as handed over: what goes in (a dictionary, packed runs, bitmaps,
// the events' ids and seqs) comes out the same on the other side, its bitmaps cut to the events it holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type BuiltSearch, builtSearch, compacted, freeNow, packedOf, releaseEvents, transferablesOf } from '../../src/search/search-built.js';
import type { PackedPostings } from '../../src/search/search-posting-table.js';
import { SlotBitmap } from '../../src/search/search-postings.js';
import { SearchTerms } from '../../src/search/search-terms.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['SEARCH_BUILT_SEED'] ?? Date.now() % 1_000_000);

function slotsOf(bitmap: SlotBitmap): number[] {
  const slots: number[] = [];
  bitmap.forEach((slot) => slots.push(slot));
  return slots;
}

test(`builtSearch() then packedOf() gives back the runs and the bitmaps, cut to the events held (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 100; round++) {
    const events = Math.floor(random() * 100);
    const terms = new SearchTerms();
    const words = ['lab', 'yoga', 'café', 'seminar', 'run'].slice(0, 1 + Math.floor(random() * 5));
    for (const word of words) terms.internWord(word);
    const bitmaps = new Map<number, SlotBitmap>();
    const expected = new Map<number, number[]>();
    for (let term = 0; term < words.length; term++) {
      if (random() < 0.5 || events === 0) continue;
      // Bitmaps may have more words than the events need (they grow by half): only the events' words travel.
      const bitmap = new SlotBitmap(events + Math.floor(random() * 100));
      const slots = [...new Set(Array.from({ length: 1 + Math.floor(random() * events) }, () => Math.floor(random() * events)))].sort((a, b) => a - b);
      for (const slot of slots) bitmap.add(slot);
      bitmaps.set(term, bitmap);
      expected.set(term, slots);
    }
    const packed: PackedPostings = { offsets: Uint32Array.from({ length: words.length + 1 }, (_, i) => i), slots: Uint32Array.from(words, (_, i) => i % Math.max(events, 1)), bitmaps };
    const ids = Uint8Array.from({ length: 3 * events }, () => 97 + Math.floor(random() * 26));
    const idEnds = Uint32Array.from({ length: events }, (_, i) => 3 * (i + 1));
    const putSeqs = Float64Array.from({ length: events }, (_, i) => i + 1);
    const built = builtSearch(terms, packed, { ids, idEnds, putSeqs, logLength: 1234 });
    const where = `seed ${SEED}, round ${round}`;
    assert.equal(built.logLength, 1234);
    assert.equal(built.ids, ids);
    assert.equal(built.idEnds, idEnds);
    assert.equal(built.putSeqs, putSeqs);
    assert.equal(built.offsets, packed.offsets);
    assert.equal(built.slots, packed.slots);
    assert.deepEqual(built.terms, terms.parts(), where);
    assert.equal(SearchTerms.fromParts(built.terms).word(words.length - 1), words.at(-1), where);
    const wordsEach = Math.ceil(events / 32);
    assert.equal(built.bitmapWords.length, bitmaps.size * wordsEach, `${where}: ${wordsEach} words a bitmap`);
    assert.deepEqual([...built.bitmapTerms], [...bitmaps.keys()], where);
    assert.deepEqual([...built.bitmapCounts], [...expected.values()].map((slots) => slots.length), where);
    const back = packedOf(built);
    assert.equal(back.offsets, packed.offsets);
    assert.equal(back.slots, packed.slots);
    assert.deepEqual([...back.bitmaps.keys()], [...bitmaps.keys()], where);
    for (const [term, bitmap] of back.bitmaps) {
      assert.deepEqual(slotsOf(bitmap), expected.get(term), `${where}: term ${term}`);
      assert.equal(bitmap.count, expected.get(term)!.length, `${where}: term ${term}`);
      assert.equal(bitmap.words.length, wordsEach, `${where}: term ${term}`);
      assert.equal(bitmap.words.buffer, built.bitmapWords.buffer, `${where}: bitmaps share the built words`);
    }
  }
});

test('packedOf() of a build without bitmaps has none', () => {
  const built = builtSearch(new SearchTerms(), { offsets: new Uint32Array(1), slots: new Uint32Array(0), bitmaps: new Map() }, { ids: new Uint8Array(0), idEnds: new Uint32Array(0), putSeqs: new Float64Array(0), logLength: 0 });
  assert.equal(built.bitmapWords.length, 0);
  assert.equal(packedOf(built).bitmaps.size, 0);
});

test('transferablesOf() lists each buffer of a build once; releaseEvents() drops its ids and seqs only', () => {
  const terms = new SearchTerms();
  terms.internWord('yoga');
  const bitmap = new SlotBitmap(40);
  bitmap.add(33);
  const shared = new Uint32Array(8);
  const built = builtSearch(terms, { offsets: shared.subarray(0, 2), slots: shared.subarray(4, 5), bitmaps: new Map([[0, bitmap]]) }, { ids: Uint8Array.from([97]), idEnds: Uint32Array.from([1]), putSeqs: new Float64Array(40), logLength: 9 });
  const buffers = transferablesOf(built);
  const parts = built.terms;
  const expected = [parts.units, parts.starts, parts.hashes, parts.cells, shared, built.bitmapTerms, built.bitmapCounts, built.bitmapWords, built.ids, built.idEnds, built.putSeqs].map((array) => array.buffer);
  assert.equal(buffers.length, new Set(expected).size, 'the offsets and slots share one buffer: listed once');
  assert.deepEqual(new Set(buffers), new Set(expected));
  releaseEvents(built);
  assert.deepEqual([built.ids.length, built.idEnds.length, built.putSeqs.length], [0, 0, 0]);
  assert.ok(built.ids instanceof Uint8Array && built.idEnds instanceof Uint32Array && built.putSeqs instanceof Float64Array);
  assert.equal(packedOf(built).bitmaps.get(0)!.has(33), true, 'the postings stay');
});

/** A build of random words (some interned twice), runs, bitmaps and events, as a worker's collector makes one. */
function randomBuild(random: () => number): { built: BuiltSearch; words: string[] } {
  const events = Math.floor(random() * 300);
  const terms = new SearchTerms();
  const words = Array.from({ length: Math.floor(random() * 400) }, (_, i) => `w${i.toString(36)}${'é'.repeat(Math.floor(random() * 3))}`);
  for (const word of words) terms.internWord(word);
  const bitmaps = new Map<number, SlotBitmap>();
  for (let term = 0; term < words.length && events > 0; term++) {
    if (random() < 0.9) continue;
    const bitmap = new SlotBitmap(events);
    for (let n = 0; n < 10; n++) bitmap.add(Math.floor(random() * events));
    bitmaps.set(term, bitmap);
  }
  const offsets = Uint32Array.from({ length: words.length + 1 }, (_, i) => 2 * i);
  const slots = Uint32Array.from({ length: 2 * words.length }, () => Math.floor(random() * 1000));
  const ids = Uint8Array.from({ length: 5 * events }, () => 97 + Math.floor(random() * 26));
  const idEnds = Uint32Array.from({ length: events }, (_, i) => 5 * (i + 1));
  const putSeqs = Float64Array.from({ length: events }, () => Math.floor(random() * 2 ** 40));
  return { built: builtSearch(terms, { offsets, slots, bitmaps }, { ids, idEnds, putSeqs, logLength: Math.floor(random() * 1e9) }), words };
}

/** Every array of a build, by name. */
function arraysOf(built: BuiltSearch): Record<string, Uint8Array | Uint16Array | Uint32Array | Float64Array> {
  const { terms } = built;
  return { units: terms.units, starts: terms.starts, hashes: terms.hashes, cells: terms.cells, offsets: built.offsets, slots: built.slots, bitmapTerms: built.bitmapTerms, bitmapCounts: built.bitmapCounts, bitmapWords: built.bitmapWords, ids: built.ids, idEnds: built.idEnds, putSeqs: built.putSeqs };
}

test(`compacted() copies a build into two buffers: the same arrays and lengths, the unused room zero (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 15; round++) {
    const where = `seed ${SEED}, round ${round}`;
    const { built, words } = randomBuild(random);
    const copy = compacted(built);
    const [from, to] = [arraysOf(built), arraysOf(copy)];
    const used: Record<string, number> = { units: built.terms.used, starts: built.terms.count, hashes: built.terms.count };
    for (const name of Object.keys(from)) {
      const [a, b] = [from[name]!, to[name]!];
      assert.equal(b.constructor, a.constructor, `${where}: ${name}`);
      assert.equal(b.length, a.length, `${where}: ${name} keeps its length (its room to grow)`);
      assert.notEqual(b.buffer, a.buffer, `${where}: ${name} is copied`);
      assert.equal(b.byteOffset % 8, 0, `${where}: ${name} starts on 8 bytes`);
      const end = used[name] ?? a.length;
      const bytes = (array: typeof a, from: number, to: number): Buffer => Buffer.from(array.buffer, array.byteOffset + from * array.BYTES_PER_ELEMENT, (to - from) * array.BYTES_PER_ELEMENT);
      assert.ok(bytes(b, 0, end).equals(bytes(a, 0, end)), `${where}: ${name}`);
      assert.ok(bytes(b, end, b.length).every((value) => value === 0), `${where}: ${name} past its ${end} used is zero`);
    }
    assert.deepEqual([copy.terms.used, copy.terms.count, copy.logLength], [built.terms.used, built.terms.count, built.logLength], where);
    const buffers = transferablesOf(copy);
    assert.equal(buffers.length, 2, `${where}: two buffers`);
    const events = copy.ids.buffer;
    assert.ok(copy.idEnds.buffer === events && copy.putSeqs.buffer === events, `${where}: the ids and seqs share a buffer`);
    for (const name of ['units', 'starts', 'hashes', 'cells', 'offsets', 'slots', 'bitmapTerms', 'bitmapCounts', 'bitmapWords']) assert.notEqual(to[name]!.buffer, events, `${where}: ${name} is not in the events' buffer`);
    const padded = (bytes: number): number => Math.ceil(bytes / 8) * 8;
    assert.equal(copy.putSeqs.byteOffset + padded(copy.putSeqs.byteLength), copy.idEnds.byteOffset, `${where}: the ends follow the seqs`);
    assert.equal(copy.idEnds.byteOffset + padded(copy.idEnds.byteLength), copy.ids.byteOffset, `${where}: the ids follow the ends`);
    for (const buffer of buffers) assert.ok(buffer.byteLength > 32 * 1024 * 1024, `${where}: each buffer large enough to be mapped on its own`);
    // The dictionary works on the copy: every word found under its id, and a new word added past the copied room.
    const terms = SearchTerms.fromParts(copy.terms);
    words.forEach((word, id) => assert.equal(terms.internWord(word), id, `${where}: ${word}`));
    assert.equal(terms.internWord('zz-new'), words.length, where);
    assert.deepEqual(terms.startingWith('w1').sort(), words.flatMap((word, id) => (word.startsWith('w1') ? [id] : [])).sort(), where);
    const [a, b] = [packedOf(built), packedOf(copy)];
    assert.deepEqual([...b.bitmaps.keys()], [...a.bitmaps.keys()], where);
    for (const [term, bitmap] of a.bitmaps) assert.deepEqual(slotsOf(b.bitmaps.get(term)!), slotsOf(bitmap), `${where}: term ${term}`);
    // 64 MiB of address space a round: given back now, not at a garbage collection the next rounds would force.
    for (const buffer of buffers) freeNow(buffer);
  }
});

test('releaseEvents() frees the ids and seqs of a compacted build at once, and only theirs', () => {
  const { built } = randomBuild(mulberry32(7));
  const copy = compacted(built);
  const { ids, idEnds, putSeqs, bitmapWords, slots } = copy;
  assert.ok(ids.length > 0);
  const kept = Object.entries(arraysOf(copy)).filter(([name]) => !['ids', 'idEnds', 'putSeqs'].includes(name));
  releaseEvents(copy);
  assert.deepEqual([ids.length, idEnds.length, putSeqs.length, ids.buffer.byteLength], [0, 0, 0, 0], 'the old views are detached from their freed buffer');
  for (const [name, array] of kept) assert.ok(array.buffer.byteLength > 0, `${name} stays`);
  assert.deepEqual([bitmapWords, slots], [copy.bitmapWords, copy.slots]);
  // A build whose ids share a buffer with what the index keeps: nothing is detached.
  const shared = new Uint32Array(8);
  const mixed = builtSearch(new SearchTerms(), { offsets: shared.subarray(0, 1), slots: shared.subarray(1, 2), bitmaps: new Map() }, { ids: new Uint8Array(shared.buffer, 8, 4), idEnds: shared.subarray(3, 4), putSeqs: new Float64Array(shared.buffer, 16, 1), logLength: 1 });
  releaseEvents(mixed);
  assert.equal(shared.length, 8);
  // Ids, ends and seqs not all in one buffer (as builtSearch leaves them, or two of them sharing one): nothing detached.
  const apart = (ids: Uint8Array, idEnds: Uint32Array, putSeqs: Float64Array): BuiltSearch => builtSearch(new SearchTerms(), { offsets: new Uint32Array(1), slots: new Uint32Array(0), bitmaps: new Map() }, { ids, idEnds, putSeqs, logLength: 1 });
  const two = new ArrayBuffer(16);
  for (const [name, built] of [
    ['each its own', apart(Uint8Array.from([97]), Uint32Array.from([1]), Float64Array.from([3]))],
    ['ids and ends in one', apart(new Uint8Array(two, 0, 1), new Uint32Array(two, 8, 1), Float64Array.from([3]))],
    ['ids and seqs in one', apart(new Uint8Array(two, 0, 1), Uint32Array.from([1]), new Float64Array(two, 8, 1))],
  ] as const) {
    const { ids, idEnds, putSeqs } = built;
    releaseEvents(built);
    assert.deepEqual([ids.length, idEnds.length, putSeqs.length], [1, 1, 1], name);
  }
});

test('compacted() makes a buffer as long as its arrays need past the least length', () => {
  const slots = new Uint32Array((33 * 1024 * 1024) / 4);
  slots[slots.length - 1] = 7;
  const built = builtSearch(new SearchTerms(), { offsets: Uint32Array.from([0, slots.length]), slots, bitmaps: new Map() }, { ids: new Uint8Array(0), idEnds: new Uint32Array(0), putSeqs: new Float64Array(0), logLength: 1 });
  const copy = compacted(built);
  assert.equal(copy.slots.length, slots.length);
  assert.equal(copy.slots[slots.length - 1], 7);
  assert.ok(copy.slots.buffer.byteLength >= copy.slots.byteOffset + slots.byteLength);
  for (const buffer of transferablesOf(copy)) freeNow(buffer);
});

test('freeNow() detaches a buffer: its views read as empty', () => {
  const array = new Float64Array(1000).fill(1);
  freeNow(array.buffer);
  assert.deepEqual([array.length, array.buffer.byteLength], [0, 0]);
});
