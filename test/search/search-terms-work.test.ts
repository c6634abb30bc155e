// SearchTerms' work, not only its answers (TERMS_WORK_SEED=n replays one): buckets read, units compared and table
// growths (terms.work) step by step against a model of the dictionary as documented: a bucket filed by one push until
// a lookup first needs it sorted, then kept sorted by a binary search per new term; a lookup reading the one bucket of
// its first two units (or each bucket of its first unit), a binary search and the matches; the arena, the id arrays
// and the cell table grown only when full. So a lookup in more buckets, a bucket sorted again, or a table grown early
// is seen even where the answers are the same. The same after a dictionary is handed over (parts, fromParts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SearchTerms, type TermsWork } from '../../src/search/search-terms.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['TERMS_WORK_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
/** Pieces of words: one unit or several, ASCII and not, NUL (a two-unit term in the bucket of a one-unit one), U+FFFF, a surrogate pair. */
const PIECES = ['a', 'b', 'ab', 'ba', 'z', '0', '\u0000', '\uffff', 'é', 'ß', '東', 'ka', '🎉', 'aa', 'c', 'ch', 'chem'];

/** The units a comparison of `a` with `b` reads (up to the first difference, else the shorter length), and its sign. */
function compared(a: string, b: string): { order: number; units: number } {
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return { order: a.charCodeAt(i) - b.charCodeAt(i), units: i + 1 };
  return { order: a.length - b.length, units: shorter };
}

interface Bucket {
  ids: number[];
  sorted: boolean;
}

/** The dictionary as documented, counting its work the same way. */
class TermsModel {
  readonly words: string[] = [];
  readonly #ids = new Map<string, number>();
  #buckets = new Map<string, Bucket>();
  #byFirst = new Map<number, Bucket[]>();
  /** Sizes of the arena (units), the id arrays and the cell table (two numbers a cell), as first made. */
  #unitsLength = 1 << 16;
  #used = 0;
  #idsLength = 1 << 12;
  #cellsLength = 1 << 14;
  work: TermsWork = { bucketsRead: 0, unitsCompared: 0, growths: 0 };

  intern(word: string): number {
    const known = this.#ids.get(word);
    if (known !== undefined) return known;
    if (this.#used + word.length > this.#unitsLength) {
      this.#unitsLength = Math.max(this.#used + word.length, 2 * this.#unitsLength);
      this.work.growths++;
    }
    if (this.words.length === this.#idsLength) {
      this.#idsLength *= 2;
      this.work.growths++;
    }
    const id = this.words.length;
    this.words.push(word);
    this.#ids.set(word, id);
    this.#used += word.length;
    this.#file(id);
    if (this.words.length * 4 > this.#cellsLength) {
      this.#cellsLength *= 2;
      this.work.growths++;
    }
    return id;
  }

  startingWith(prefix: string): number[] {
    if (prefix === '') return [];
    const buckets = prefix.length === 1 ? (this.#byFirst.get(prefix.charCodeAt(0)) ?? []) : [this.#buckets.get(prefix.slice(0, 2))];
    const out: number[] = [];
    for (const bucket of buckets) {
      if (bucket === undefined) continue;
      this.work.bucketsRead++;
      if (!bucket.sorted) {
        bucket.ids.sort((a, b) => this.#compare(this.words[a]!, this.words[b]!));
        bucket.sorted = true;
      }
      const { ids } = bucket;
      let low = 0;
      let high = ids.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (this.#compare(this.words[ids[middle]!]!, prefix) < 0) low = middle + 1;
        else high = middle;
      }
      for (let at = low; at < ids.length && this.#startsWith(this.words[ids[at]!]!, prefix); at++) out.push(ids[at]!);
    }
    return out;
  }

  /** A dictionary handed over: the same terms and tables, every bucket filed again in id order (unsorted), no work yet. */
  handedOver(): void {
    this.#buckets = new Map();
    this.#byFirst = new Map();
    this.words.forEach((_, id) => this.#file(id));
    this.work = { bucketsRead: 0, unitsCompared: 0, growths: 0 };
  }

  #file(id: number): void {
    const word = this.words[id]!;
    const key = word.length > 1 ? word.slice(0, 2) : `${word}\u0000`;
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { ids: [], sorted: false };
      this.#buckets.set(key, bucket);
      const first = word.charCodeAt(0);
      this.#byFirst.set(first, [...(this.#byFirst.get(first) ?? []), bucket]);
    }
    if (!bucket.sorted) {
      bucket.ids.push(id);
      return;
    }
    let low = 0;
    let high = bucket.ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#compare(this.words[bucket.ids[middle]!]!, word) < 0) low = middle + 1;
      else high = middle;
    }
    bucket.ids.splice(low, 0, id);
  }

  #compare(a: string, b: string): number {
    const { order, units } = compared(a, b);
    this.work.unitsCompared += units;
    return order;
  }

  #startsWith(word: string, prefix: string): boolean {
    if (word.length < prefix.length) return false;
    const { units } = compared(word.slice(0, prefix.length), prefix);
    this.work.unitsCompared += units;
    return word.startsWith(prefix);
  }
}

