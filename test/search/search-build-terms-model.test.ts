// The start-up build's way (BuildTerms counting each term once an event, BulkPostings.addDistinct, countsFrom)
// against the main thread's (SearchTerms, BulkPostings.add): random events of random texts (Latin-1 words short and
// long, other scripts, CJK that sends a scan to searchWords midway, repeats) scanned both ways must give the same
// ids, the same dictionary arrays and the same packed postings, some events dropped by relabel. Seed:
// SEARCH_BUILD_TERMS_SEED=n.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BuildTerms } from '../../src/search/search-build-terms.js';
import { BulkPostings, DROPPED } from '../../src/search/search-bulk.js';
import { TermList } from '../../src/search/search-hash.js';
import { scanUtf8Terms } from '../../src/search/search-scan.js';
import { SearchTerms } from '../../src/search/search-terms.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['SEARCH_BUILD_TERMS_SEED'] ?? Date.now() % 1_000_000);
const SYLLABLES = ['la', 'b', 'chem', 'ie', 'é', 'ü', 'ß', 'Ł', 'ód', 'σο', 'φι', 'x', 'yo', 'ga', '2026'];
const ODD = ['東京', '🎉', 'ﬁ', '½'];

type Random = () => number;

/** A word of 1 to 12 syllables (up to about 40 units), or one of a few the slow path must read. */
function word(random: Random): string {
  if (random() < 0.02) return ODD[Math.floor(random() * ODD.length)]!;
  // Skewed: a few syllables often, so words repeat within and across events.
  const length = 1 + Math.floor(random() ** 3 * 12);
  return Array.from({ length }, () => SYLLABLES[Math.floor(random() ** 2 * SYLLABLES.length)]!).join('');
}

/** The UTF-8 bytes of a JSON string literal of a few random words. */
const literal = (random: Random): Buffer => Buffer.from(JSON.stringify(Array.from({ length: Math.floor(random() * 9) }, () => word(random)).join(random() < 0.8 ? ' ' : ', ')));

test('the build dictionary with addDistinct gives the ids, dictionary and packed postings of SearchTerms with add', () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 6; round++) {
    const what = `seed ${SEED}, round ${round}`;
    const built = new BuildTerms(0.5 + random() * 0.4, 1 << Math.floor(random() * 6));
    const terms = new SearchTerms();
    const chunk = 8 << Math.floor(random() * 6);
    const [ours, theirs] = [new BulkPostings(chunk), new BulkPostings(chunk)];
    const events = 100 + Math.floor(random() * 600);
    const relabel = new Uint32Array(events).fill(DROPPED);
    let live = 0;
    for (let event = 0; event < events; event++) {
      const texts = Array.from({ length: 1 + Math.floor(random() * 4) }, () => literal(random));
      // A TermList, as the worker collects into; the main thread's way into an array.
      const mine = new TermList();
      const expected: number[] = [];
      built.startEvent();
      for (const text of texts) {
        scanUtf8Terms(text, 1, text.length - 1, built, mine);
        scanUtf8Terms(text, 1, text.length - 1, terms, expected);
      }
      assert.deepEqual([...mine.ids.subarray(0, mine.length)], [...new Set(expected)], `${what}, event ${event}: each term once, in the order first met`);
      ours.addDistinct(event, mine.ids, mine.length);
      theirs.add(event, expected);
      if (random() < 0.85) relabel[event] = live++;
    }
    const [a, b] = [built.parts(), terms.parts()];
    assert.equal(a.count, b.count, what);
    assert.deepEqual(a.units.subarray(0, a.used), b.units.subarray(0, b.used), what);
    assert.deepEqual(a.starts.subarray(0, a.count), b.starts.subarray(0, b.count), what);
    assert.deepEqual(a.hashes.subarray(0, a.count), b.hashes.subarray(0, b.count), what);
    assert.deepEqual(a.cells, b.cells, what);
    ours.countsFrom(built.counts());
    ours.relabel(relabel);
    theirs.relabel(relabel);
    const [packedOurs, packedTheirs] = [ours.pack(built.size, live), theirs.pack(terms.size, live)];
    assert.deepEqual(packedOurs.offsets, packedTheirs.offsets, what);
    assert.deepEqual(packedOurs.slots, packedTheirs.slots, what);
    assert.deepEqual([...packedOurs.bitmaps.keys()], [...packedTheirs.bitmaps.keys()], what);
    for (const [term, bitmap] of packedOurs.bitmaps) {
      assert.equal(bitmap.count, packedTheirs.bitmaps.get(term)!.count, what);
      assert.deepEqual(bitmap.words, packedTheirs.bitmaps.get(term)!.words, what);
    }
  }
});
