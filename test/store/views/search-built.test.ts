// A search index built away from the main thread, as handed over: what goes in (a dictionary, packed runs, bitmaps,
// the events' ids and seqs) comes out the same on the other side, its bitmaps cut to the events it holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtSearch, packedOf, releaseEvents, transferablesOf } from '../../../src/store/views/search-built.js';
import type { PackedPostings } from '../../../src/store/views/search-posting-table.js';
import { SlotBitmap } from '../../../src/store/views/search-postings.js';
import { SearchTerms } from '../../../src/store/views/search-terms.js';
import { mulberry32 } from '../../helpers/random.js';

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
