// Folds and splits a text into term ids in one pass over its characters, without a string per word: the words
// searchWords gives, for the text search-words.ts calls plain; any other text is left to searchWords itself. A text
// is read from a string, or straight from the UTF-8 bytes of a JSON string literal (the log's, at start-up).
import { foldCodePoint, searchWords } from './search-words.js';
import { finishHash, FNV_OFFSET, FNV_PRIME, type TermSink } from './search-hash.js';

/**
 * Where a scan interns its words: SearchTerms, or the start-up build's BuildTerms, whose `intern` gives -1 for a
 * repeat within an event (not pushed) and which takes back, by `forget`, the ids it gave a scan that then gave up.
 */
export interface ScanTerms {
  intern(units: Uint16Array, length: number, hash: number): number;
  internWord(word: string): number;
  forget?(count: number): void;
}

/**
 * What the scan does with each UTF-16 unit: the one unit it folds to (a letter or digit of a word), SEPARATOR, or
 * SPECIAL (not classified yet, a mark that folds to nothing, a fold of several units, or a reason to leave the
 * text to searchWords: see `special`). One table lookup per character on the common path.
 */
const SEPARATOR = 0;
const SPECIAL = 0xffff;
const foldedUnit = new Uint16Array(0x10000).fill(SPECIAL);
/** What a SPECIAL unit is, once classified. */
const DROPPED = 1;
const LONG = 2;
const SLOW = 3;
const specialKinds = new Uint8Array(0x10000);
const longFolds = new Map<number, string>();
/** The most units one code point folds to (U+FDFA folds to 18). */
const MAX_FOLD = 32;
const BACKSLASH = 0x5c;

/** Tested on one code point at a time (a character of a fold), so neither pattern needs anchors. */
const WORD_CHAR = /[\p{L}\p{N}]/u;
/** Letters searchWords splits further (CJK, kana) or puts back together (Hangul jamo): a text with one takes the slow path. */
const SPLIT_OR_JOINED = /[\p{Ideographic}\p{Script=Hiragana}\p{Script=Katakana}\u1100-\u11ff]/u;

for (let unit = 0; unit < 0x80; unit++) {
  const lower = unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit;
  const isWord = (lower >= 0x61 && lower <= 0x7a) || (lower >= 0x30 && lower <= 0x39);
  foldedUnit[unit] = isWord ? lower : SEPARATOR;
}

/** What the scans did so far (see scanWork). */
let slowScans = 0;
let classified = 0;

/** Classifies a non-ASCII BMP unit by its fold: letters and digits, separators, nothing, or mixed (slow). */
function classify(unit: number): void {
  classified++;
  const folded = foldCodePoint(unit);
  let kind = DROPPED;
  /** Whether the fold is letters and digits (set by its first character). */
  let letters: boolean | undefined;
  for (const char of folded) {
    const isSlow = char.length > 1 || SPLIT_OR_JOINED.test(char);
    const isWord = WORD_CHAR.test(char);
    if (isSlow || (kind !== DROPPED && letters !== isWord)) {
      kind = SLOW;
      break;
    }
    kind = LONG;
    letters = isWord;
  }
  if (kind === LONG && !letters) foldedUnit[unit] = SEPARATOR;
  else if (kind === LONG && folded.length === 1) foldedUnit[unit] = folded.charCodeAt(0);
  else {
    specialKinds[unit] = kind;
    if (kind === LONG) longFolds.set(unit, folded);
  }
}

/** The units of the word being read, and a string's UTF-8 bytes (scanTerms). */
let word = new Uint16Array(1024);
let utf8 = Buffer.alloc(4096);

/**
 * The scans' work and memory so far, for tests: texts left to searchWords (`slow`), units classified on first
 * sight, long folds held, and the sizes of the two buffers (units of a word, bytes of a string).
 */
export function scanWork(): { slow: number; classified: number; longFolds: number; wordUnits: number; utf8Bytes: number } {
  return { slow: slowScans, classified, longFolds: longFolds.size, wordUnits: word.length, utf8Bytes: utf8.length };
}

/**
 * Pushes onto `out` the term id of each word of `text`, in order, repeats included: the words `searchWords(text)`
 * gives, interned in `terms`. A text with a character whose fold is not plain letters or separators (CJK, kana,
 * Hangul, an astral character, `½`) is handed to searchWords whole.
 */
