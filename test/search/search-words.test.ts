// foldText, searchWords and queryWords: what a word of `q` is (API.md §5), case and accents aside.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldText, queryWords, searchWords } from '../../src/search/search-words.js';

test('foldText() drops accents and case: é is e, Å is a', () => {
  assert.equal(foldText('Café Crème'), 'cafe creme');
  assert.equal(foldText('Résumé Ångström'), 'resume angstrom');
});

test('foldText() takes apart the letters NFKD leaves whole: Ł is l, Ø is o, Đ is d, Æ is ae, Œ is oe', () => {
  assert.equal(foldText('Łódź'), 'lodz');
  assert.equal(foldText('Søren Ørsted'), 'soren orsted');
  assert.equal(foldText('Đakovo'), 'dakovo');
  assert.equal(foldText('Encyclopædia Æther'), 'encyclopaedia aether');
  assert.equal(foldText('Chœur ŒUVRE'), 'choeur oeuvre');
  assert.deepEqual(queryWords('choeur'), searchWords('Chœur'));
});

test('searchWords() makes each letter that the root collation equates with ASCII at base strength exactly that word', () => {
  // Intl.Collator (ICU's root order) at base strength ignores case and accents; for the Latin and phonetic blocks,
  // a letter it equates with an ASCII letter or pair must be exactly that word (`ŀ` folds to `l·`, the word `l`).
  const collator = new Intl.Collator('und', { sensitivity: 'base', usage: 'search' });
  const candidates = [...'abcdefghijklmnopqrstuvwxyz', 'ae', 'oe', 'dz', 'th', 'ss'];
  const blocks: [number, number][] = [[0x80, 0x2af], [0x1d00, 0x1dbf], [0x1e00, 0x1eff], [0x2100, 0x214f]];
  const missed: string[] = [];
  for (const [from, to] of blocks) {
    for (let codePoint = from; codePoint <= to; codePoint++) {
      const letter = String.fromCodePoint(codePoint);
      if (!/\p{L}/u.test(letter)) continue;
      const equal = candidates.find((ascii) => collator.compare(letter, ascii) === 0);
      const words = searchWords(letter).join(' ');
      if (equal !== undefined && words !== equal) missed.push(`${letter} (U+${codePoint.toString(16)}) is the word "${words}", the collation says "${equal}"`);
    }
  }
  assert.deepEqual(missed, []);
});

test('foldText() folds ß to ss, and ẞ as well, as full case folding does', () => {
  assert.equal(foldText('Straße'), 'strasse');
  assert.equal(foldText('STRAẞE'), 'strasse');
  assert.deepEqual(searchWords('Großer Hörsaal'), ['grosser', 'horsaal']);
});

test('foldText() folds Turkish dotted İ to i (and dotless ı too), so İstanbul, ISTANBUL and istanbul agree', () => {
  assert.equal(foldText('İstanbul'), 'istanbul');
  assert.equal(foldText('ISTANBUL'), 'istanbul');
  assert.equal(foldText('ıstanbul'), 'istanbul');
});

test('foldText() folds compatibility forms and the final sigma: ﬁ, ², Ⅻ, ς', () => {
  assert.equal(foldText('ﬁnal'), 'final');
  assert.equal(foldText('x²'), 'x2');
  assert.equal(foldText('Ⅻ'), 'xii');
  assert.equal(foldText('ΣΟΦΟΣ'), foldText('σοφος'));
});

test('foldText() is idempotent on mixed scripts', () => {
  for (const text of ['Straße İstanbul', '東京大学でAI', '한국어 수업', 'ΣΟΦΟΣ', 'ǰ ŉ ﬀ', 'Ελληνικά café']) assert.equal(foldText(foldText(text)), foldText(text), text);
});

test('searchWords() makes each CJK ideograph a word, so 京 starts a word of 東京大学', () => {
  assert.deepEqual(searchWords('東京大学'), ['東', '京', '大', '学']);
  assert.deepEqual(searchWords('東京大学でAIの講義'), ['東', '京', '大', '学', 'て', 'ai', 'の', '講', '義']);
  assert.deepEqual(queryWords('京'), ['京']);
});

test('searchWords() keeps a Korean word whole (its syllables are not split into letters)', () => {
  assert.deepEqual(searchWords('한국어 수업'), ['한국어', '수업']);
});

test('searchWords() splits on emoji, punctuation and spaces, which are never words', () => {
  assert.deepEqual(searchWords('yoga🧘class — 🎉 party!'), ['yoga', 'class', 'party']);
  assert.deepEqual(searchWords('Organic Chemistry — Laboratory'), ['organic', 'chemistry', 'laboratory']);
  assert.deepEqual(searchWords('rock\'n\'roll, e-mail'), ['rock', 'n', 'roll', 'e', 'mail']);
});

test('searchWords() keeps digits, alone and inside words: 2026, room 101b', () => {
  assert.deepEqual(searchWords('Spring 2026: room 101b'), ['spring', '2026', 'room', '101b']);
  assert.deepEqual(queryWords('2026'), ['2026']);
});

test('queryWords() is empty for punctuation or emoji alone (the route answers 400)', () => {
  for (const q of ['--', '!!!', ' ', '🎉🧘', '.,;:', '\u200d']) assert.deepEqual(queryWords(q), [], q);
});

test('queryWords() drops repeats and words that start another query word', () => {
  assert.deepEqual(queryWords('chem Chemistry CHEM lab'), ['chemistry', 'lab']);
  assert.deepEqual(queryWords('ß ss'), ['ss']);
});
