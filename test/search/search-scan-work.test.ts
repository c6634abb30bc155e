// The scan's work, not only its words (scanWork): which texts take the slow path (searchWords), that each character
// is classified once, which folds are held in the map of long folds, and the sizes of its two buffers against a
// model of how they grow. Its own file (its own process): the counters start from a scan that has seen nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchWords } from '../../src/search/search-words.js';
import { scanTerms, scanUtf8Terms, scanWork } from '../../src/search/search-scan.js';
import { SearchTerms } from '../../src/search/search-terms.js';

const MAX_FOLD = 32;
const terms = new SearchTerms();

/** The words of `text` by scanTerms, and how much `what` of scanWork grew meanwhile. */
function scanned(text: string, what: 'slow' | 'classified' | 'longFolds'): { words: string[]; grew: number } {
  const before = scanWork()[what];
  const ids: number[] = [];
  scanTerms(text, terms, ids);
  return { words: ids.map((id) => terms.word(id)), grew: scanWork()[what] - before };
}

/** The same through scanUtf8Terms, the text written as JSON (with a key before it, as in a log line). */
function scannedLiteral(literal: string): { words: string[]; slow: number } {
  const before = scanWork().slow;
  const bytes = Buffer.from(`{"t":${literal}}`);
  const ids: number[] = [];
  scanUtf8Terms(bytes, 6, bytes.length - 2, terms, ids);
  return { words: ids.map((id) => terms.word(id)), slow: scanWork().slow - before };
}

test('plain letters, marks, folds of several letters, U+FFFD and lone surrogates take the fast path; CJK, kana, Hangul, astral characters and mixed folds the slow one', () => {
  const fast = ['Organic chemistry 2026', 'Café e\u0301te\u0301', 'Straße ẞ', 'Ⅷ ﬃ ǆ ‥', 'ก अ ω Ж', 'x\x80y\ue000z', 'a\ud800b\ufffdc', 'back\\slash "quoted"'];
  for (const text of fast) {
    const { words, grew } = scanned(text, 'slow');
    assert.deepEqual(words, searchWords(text), JSON.stringify(text));
    assert.equal(grew, 0, `${JSON.stringify(text)} is scanned without searchWords`);
  }
  for (const text of ['東京 x', 'y でAI', 'カタカナ', '한국어', 'a 🎉', '½', 'ﷺ']) {
    const { words, grew } = scanned(text, 'slow');
    assert.deepEqual(words, searchWords(text), JSON.stringify(text));
    assert.equal(grew, 1, `${JSON.stringify(text)} is left to searchWords, once`);
  }
  for (const text of fast.slice(0, -1)) assert.deepEqual(scannedLiteral(JSON.stringify(text).replace('\\ud800', '-')), { words: searchWords(text.replace('\ud800', '-')), slow: 0 });
  assert.deepEqual(scannedLiteral('"back\\\\slash \\"quoted\\""'), { words: ['back', 'slash', 'quoted'], slow: 1 }, 'an escape: JSON.parse and searchWords');
  assert.deepEqual(scannedLiteral('"caf\\u00e9"'), { words: ['cafe'], slow: 1 });
  assert.deepEqual(scannedLiteral('"東京"'), { words: ['東', '京'], slow: 1 });
});

test('a character is classified once, on first sight, and ASCII never', () => {
  assert.equal(scanned('Plain ASCII: {~} @ 2026 [x]', 'classified').grew, 0);
  // A fold of two letters (ǉ), a mark (U+0323), a character of the slow path (ゑ): each stays special.
  assert.equal(scanned('ǉǉ \u0323x\u0323', 'classified').grew, 2);
  assert.equal(scanned('ǉǉ \u0323x\u0323', 'classified').grew, 0, 'classified already');
  assert.equal(scanned('ゑ', 'classified').grew, 1);
  assert.equal(scanned('ゑ', 'classified').grew, 0);
  assert.equal(scanned('ŵ ŵ', 'classified').grew, 1, 'a one-letter fold, then read from the table');
});

