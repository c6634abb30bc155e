// scanTerms() and scanUtf8Terms() against searchWords(): the same words in the same order, as the same term ids, on
// seeded random text of every kind of character (`SEARCH_SCAN_SEED=n` replays a run).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchWords } from '../../src/search/search-words.js';
import { scanTerms, scanUtf8Terms } from '../../src/search/search-scan.js';
import { SearchTerms } from '../../src/search/search-terms.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['SEARCH_SCAN_SEED'] ?? Date.now() % 1_000_000);
/** Pieces of text: ASCII, accents precomposed and combining, ß and ẞ, Turkish İ, final ς, ligatures, full width, ½, CJK, kana, Hangul, emoji, punctuation. */
const PIECES = ['a', 'Z', 'chem', 'LAB', '2026', ' ', ', ', '-', '—', '.', 'é', 'e\u0301', 'Straße', 'ẞ', 'İstanbul', 'ΟΔΟΣ', 'ς', 'ﬁ', 'Ｃａｆｅ', '！', '½', '東京大学', 'でAI', 'カタカナ', '한국어', '🎉', 'Łódź', 'ǰ', '\u0307', 'Å', '\u00a8', 'ŉ', 'ﷺ', '\t', 'Ⅻ', '①'];
/**
 * Characters the scan reads without searchWords, of each UTF-8 length: ASCII letters, digits and punctuation at
 * the edges of their ranges (`/09:@[\`{~`), U+0080, Latin, Greek, Cyrillic, Thai and Devanagari (lead byte E0),
 * folds of several letters (`ß`, `Ⅷ` → viii), marks, a private-use character, U+FFFD and lone surrogates.
 */
const PLAIN = ['a', 'z', 'A', 'Z', '0', '9', '/', ':', '@', '[', '`', '{', '~', '\x7f', '\x00', ' ', '"', '\\', '\n', '\x80', 'é', 'Ñ', 'ω', 'Ж', 'ก', 'अ', 'ß', 'Ⅷ', 'ǆ', '\u0301', '\ue000', '\ufffd', '\ud800', '\udfff', '‥', '¡', 'ﬃ', 'İ', 'ſ'];

/** A random code point of any UTF-8 length (one in eight astral), lone surrogates included. */
function anyCharacter(random: () => number): string {
  const kind = random();
  if (kind < 0.25) return String.fromCharCode(Math.floor(random() * 0x80));
  if (kind < 0.5) return String.fromCharCode(0x80 + Math.floor(random() * 0x780));
  if (kind < 0.875) return String.fromCharCode(0x800 + Math.floor(random() * 0xf800));
  return String.fromCodePoint(0x10000 + Math.floor(random() * 0x100000));
}

/** A random text: mostly plain pieces (so many texts stay on the fast path), now and then any character at all. */
function randomText(random: () => number): string {
  let text = '';
  for (let parts = Math.floor(random() * 14); parts > 0; parts--) {
    const pick = random();
    if (pick < 0.6) text += PLAIN[Math.floor(random() * PLAIN.length)];
    else if (pick < 0.9) text += PIECES[Math.floor(random() * PIECES.length)];
    else text += anyCharacter(random);
  }
  return text;
}

/** The term ids of searchWords(text), interned in `terms` (after the scan, so an id the scan made twice shows). */
const expectedIds = (terms: SearchTerms, text: string): number[] => searchWords(text).map((word) => terms.internWord(word));

/** `text` as a JSON string literal: JSON.stringify's, or with more escaped (`\u00e9`, a pair as two `\u`, `\/`, `\t`). */
function literalOf(text: string, random: () => number): string {
  if (random() < 0.5) return JSON.stringify(text);
  let literal = '"';
  for (const char of text) {
    const must = char === '"' || char === '\\' || char < ' ' || /\p{Surrogate}/u.test(char);
    if (char === '/') literal += '\\/';
    else if (char === '\t' && random() < 0.5) literal += '\\t';
    else if (must || random() < 0.2) literal += [...Array(char.length).keys()].map((i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
    else literal += char;
  }
  return `${literal}"`;
}

const wordsOf = (terms: SearchTerms, text: string): string[] => {
  const ids: number[] = [];
  scanTerms(text, terms, ids);
  return ids.map((id) => terms.word(id));
};

test(`scanTerms() gives the term ids of searchWords(), on 2,000 random texts (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const terms = new SearchTerms();
  for (let n = 0; n < 2000; n++) {
    const text = randomText(random);
    const ids = [7, 7];
    scanTerms(text, terms, ids);
    assert.deepEqual(ids, [7, 7, ...expectedIds(terms, text)], `seed ${SEED}, text ${JSON.stringify(text)}: appended after what out held`);
  }
});

test(`scanUtf8Terms() reads a literal in the middle of a buffer as the same ids, escapes and all (seed ${SEED})`, () => {
  const random = mulberry32(SEED + 1);
  const terms = new SearchTerms();
  for (let n = 0; n < 1500; n++) {
    const text = randomText(random);
    const literal = literalOf(text, random);
    // Letters around the literal (a wrong bound reads them), in a view that starts inside its ArrayBuffer.
    const line = Buffer.from(`{"x":"ab","title":${literal},"y":"cd"}`);
    const whole = Buffer.alloc(line.length + 16);
    line.copy(whole, 9);
    const view = whole.subarray(3);
    const start = 6 + line.indexOf('"title":') + 9;
    const end = 6 + line.length - ',"y":"cd"}'.length - 1;
    const ids = [7];
    scanUtf8Terms(view, start, end, terms, ids);
    assert.deepEqual(ids, [7, ...expectedIds(terms, text)], `seed ${SEED}, literal ${literal}`);
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
  assert.deepEqual(wordsOf(terms, 'a:b@c[d`e{f~g/h 09'), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', '09']);
  assert.deepEqual(wordsOf(terms, 'Ⅷ ǆ ﬃ‥x ก อ'), ['viii', 'dz', 'ffi', 'x', 'ก', 'อ']);
  assert.deepEqual(wordsOf(terms, 'a\ud800b\ufffdc 🎉d'), ['a', 'b', 'c', 'd'], 'a lone surrogate, U+FFFD and an emoji separate words');
});
