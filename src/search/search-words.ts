// What a word is for `q` (API.md §5): text folded without case or accents, split on anything not a letter or digit.

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const ASCII_WORD = /[a-z0-9]+/g;
const MARKS = /\p{M}/gu;
const LETTERS_AND_DIGITS = /[\p{L}\p{N}]+/gu;
/** Letters that are words on their own (a CJK ideograph) or apart from the letters around them (a run of kana). */
const SPLIT_FURTHER = /[\p{Ideographic}\p{Script=Hiragana}\p{Script=Katakana}]/u;
/**
 * A CJK ideograph is a word of its own (CJK text has no spaces); a run of kana is a word, apart from the letters
 * around it (`大学でAI`: 大, 学, で, ai); any other run of letters and digits is one word.
 */
const CJK_PARTS = /\p{Ideographic}|[\p{Script=Hiragana}\p{Script=Katakana}]+|[^\p{Ideographic}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
const HANGUL_JAMO = /[\u1100-\u11ff]/;

/**
 * Letters NFKD leaves whole that Unicode's root collation still counts as a base letter with a mark (`ø` is `o`, `ł`
 * is `l`, `đ` and `ð` are `d`) or as two letters (`æ` is `ae`, `œ` is `oe`), so `q=oeuvre` finds "Œuvre" and
 * `q=lodz` finds "Łódź". Lower case: they are looked up after case folding. A test checks each against
 * `Intl.Collator` at base strength, and that it misses none in the Latin and phonetic blocks.
 */
const BASE_LETTERS: Readonly<Record<string, string>> = {
  æ: 'ae', ð: 'd', ø: 'o', đ: 'd', ħ: 'h', ł: 'l', œ: 'oe', ʣ: 'dz', ᵹ: 'g', ᵺ: 'th', ᶞ: 'd',
};
const WITH_BASE_LETTERS = /[æðøđħłœʣᵹᵺᶞ]/g;

/** The fold of each non-ASCII code point met so far: normalising a whole text costs 15 µs per 200 characters, this far less. */
const foldedCodePoints = new Map<number, string>();
const MAX_CACHED_CODE_POINTS = 65_536;

/**
 * `text` without case or accents: Unicode NFKD without combining marks, then full case folding (`ß` → `ss`,
 * `İ` → `i`, final `ς` → `σ`), then the letters NFKD cannot take apart (`ø` → `o`, `œ` → `oe`: BASE_LETTERS). Upper- then lower-casing gives the full folding that a lower-casing alone lacks
 * (`ß`, `ŉ`; the capital `ẞ` lower-cases back to `ß`, so that is folded apart); the marks a case mapping brings
 * back (`ǰ` → `J̌`) are dropped again. Each code point is folded on its own, which is the same: NFKD decomposes
 * code point by code point, its reordering moves only the marks that are dropped, and without a final-sigma rule
 * case mapping needs no context. Hangul, which NFKD splits into letters (jamo), is put back together, so a
 * Korean word is still one syllable per character.
 */
export function foldText(text: string): string {
  if (ASCII_ONLY.test(text)) return text.toLowerCase();
  let folded = '';
  let asciiFrom = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) continue;
    const codePoint = text.codePointAt(i)!;
    folded += text.slice(asciiFrom, i).toLowerCase() + foldCodePoint(codePoint);
    if (codePoint > 0xffff) i++;
    asciiFrom = i + 1;
  }
  folded += text.slice(asciiFrom).toLowerCase();
  return HANGUL_JAMO.test(folded) ? folded.normalize('NFC') : folded;
}

/** The fold of one non-ASCII code point (as foldText folds it inside a text), cached. */
export function foldCodePoint(codePoint: number): string {
  let folded = foldedCodePoints.get(codePoint);
  if (folded === undefined) {
    folded = String.fromCodePoint(codePoint).normalize('NFKD').replace(MARKS, '').toUpperCase().toLowerCase().replace(MARKS, '').replaceAll('ς', 'σ').replaceAll('ß', 'ss')
      .replace(WITH_BASE_LETTERS, (letter) => BASE_LETTERS[letter]!);
    if (foldedCodePoints.size < MAX_CACHED_CODE_POINTS) foldedCodePoints.set(codePoint, folded);
  }
  return folded;
}

/** How many code points' folds are cached: at most 65,536 (a bound on memory; read by a test). */
export function foldCacheSize(): number {
  return foldedCodePoints.size;
}

/**
 * The folded words of `text`, in order, repeats included: runs of letters and digits, each CJK ideograph alone
 * (`東京大学` is four words, so `京` finds it). Emoji, punctuation and spaces only separate words.
 */
export function searchWords(text: string): string[] {
  const folded = foldText(text);
  if (ASCII_ONLY.test(folded)) return folded.match(ASCII_WORD) ?? [];
  const words: string[] = [];
  for (const run of folded.match(LETTERS_AND_DIGITS) ?? []) {
    if (SPLIT_FURTHER.test(run)) words.push(...run.match(CJK_PARTS)!);
    else words.push(run);
  }
  return words;
}

/**
 * The words a query must find, each as the start of some word of an event: repeats dropped, and so is a word that
 * starts another query word (`chem chemistry` asks no more than `chemistry`). Longest first; empty when `q` has none.
 */
export function queryWords(q: string): string[] {
  // Distinct words (a Set): two of one length are never equal, so `a < b` alone orders them.
  const words = [...new Set(searchWords(q))].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return words.filter((word, i) => !words.some((other, j) => j < i && other.startsWith(word)));
}