test('only a fold of several letters is held in the map of long folds', () => {
  assert.deepEqual(scanned('ŷ', 'longFolds'), { words: ['y'], grew: 0 }, 'a one-letter fold goes in the table');
  assert.deepEqual(scanned('a\u0324b', 'longFolds'), { words: ['ab'], grew: 0 }, 'a mark folds to nothing');
  assert.deepEqual(scanned('ゐ', 'longFolds'), { words: ['ゐ'], grew: 0 }, 'a character of the slow path');
  assert.deepEqual(scanned('a‼b', 'longFolds'), { words: ['a', 'b'], grew: 0 }, 'a fold of several separators is a separator');
  assert.deepEqual(scanned('ǌ', 'longFolds'), { words: ['nj'], grew: 1 });
});

/** The two buffers as documented: each grows to what a text needs, or to twice its size if that is more. */
class Buffers {
  word = scanWork().wordUnits;
  utf8 = scanWork().utf8Bytes;

  /** A string of `length` units and `bytes` UTF-8 bytes, given to scanTerms. */
  string(length: number, bytes: number): void {
    if (this.utf8 < length * 3) this.utf8 = Math.max(length * 3, this.utf8 * 2);
    this.bytes(bytes);
  }

  /** Any text of `bytes` bytes: room for a unit a byte, and the longest fold. */
  bytes(bytes: number): void {
    if (this.word < bytes + MAX_FOLD) this.word = Math.max(bytes + MAX_FOLD, this.word * 2);
  }

  /**
   * A text of `before` plain bytes (each its own unit, ending in a separator) then `Ⅷ` (3 bytes, 4 units: viii)
   * `count` times: before each Ⅷ, room for its fold and a unit a byte after it.
   */
  eights(count: number, before = 0): void {
    this.bytes(before + count * 3);
    for (let k = 0; k < count; k++) {
      const after = 3 * count - (3 * k + 2);
      if (this.word < 4 * k + after + MAX_FOLD) this.word = this.word * 2 + after + MAX_FOLD;
    }
  }

  check(what: string): void {
    const { wordUnits, utf8Bytes } = scanWork();
    assert.deepEqual({ word: wordUnits, utf8: utf8Bytes }, { word: this.word, utf8: this.utf8 }, what);
  }
}

test('the buffers grow as the model says: to the text, or twice; a long fold grows the word buffer as it is read', () => {
  const model = new Buffers();
  model.check('at the start');
  for (let count = 1; count <= 720; count++) {
    const ids: number[] = [];
    scanTerms('Ⅷ'.repeat(count), terms, ids);
    assert.deepEqual(ids.map((id) => terms.word(id)), ['viii'.repeat(count)], `Ⅷ × ${count}`);
    model.string(count, 3 * count);
    model.eights(count);
    model.check(`after Ⅷ × ${count}`);
  }
  // A text just over twice the buffers: each grows to exactly what it needs; the same length again grows neither;
  // a little longer, each doubles.
  const length = Math.max(2 * model.word, model.utf8) + 1;
  for (const [round, size] of [length, length, length + 1].entries()) {
    const ids: number[] = [];
    scanTerms(`${'b'.repeat(size - 2)} c`, terms, ids);
    assert.equal(ids.length, 2);
    model.string(size, size);
    model.check(`a text of ${size} bytes, round ${round}`);
  }
  // A literal deep inside a large buffer needs room for its own bytes only, short or long.
  for (const repeats of [0, model.word]) {
    const text = `deep ${'ab '.repeat(repeats)}Ⅷ`;
    const line = Buffer.from(`${'x'.repeat(3 * model.word)}"${text}"`);
    const ids: number[] = [];
    scanUtf8Terms(line, 3 * model.word + 1, line.length - 1, terms, ids);
    assert.deepEqual(ids.map((id) => terms.word(id)), ['deep', ...new Array<string>(repeats).fill('ab'), 'viii']);
    model.eights(1, text.length - 1);
    model.check(`a literal of ${text.length + 2} bytes far into its buffer`);
  }
  // Ⅷ read from a literal at an offset grows the word buffer as from a string.
  for (const count of [Math.floor(model.word / 4) - 8, Math.floor(model.word / 4) + 1]) {
    const literal = Buffer.from(`{"t":"${'Ⅷ'.repeat(count)}"}`);
    const out: number[] = [];
    scanUtf8Terms(literal, 6, literal.length - 2, terms, out);
    assert.deepEqual(out.map((id) => terms.word(id)), ['viii'.repeat(count)]);
    model.eights(count);
    model.check(`a literal of Ⅷ × ${count}`);
  }
});
