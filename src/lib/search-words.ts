// What a word is for `q` (API.md §5): text folded without case or accents, split on anything not a letter or digit.

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const ASCII_WORD = /[a-z0-9]+/g;
const MARKS = /\p{M}+/gu;
/**
 * A CJK ideograph is a word of its own (CJK text has no spaces); a run of kana is a word, apart from the letters
 * around it (`大学でAI`: 大, 学, で, ai); any other run of letters and digits is one word.
 */
const WORD = /\p{Ideographic}|[\p{Script=Hiragana}\p{Script=Katakana}]+|(?:(?![\p{Ideographic}\p{Script=Hiragana}\p{Script=Katakana}])[\p{L}\p{N}])+/gu;
const HANGUL_JAMO = /[\u1100-\u11ff]/;

/**
 * `text` without case or accents: Unicode NFKD without combining marks, then full case folding (`ß` → `ss`,
 * `İ` → `i`, final `ς` → `σ`). Upper- then lower-casing gives the full folding that a lower-casing alone lacks
 * (`ß`, `ŉ`; the capital `ẞ` lower-cases back to `ß`, so that is folded apart); the marks a case mapping brings back (`ǰ` → `J̌`) are dropped again. Hangul, which NFKD splits into
 * letters (jamo), is put back together, so a Korean word is still one syllable per character.
 */
export function foldText(text: string): string {
  if (ASCII_ONLY.test(text)) return text.toLowerCase();
  let folded = text.normalize('NFKD').replace(MARKS, '').toUpperCase().toLowerCase().replace(MARKS, '').replaceAll('ς', 'σ').replaceAll('ß', 'ss');
  if (HANGUL_JAMO.test(folded)) folded = folded.normalize('NFC');
  return folded;
}

/**
 * The folded words of `text`, in order, repeats included: runs of letters and digits, each CJK ideograph alone
 * (`東京大学` is four words, so `京` finds it). Emoji, punctuation and spaces only separate words.
 */
export function searchWords(text: string): string[] {
  const folded = foldText(text);
  return folded.match(ASCII_ONLY.test(folded) ? ASCII_WORD : WORD) ?? [];
}

/**
 * The words a query must find, each as the start of some word of an event: repeats dropped, and so is a word that
 * starts another query word (`chem chemistry` asks no more than `chemistry`). Longest first; empty when `q` has none.
 */
export function queryWords(q: string): string[] {
  const words = [...new Set(searchWords(q))].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
  return words.filter((word, i) => !words.some((other, j) => j < i && other.startsWith(word)));
}
