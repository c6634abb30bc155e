// SearchTerms against a Map of words over seeded random steps (TERMS_SEED=n replays one): words of any UTF-16 units
// (NUL, lone surrogates, U+FFFF, words longer than the shared buffer), interned as strings or as unit buffers with
// other units past their end; prefix lookups give each bucket of two first units sorted, buckets in the order made.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FNV_OFFSET, FNV_PRIME, grown, hashUnits } from '../../src/search/search-hash.js';
import { SearchTerms } from '../../src/search/search-terms.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['TERMS_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
/** Pieces of words: one unit or several, ASCII and not, the extremes of a unit, a surrogate pair (an emoji) and its halves. */
const PIECES = ['a', 'b', 'ab', 'ba', 'z', '0', '9', '\u0000', '\uffff', 'é', 'ß', 'ı', '東', '京', 'ka', '🎉', '\ud83c', '\udf89', 'aa'];

const byUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** The bucket a word sorts in: its first two units (the second 0 for a word of one). */
const bucketOf = (word: string): number => word.charCodeAt(0) * 0x10000 + (word.length > 1 ? word.charCodeAt(1) : 0);

/** What startingWith should give, from the words in the order first met: each bucket sorted, buckets as first met. */
function expectedStartingWith(words: readonly string[], prefix: string): string[] {
  if (prefix === '') return [];
  const buckets = new Map<number, string[]>();
  for (const word of words) {
    const key = bucketOf(word);
    if (!buckets.has(key)) buckets.set(key, []);
    if (word.startsWith(prefix)) buckets.get(key)!.push(word);
  }
  const first = prefix.charCodeAt(0);
  const wanted = [...buckets].filter(([key]) => (prefix.length === 1 ? Math.floor(key / 0x10000) === first : key === bucketOf(prefix)));
  return wanted.flatMap(([, each]) => each.sort(byUnits));
}

function unitsOf(word: string, extra: number, random: () => number): Uint16Array {
  const units = new Uint16Array(word.length + extra);
  for (let i = 0; i < word.length; i++) units[i] = word.charCodeAt(i);
  // Units past the end that a lookup must not read.
  for (let i = word.length; i < units.length; i++) units[i] = 1 + Math.floor(random() * 0xfffe);
  return units;
}