test(`SearchTerms reads, compares and grows exactly as the model of its buckets and tables (TERMS_WORK_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  let terms = new SearchTerms();
  const model = new TermsModel();
  const randomWord = (): string => {
    if (random() < 0.002) return 'long'.repeat(60 + below(100));
    let word = '';
    for (let n = 1 + below(6); n > 0; n--) word += PIECES[below(PIECES.length)];
    return word;
  };
  for (let step = 0; step < 12_000; step++) {
    const what = `step ${step} (TERMS_WORK_SEED=${SEED})`;
    const word = model.words.length > 0 && random() < 0.2 ? model.words[below(model.words.length)]! : randomWord();
    assert.equal(terms.internWord(word), model.intern(word), `${what}: the id of ${JSON.stringify(word)}`);
    if (random() < 0.15) {
      // Prefixes of known words (their buckets), of unknown ones, and again of the last one (a sorted bucket).
      const from = random() < 0.7 ? model.words[below(model.words.length)]! : randomWord();
      const prefix = from.slice(0, below(Math.min(from.length + 1, 5)));
      for (let again = random() < 0.3 ? 2 : 1; again > 0; again--) {
        assert.deepEqual(terms.startingWith(prefix), model.startingWith(prefix), `${what}: startingWith ${JSON.stringify(prefix)}`);
      }
    }
    if (step % 4000 === 3999) {
      // Handed to another thread and taken as they are: the same ids and answers, each bucket sorted again at its first lookup.
      terms = SearchTerms.fromParts(terms.parts());
      model.handedOver();
      assert.equal(terms.size, model.words.length, what);
    }
    assert.deepEqual(terms.work, model.work, what);
  }
  assert.ok(model.words.length > 4097, `${model.words.length} terms: the id arrays and the cells grew`);
  model.words.forEach((word, id) => assert.equal(terms.word(id), word, `the word of id ${id} (TERMS_WORK_SEED=${SEED})`));
});

test('SearchTerms grows its tables when full, not a term or a unit before', () => {
  const terms = new SearchTerms();
  // 4,096 terms fill the id arrays and half the cells: no growth; the next grows both.
  for (let n = 0; n < 4096; n++) terms.internWord(`w${n}`);
  assert.equal(terms.work.growths, 0);
  terms.internWord('w4096');
  assert.equal(terms.work.growths, 2);
  // 16 terms of 4,096 units fill an arena of 65,536: no growth; one more unit grows it.
  const full = new SearchTerms();
  for (let n = 0; n < 16; n++) full.internWord(String.fromCharCode(0x61 + n).repeat(4096));
  assert.equal(full.work.growths, 0);
  full.internWord('z');
  assert.equal(full.work.growths, 1);
  assert.equal(full.word(16), 'z');
  assert.equal(full.word(15), 'p'.repeat(4096));
});

test('SearchTerms: filing compares nothing until a lookup; a lookup reads only the buckets its first units name', () => {
  const terms = new SearchTerms();
  for (const word of ['chem', 'chemistry', 'c', 'cat', 'chef', 'ca', 'd']) terms.internWord(word);
  assert.deepEqual(terms.work, { bucketsRead: 0, unitsCompared: 0, growths: 0 });
  // Two units: the bucket `ch` alone (not `c`, not `ca`).
  assert.deepEqual(terms.startingWith('che').map((id) => terms.word(id)), ['chef', 'chem', 'chemistry']);
  assert.equal(terms.work.bucketsRead, 1);
  assert.deepEqual(terms.startingWith('cz'), []);
  assert.equal(terms.work.bucketsRead, 1, 'no bucket `cz`');
  // One unit: the buckets of `c` (ch, then c, then ca, in the order made), not `d`'s.
  assert.deepEqual(terms.startingWith('c').map((id) => terms.word(id)), ['chef', 'chem', 'chemistry', 'c', 'ca', 'cat']);
  assert.equal(terms.work.bucketsRead, 4);
  // A sorted bucket, asked again: the binary search and the matches only (no sort): `chemistry` vs `chem` reads 4 units
  // (`chem` itself, then `chemistry` up to `chem`, then nothing past the bucket's end).
  const before = terms.work.unitsCompared;
  assert.deepEqual(terms.startingWith('chem').map((id) => terms.word(id)), ['chem', 'chemistry']);
  // Binary search over [chef, chem, chemistry]: chem (4 units, equal), chef (4, f < m); then startsWith chem and chemistry (4 + 4).
  assert.equal(terms.work.unitsCompared - before, 16);
  // A shorter term after the matches ends them without a comparison.
  terms.internWord('chi');
  const withChi = terms.work.unitsCompared;
  assert.deepEqual(terms.startingWith('chemi').map((id) => terms.word(id)), ['chemistry']);
  // Binary search over [chef, chem, chemistry, chi]: chemistry (5 units), chem (4: shorter), then startsWith chemistry (5), chi (shorter: 0).
  assert.equal(terms.work.unitsCompared - withChi, 14);
});
