// scanTerms() against searchWords(): the same words in the same order, on seeded random text of every kind of character.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchWords } from '../../../src/lib/search-words.js';
import { scanTerms } from '../../../src/store/views/search-scan.js';
import { SearchTerms } from '../../../src/store/views/search-terms.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['SEARCH_SCAN_SEED'] ?? Date.now() % 1_000_000);
/** Pieces of text: ASCII, accents precomposed and combining, ß and ẞ, Turkish İ, final ς, ligatures, full width, ½, CJK, kana, Hangul, emoji, punctuation. */
const PIECES = ['a', 'Z', 'chem', 'LAB', '2026', ' ', ', ', '-', '—', '.', 'é', 'e\u0301', 'Straße', 'ẞ', 'İstanbul', 'ΟΔΟΣ', 'ς', 'ﬁ', 'Ｃａｆｅ', '！', '½', '東京大学', 'でAI', 'カタカナ', '한국어', '🎉', 'Łódź', 'ǰ', '\u0307', 'Å', '\u00a8', 'ŉ', 'ﷺ', '\t', 'Ⅻ', '①'];

const wordsOf = (terms: SearchTerms, text: string): string[] => {
  const ids: number[] = [];
  scanTerms(text, terms, ids);
  return ids.map((id) => terms.word(id));
};

test(`scanTerms() gives the words searchWords() gives, on 3,000 random texts (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const terms = new SearchTerms();
  for (let n = 0; n < 3000; n++) {
    let text = '';
    for (let parts = Math.floor(random() * 12); parts > 0; parts--) text += PIECES[Math.floor(random() * PIECES.length)];
    assert.deepEqual(wordsOf(terms, text), searchWords(text), `seed ${SEED}, text ${JSON.stringify(text)}`);
  }
});

test('scanTerms() folds case and accents and splits on separators without the slow path', () => {
  const terms = new SearchTerms();
  assert.deepEqual(wordsOf(terms, 'Organic Chemistry — Laboratory'), ['organic', 'chemistry', 'laboratory']);
  assert.deepEqual(wordsOf(terms, 'Café e\u0301te\u0301 STRASSE Straße'), ['cafe', 'ete', 'strasse', 'strasse']);
  const [upper, sharp]: [number[], number[]] = [[], []];
  scanTerms('STRASSE', terms, upper);
  scanTerms('Straße', terms, sharp);
  assert.deepEqual(upper, sharp, 'one term, one id');
  assert.deepEqual(wordsOf(terms, '東京大学 2026'), ['東', '京', '大', '学', '2026']);
  assert.deepEqual(wordsOf(terms, '--!!'), []);
});