test(`SearchTerms answers as a Map of words: ids, words, size and prefix lookups (TERMS_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const terms = new SearchTerms();
  const model = new Map<string, number>();
  const words: string[] = [];
  const randomWord = (): string => {
    // Now and then a long word (past the 256 units of the shared buffer, past 512 too), else one to five pieces.
    if (random() < 0.002) return 'long'.repeat(60 + below(100)) + PIECES[below(PIECES.length)];
    let word = '';
    for (let n = 1 + below(5); n > 0; n--) word += PIECES[below(PIECES.length)];
    return word;
  };
  for (let step = 0; step < 12_000; step++) {
    const what = `seed ${SEED}, step ${step}`;
    // Most words new, some met before (picked from those known, to find them again among many).
    const word = words.length > 0 && random() < 0.3 ? words[below(words.length)]! : randomWord();
    let id: number;
    if (random() < 0.5) id = terms.internWord(word);
    else {
      const units = unitsOf(word, below(3), random);
      id = random() < 0.5 ? terms.intern(units, word.length) : terms.intern(units, word.length, hashUnits(units, word.length));
    }
    if (!model.has(word)) {
      model.set(word, model.size);
      words.push(word);
    }
    assert.equal(id, model.get(word), `${what}: the id of ${JSON.stringify(word)}`);
    assert.equal(terms.size, model.size, `${what}: size`);
    if (step % 50 === 0) {
      const known = words[below(words.length)]!;
      assert.equal(terms.word(model.get(known)!), known, `${what}: the word of id ${model.get(known)}`);
    }
    // Lookups between additions: a bucket sorted for one must stay sorted as words come in.
    if (step % 29 === 0) {
      const from = random() < 0.7 ? words[below(words.length)]! : randomWord();
      const prefix = from.slice(0, 1 + below(Math.min(from.length + 1, 4)));
      const found = terms.startingWith(prefix).map((each) => terms.word(each));
      assert.deepEqual(found, expectedStartingWith(words, prefix), `${what}: startingWith ${JSON.stringify(prefix)}`);
    }
  }
  for (const [word, id] of model) assert.equal(terms.word(id), word, `seed ${SEED}: the word of id ${id}`);
});

test('SearchTerms.startingWith(): a prefix longer than a term, equal to one, or between two', () => {
  const terms = new SearchTerms();
  for (const word of ['chem', 'chemistry', 'chef', 'check', 'c', 'ch', 'chemis', 'cheese']) terms.internWord(word);
  const words = (prefix: string): string[] => terms.startingWith(prefix).map((id) => terms.word(id));
  assert.deepEqual(words('chem'), ['chem', 'chemis', 'chemistry']);
  assert.deepEqual(words('chemi'), ['chemis', 'chemistry']);
  assert.deepEqual(words('chemistryx'), []);
  assert.deepEqual(words('chd'), []);
  assert.deepEqual(words('che'), ['check', 'cheese', 'chef', 'chem', 'chemis', 'chemistry']);
  assert.deepEqual(words('ch'), ['ch', 'check', 'cheese', 'chef', 'chem', 'chemis', 'chemistry']);
  // One unit: the bucket of `ch` (made first, by `chem`), then that of the one-unit `c`.
  assert.deepEqual(words('c'), ['ch', 'check', 'cheese', 'chef', 'chem', 'chemis', 'chemistry', 'c']);
  // Added after a lookup sorted the bucket: in its place, at the front, in the middle and at the end.
  for (const word of ['cha', 'chez', 'chemist', 'chemistryy']) terms.internWord(word);
  assert.deepEqual(words('ch'), ['ch', 'cha', 'check', 'cheese', 'chef', 'chem', 'chemis', 'chemist', 'chemistry', 'chemistryy', 'chez']);
  assert.deepEqual(words('chemist'), ['chemist', 'chemistry', 'chemistryy']);
});

test('SearchTerms: a term is found again only under the hash it was added with (the hash is compared before the units)', () => {
  const terms = new SearchTerms();
  const units = new Uint16Array([0x61, 0x62, 0x63]);
  const hash = hashUnits(units, 3);
  assert.equal(terms.intern(units, 3, hash), 0);
  assert.equal(terms.intern(units, 3, hash), 0);
  // Another hash that starts at the same cell of the table (same low bits): a miss, so a new term.
  assert.equal(terms.intern(units, 3, (hash ^ 0x40000000) >>> 0), 1);
  assert.equal(terms.size, 2);
  // Equal hashes, different units (a prefix of the term, then the term with one more unit): different terms.
  assert.equal(terms.intern(new Uint16Array([0x61, 0x62, 0x63, 0x64]), 2, hash), 2);
  assert.equal(terms.word(2), 'ab');
  assert.equal(terms.intern(new Uint16Array([0x61, 0x62, 0x63, 0x64]), 4, hash), 3);
  assert.equal(terms.intern(new Uint16Array([0x61, 0x62, 0x64]), 3, hash), 4);
  assert.deepEqual([0, 1, 2, 3, 4].map((id) => terms.word(id)), ['abc', 'abc', 'ab', 'abcd', 'abd']);
});

test('hashUnits() is 32-bit FNV-1a over UTF-16 units from the process\'s start, finished by murmur3\'s mix, as a BigInt reference computes it', () => {
  const reference = (units: Uint16Array, length: number): number => {
    let hash = BigInt(FNV_OFFSET);
    for (let i = 0; i < length; i++) hash = ((hash ^ BigInt(units[i]!)) * 0x01000193n) & 0xffffffffn;
    hash ^= hash >> 16n;
    hash = (hash * 0x85ebca6bn) & 0xffffffffn;
    hash ^= hash >> 13n;
    hash = (hash * 0xc2b2ae35n) & 0xffffffffn;
    return Number(hash ^ (hash >> 16n));
  };
  assert.equal(FNV_PRIME, 0x01000193);
  const random = mulberry32(SEED);
  for (let n = 0; n < 200; n++) {
    const units = new Uint16Array(1 + Math.floor(random() * 20)).map(() => Math.floor(random() * 0x10000));
    const length = Math.floor(random() * (units.length + 1));
    assert.equal(hashUnits(units, length), reference(units, length), `seed ${SEED}: ${units.join(',')} (${length})`);
  }
  assert.equal(hashUnits(new Uint16Array(0), 0), reference(new Uint16Array(0), 0));
});

test('grown() copies a typed array of the same kind into one at least twice as long, or as long as asked', () => {
  const small = Uint16Array.of(1, 2, 3);
  const double = grown(small, 4);
  assert.ok(double instanceof Uint16Array);
  assert.deepEqual([...double], [1, 2, 3, 0, 0, 0]);
  const asked = grown(Uint32Array.of(7, 0xffffffff), 9);
  assert.ok(asked instanceof Uint32Array);
  assert.deepEqual([...asked], [7, 0xffffffff, 0, 0, 0, 0, 0, 0, 0]);
  const signed = grown(Int32Array.of(-5), 1);
  assert.ok(signed instanceof Int32Array);
  assert.deepEqual([...signed], [-5, 0]);
  assert.equal(small.length, 3, 'the original is left as it was');
});

test('SearchTerms grows past its first sizes: a first term of 150,000 units, then 10,000 terms, all found again', () => {
  const terms = new SearchTerms();
  // First a term longer than twice the first arena (65,536 units): the arena grows to hold it, not only doubles.
  const long = 'ab'.repeat(75_000);
  const words = [long, ...Array.from({ length: 10_000 }, (_, n) => `w${n.toString(36)}${'x'.repeat(n % 30)}`)];
  words.forEach((word, id) => assert.equal(terms.internWord(word), id, word.slice(0, 20)));
  assert.equal(terms.size, words.length);
  words.forEach((word, id) => assert.equal(terms.internWord(word), id, `${word.slice(0, 20)} again`));
  for (const id of [1, 2, 5_000, 10_000]) assert.equal(terms.word(id), words[id]);
  assert.deepEqual(terms.startingWith('abab'), [0]);
  assert.deepEqual(terms.startingWith(long), [0]);
  assert.deepEqual(terms.startingWith(long + 'a'), []);
  assert.equal(terms.size, words.length);
});