export function scanTerms(text: string, terms: ScanTerms, out: TermSink): void {
  if (utf8.length < text.length * 3) utf8 = Buffer.alloc(Math.max(text.length * 3, utf8.length * 2));
  const length = utf8.write(text);
  if (!scanBytes(utf8, 0, length, terms, out, false)) slowScan(text, terms, out);
}

/**
 * The same for the text of the JSON string literal whose characters (quotes excluded) are the UTF-8 bytes
 * `bytes[start, end)`, read straight from the bytes: no string is made unless the text needs searchWords or holds
 * an escape.
 */
export function scanUtf8Terms(bytes: Uint8Array, start: number, end: number, terms: ScanTerms, out: TermSink): void {
  if (scanBytes(bytes, start, end, terms, out, true)) return;
  const literal = Buffer.from(bytes.buffer, bytes.byteOffset + start - 1, end - start + 2).toString();
  slowScan(JSON.parse(literal) as string, terms, out);
}

/** Pushes every word of `text` by searchWords (the slow path). */
function slowScan(text: string, terms: ScanTerms, out: TermSink): void {
  slowScans++;
  for (const each of searchWords(text)) {
    const id = terms.internWord(each);
    if (id >= 0) out.push(id);
  }
}

/**
 * Scans the UTF-8 text `bytes[start, end)` (the characters of a JSON string literal when `literal`: a backslash
 * starts an escape): pushes the term ids onto `out` and returns true, or returns false (having pushed nothing)
 * when the text needs searchWords or holds an escape. ASCII takes one table lookup a byte; a two- or three-byte
 * character is decoded first. A string's lone surrogate arrives as U+FFFD, a separator, as searchWords takes the
 * surrogate itself (its fold is not a letter); valid UTF-8 never decodes to a surrogate.
 */
function scanBytes(bytes: Uint8Array, start: number, end: number, terms: ScanTerms, out: TermSink, literal: boolean): boolean {
  const from = out.length;
  if (word.length < end - start + MAX_FOLD) word = new Uint16Array(Math.max(end - start + MAX_FOLD, word.length * 2));
  let units = word;
  let used = 0;
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) {
    let unit = bytes[i]!;
    if (unit >= 0x80) {
      if (unit >= 0xf0) return dropped(terms, out, from);
      if (unit < 0xe0) unit = ((unit & 0x1f) << 6) | (bytes[++i]! & 0x3f);
      else {
        unit = ((unit & 0x0f) << 12) | ((bytes[i + 1]! & 0x3f) << 6) | (bytes[i + 2]! & 0x3f);
        i += 2;
      }
    } else if (unit === BACKSLASH && literal) return dropped(terms, out, from);
    const folded = foldedUnit[unit]!;
    if (folded === SEPARATOR) {
      if (used > 0) {
        const id = terms.intern(units, used, finishHash(hash));
        if (id >= 0) out.push(id);
      }
      used = 0;
      hash = FNV_OFFSET;
    } else if (folded !== SPECIAL) {
      units[used++] = folded;
      hash = Math.imul(hash ^ folded, FNV_PRIME);
    } else {
      if (specialKinds[unit] === 0) classify(unit);
      const kind = specialKinds[unit]!;
      if (kind === SLOW) return dropped(terms, out, from);
      if (kind === LONG) {
        // A fold of several units may outgrow the buffer sized for the text.
        if (units.length < used + end - i + MAX_FOLD) {
          const longer = new Uint16Array(units.length * 2 + end - i + MAX_FOLD);
          longer.set(units);
          units = word = longer;
        }
        for (const char of longFolds.get(unit)!) {
          const code = char.charCodeAt(0);
          units[used++] = code;
          hash = Math.imul(hash ^ code, FNV_PRIME);
        }
      } else if (kind === 0) {
        // Classified just now as a plain fold or separator: read the character again from its first byte.
        while ((bytes[i]! & 0xc0) === 0x80) i--;
        i--;
      }
    }
  }
  if (used > 0) {
    const id = terms.intern(units, used, finishHash(hash));
    if (id >= 0) out.push(id);
  }
  return true;
}

/** Drops what a scan pushed onto `out` since `from`; false, for the scan to return. */
function dropped(terms: ScanTerms, out: TermSink, from: number): false {
  terms.forget?.(out.length - from);
  out.length = from;
  return false;
}
