// SearchTerms against a brute-force model: one id per word, ids back to words, prefix lookups as a sorted filter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SearchTerms } from '../../src/search/search-terms.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['SEARCH_TERMS_SEED'] ?? Date.now() % 1_000_000);
const LETTERS = ['a', 'b', 'ab', 'ç', 'z', '1', '0', 'é', 'ab', '東'];

test(`SearchTerms: intern, word and startingWith match a model on 20,000 random words (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const terms = new SearchTerms();
  const model = new Map<string, number>();
  const randomWord = (): string => {
    let word = '';
    for (let n = 1 + Math.floor(random() * 5); n > 0; n--) word += LETTERS[Math.floor(random() * LETTERS.length)];
    return word;
  };
  for (let n = 0; n < 20_000; n++) {
    const word = randomWord();
    const id = terms.internWord(word);
    if (!model.has(word)) model.set(word, model.size);
    assert.equal(id, model.get(word), `seed ${SEED}: the id of ${word}`);
    // Lookups between additions: a sorted bucket must stay sorted as words come in.
    if (n % 97 === 0) {
      const prefix = randomWord().slice(0, 1 + Math.floor(random() * 3));
      const expected = [...model.keys()].filter((each) => each.startsWith(prefix)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      assert.deepEqual(terms.startingWith(prefix).map((each) => terms.word(each)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), expected, `seed ${SEED}: prefix ${prefix}`);
    }
  }
  assert.equal(terms.size, model.size);
  for (const [word, id] of model) assert.equal(terms.word(id), word);
});

test('SearchTerms.startingWith() finds nothing for an empty or unknown prefix', () => {
  const terms = new SearchTerms();
  terms.internWord('chemistry');
  assert.deepEqual(terms.startingWith(''), []);
  assert.deepEqual(terms.startingWith('x'), []);
  assert.deepEqual(terms.startingWith('chemistryx'), []);
  assert.deepEqual(terms.startingWith('c'), [0]);
});
