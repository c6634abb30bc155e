// foldText, searchWords and queryWords against the obvious implementation over seeded random texts (WORDS_SEED=n
// replays one): the whole text normalised and case-mapped at once, split code point by code point. The texts mix
// ASCII, accents (precomposed and combining), ß/ẞ, Turkish İ/ı, final sigma, compatibility forms, CJK, kana, Hangul
// (syllables and loose jamo), emoji, joiners and lone surrogates.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldCacheSize, foldCodePoint, foldText, queryWords, searchWords } from '../../src/search/search-words.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['WORDS_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const PIECES = [
  'a', 'Z', 'Chem', 'LAB', '0', '42', ' ', '  ', '-', '.', ',', "'", '!', '\t', '\n', '_', '~', '\u007f', '\u0000',
  'é', 'É', 'e\u0301', '\u0301', 'Å', 'Ł', 'ñ', 'Ç', 'ø', 'Œ', 'æ', 'Ǣ', 'ß', 'ẞ', 'İ', 'ı', 'I', 'Σ', 'σ', 'ς', 'ΣΟΦΟΣ', 'ǰ', 'ŉ',
  'ﬁ', 'ﬀ', '²', 'Ⅻ', 'Ａ', '１', 'ｶ', '٣', 'Ж', 'ж', 'ǅ', 'ᾼ', 'ﷺ', 'µ',
  '東', '京', '大学', 'で', 'カタカナ', 'ひらがな', 'が', '한국어', '수업', '\u1112', '\u1161', '\u11ab',
  '\uffff', '\u0080', '🎉', '🧘', '👩\u200d🔬', '\u200d', '\ud83c', '\udf89', '\u2028', '\ufeff', '𝐀', '𝟙',
];

type Random = () => number;

function randomText(random: Random): string {
  let text = '';
  for (let n = Math.floor(random() * 12); n > 0; n--) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

const MARKS = /\p{M}/gu;
/** The whole text at once: NFKD, marks out, upper then lower case, marks out, σ and ss, Hangul put back together. */
function modelFold(text: string): string {
  const folded = foldedApart(text);
  return /[\u1100-\u11ff]/.test(folded) ? folded.normalize('NFC') : folded;
}

/** Letters NFKD leaves whole, as the root collation reads them at base strength. */
const WHOLE_LETTERS: [string, string][] = [['æ', 'ae'], ['ð', 'd'], ['ø', 'o'], ['đ', 'd'], ['ħ', 'h'], ['ł', 'l'], ['œ', 'oe'], ['ʣ', 'dz'], ['ᵹ', 'g'], ['ᵺ', 'th'], ['ᶞ', 'd']];

/** The same, Hangul left in letters (jamo). */
const foldedApart = (text: string): string =>
  WHOLE_LETTERS.reduce(
    (folded, [letter, base]) => folded.replaceAll(letter, base),
    text.normalize('NFKD').replace(MARKS, '').toUpperCase().toLowerCase().replace(MARKS, '').replaceAll('ς', 'σ').replaceAll('ß', 'ss'),
  );

const IDEOGRAPH = /^\p{Ideographic}$/u;
const KANA = /^[\p{Script=Hiragana}\p{Script=Katakana}]$/u;
const WORD_CHARACTER = /^[\p{L}\p{N}]$/u;

/** Code point by code point: a letter or digit joins the word being read unless it is an ideograph or its kana-ness changes. */
function modelWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let kind = '';
  for (const character of modelFold(text)) {
    const next = !WORD_CHARACTER.test(character) ? 'none' : IDEOGRAPH.test(character) ? 'ideograph' : KANA.test(character) ? 'kana' : 'other';
    if (word !== '' && (next !== kind || next === 'ideograph')) {
      words.push(word);
      word = '';
    }
    kind = next;
    if (next !== 'none') word += character;
  }
  if (word !== '') words.push(word);
  return words;
}

/** Distinct words, none the start of another; longest first, then in the order of their units. */
function modelQuery(q: string): string[] {
  const words = [...new Set(modelWords(q))];
  return words
    .filter((word) => !words.some((other) => other !== word && other.startsWith(word)))
    .sort((a, b) => (a.length !== b.length ? b.length - a.length : a < b ? -1 : a > b ? 1 : 0));
}

