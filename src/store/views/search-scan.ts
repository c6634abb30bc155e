// Folds and splits a text into term ids in one pass over its characters, without a string per word: the words
// searchWords gives, for the text search-words.ts calls plain; any other text is left to searchWords itself.
import { foldCodePoint, searchWords } from '../../lib/search-words.js';
import type { SearchTerms } from './search-terms.js';

/** What a UTF-16 unit is to the scan: not yet known, a separator, nothing (a mark), letters, or a reason to leave it to searchWords. */
const UNKNOWN = 0;
const SEPARATOR = 1;
const DROPPED = 2;
const LETTERS = 3;
const SLOW = 4;

const kinds = new Uint8Array(0x10000);
/** The fold of a LETTERS unit when it is one unit (0 when it is more: see longFolds). */
const shortFolds = new Uint16Array(0x10000);
const longFolds = new Map<number, string>();
/** The most units one code point folds to (U+FDFA folds to 18). */
const MAX_FOLD = 32;

const WORD_CHAR = /^[\p{L}\p{N}]$/u;
/** Letters searchWords splits further (CJK, kana) or puts back together (Hangul jamo): a text with one takes the slow path. */
const SPECIAL = /^[\p{Ideographic}\p{Script=Hiragana}\p{Script=Katakana}\u1100-\u11ff]$/u;

for (let unit = 0; unit < 0x80; unit++) {
  const lower = unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit;
  const isWord = (lower >= 0x61 && lower <= 0x7a) || (lower >= 0x30 && lower <= 0x39);
  kinds[unit] = isWord ? LETTERS : SEPARATOR;
  if (isWord) shortFolds[unit] = lower;
}
for (let unit = 0xd800; unit < 0xe000; unit++) kinds[unit] = SLOW;

/** The kind of a non-ASCII BMP unit, from its fold: all letters and digits, all separators, empty, or mixed (slow). */
function classify(unit: number): number {
  const folded = foldCodePoint(unit);
  let kind = DROPPED;
  for (const char of folded) {
    const charKind = char.length > 1 || SPECIAL.test(char) ? SLOW : WORD_CHAR.test(char) ? LETTERS : SEPARATOR;
    kind = kind === DROPPED || kind === charKind ? charKind : SLOW;
    if (kind === SLOW) break;
  }
  if (kind === LETTERS) {
    if (folded.length === 1) shortFolds[unit] = folded.charCodeAt(0);
    else longFolds.set(unit, folded);
  }
  kinds[unit] = kind;
  return kind;
}

let buffer = new Uint16Array(1024);

/**
 * Pushes onto `out` the term id of each word of `text`, in order, repeats included: the words `searchWords(text)`
 * gives, interned in `terms`. A text with a character whose fold is not plain letters or separators (CJK, kana,
 * Hangul, an astral character, `½`) is handed to searchWords whole.
 */
export function scanTerms(text: string, terms: SearchTerms, out: number[]): void {
  const from = out.length;
  let units = buffer;
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    let kind = kinds[unit]!;
    if (kind === UNKNOWN) kind = classify(unit);
    if (kind === LETTERS) {
      if (length + MAX_FOLD > units.length) {
        const longer = new Uint16Array(units.length * 2);
        longer.set(units);
        units = buffer = longer;
      }
      const short = shortFolds[unit]!;
      if (short !== 0) units[length++] = short;
      else for (const char of longFolds.get(unit)!) units[length++] = char.charCodeAt(0);
    } else if (kind === SEPARATOR) {
      if (length > 0) out.push(terms.intern(units, length));
      length = 0;
    } else if (kind === SLOW) {
      out.length = from;
      for (const word of searchWords(text)) out.push(terms.internWord(word));
      return;
    }
  }
  if (length > 0) out.push(terms.intern(units, length));
}