test(`foldText, searchWords and queryWords match folding the whole text at once (WORDS_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let n = 0; n < 3_000; n++) {
    const text = randomText(random);
    const what = `seed ${SEED}, text ${n} ${JSON.stringify(text)}`;
    assert.equal(foldText(text), modelFold(text), `${what}: foldText`);
    assert.deepEqual(searchWords(text), modelWords(text), `${what}: searchWords`);
    assert.deepEqual(queryWords(text), modelQuery(text), `${what}: queryWords`);
  }
});

test(`foldCodePoint() folds each code point as the whole-text fold does (Hangul in jamo), astral ones included (WORDS_SEED=${SEED})`, () => {
  const random = mulberry32(SEED + 1);
  // Every code point of the Latin, Greek and Cyrillic blocks and of some of CJK, kana and Hangul; and random ones.
  const codePoints = [...Array.from({ length: 0x530 - 0x80 }, (_, n) => 0x80 + n), ...Array.from({ length: 400 }, () => 0x80 + Math.floor(random() * (0x10ffff - 0x80)))];
  for (const codePoint of codePoints) {
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
    const character = String.fromCodePoint(codePoint);
    // Twice: computed, then from the cache.
    assert.equal(foldCodePoint(codePoint), foldedApart(character), `seed ${SEED}: U+${codePoint.toString(16)}`);
    assert.equal(foldCodePoint(codePoint), foldedApart(character), `seed ${SEED}: U+${codePoint.toString(16)} again`);
    assert.equal(foldText(character), modelFold(character), `seed ${SEED}: U+${codePoint.toString(16)} as a text`);
  }
});

test('foldText() on ASCII only lower-cases; on ASCII around other letters it lower-cases each ASCII run', () => {
  assert.equal(foldText('ABC xyz 09 !?'), 'abc xyz 09 !?');
  assert.equal(foldText('ABé'), 'abe');
  assert.equal(foldText('éAB'), 'eab');
  assert.equal(foldText('AéBéC'), 'aebec');
  assert.equal(foldText('X🎉Y'), 'x🎉y');
  assert.equal(foldText('🎉🎉A'), '🎉🎉a');
  assert.equal(foldText('A\u{1D400}B'), 'aab', 'an astral letter (mathematical bold A) is read as one code point');
  assert.equal(foldText(''), '');
  assert.equal(foldText('A\uffffB'), 'a\uffffb', 'U+FFFF is one unit: the B after it is read');
});

test('searchWords(): ASCII words are runs of letters and digits; a text with none has no words', () => {
  assert.deepEqual(searchWords('Hello, World_42!'), ['hello', 'world', '42']);
  assert.deepEqual(searchWords(''), []);
  assert.deepEqual(searchWords('--- ...'), []);
  assert.deepEqual(searchWords('🎉 — 🎉'), []);
  assert.deepEqual(searchWords('Ünïcödé'), ['unicode']);
  assert.deepEqual(searchWords('Москва 2026'), ['москва', '2026']);
  assert.deepEqual(searchWords('カタカナとひらがな東京'), ['カタカナとひらかな', '東', '京'], 'a run of kana, either kind, is one word');
});

test('queryWords(): longest first, ties in the order of their units', () => {
  assert.deepEqual(queryWords('bb aa cc a'), ['aa', 'bb', 'cc']);
  assert.deepEqual(queryWords('lab laboratory labs'), ['laboratory', 'labs']);
  assert.deepEqual(queryWords('x'), ['x']);
  assert.deepEqual(queryWords('b a'), ['a', 'b']);
});

test('the cache of folded code points stops at 65,536 and still folds the ones past it', () => {
  const before = foldCacheSize();
  assert.ok(before < 65_536, `${before} cached before`);
  // Every code point of the planes 1 and 2 not yet cached (CJK extensions, scripts, emoji): well past the bound.
  for (let codePoint = 0x10000; codePoint < 0x10000 + 70_000; codePoint++) foldCodePoint(codePoint);
  assert.equal(foldCacheSize(), 65_536);
  assert.equal(foldCodePoint(0x2f800 + 1_000), modelFold(String.fromCodePoint(0x2f800 + 1_000)), 'past the bound: folded, not cached');
  assert.equal(foldCodePoint(0x1d400), 'a', 'cached before the bound: still there');
  assert.equal(foldCacheSize(), 65_536);
});
