// BuildTerms (the start-up build's dictionary): ids in the order first met, a repeat within an event given as -1,
// each term's events counted, what a scan that gave up interned taken back, every kind of cell (Latin-1 inline,
// long, other units, 255 units and more, equal hashes), and the parts SearchTerms would have built.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BuildTerms } from '../../src/search/search-build-terms.js';
import { scanUtf8Terms } from '../../src/search/search-scan.js';
import { SearchTerms } from '../../src/search/search-terms.js';

const unitsOf = (word: string): Uint16Array => Uint16Array.from(word, (char) => char.charCodeAt(0));

/** The parts of both dictionaries, each array cut to what is in use: they must be equal. */
function sameParts(built: BuildTerms, terms: SearchTerms): void {
  const [a, b] = [built.parts(), terms.parts()];
  assert.equal(a.count, b.count);
  assert.equal(a.used, b.used);
  assert.deepEqual(a.units.subarray(0, a.used), b.units.subarray(0, b.used));
  assert.deepEqual(a.starts.subarray(0, a.count), b.starts.subarray(0, b.count));
  assert.deepEqual(a.hashes.subarray(0, a.count), b.hashes.subarray(0, b.count));
  assert.deepEqual(a.cells, b.cells);
}

test('a term gets the id SearchTerms gives it the first time in an event, -1 on a repeat, and its events are counted', () => {
  const built = new BuildTerms();
  const terms = new SearchTerms();
  const events = [['chemie', 'lab', 'chemie'], ['lab', 'yoga'], ['straße', 'lab', 'lab', 'łódź']];
  const given = events.map((words) => {
    built.startEvent();
    return words.map((word) => built.internWord(word));
  });
  for (const words of events) for (const word of words) terms.internWord(word);
  assert.deepEqual(given, [[0, 1, -1], [1, 2], [3, 1, -1, 4]]);
  assert.deepEqual([...built.counts()], [1, 3, 1, 1, 1]);
  assert.equal(built.size, 5);
  sameParts(built, terms);
});

test('long terms, terms of other units, terms of 255 units and more, and terms of equal hashes are told apart', () => {
  const built = new BuildTerms(0.8, 4);
  const words = ['a'.repeat(16), 'a'.repeat(17), 'ΣΟΦΊΑ', 'σοφια', 'x'.repeat(255), 'x'.repeat(256), 'y'.repeat(300), 'ab', 'ba', 'é', 'ü'];
  built.startEvent();
  const ids = words.map((word) => built.internWord(word));
  assert.deepEqual(ids, words.map((_, at) => at));
  built.startEvent();
  assert.deepEqual(words.map((word) => built.internWord(word)), ids, 'found again in the next event');
  // Equal hashes, equal lengths: only the units tell them apart (inline, and in the arena).
  built.startEvent();
  const hash = 12345;
  const first = built.intern(unitsOf('qq'), 2, hash);
  const second = built.intern(unitsOf('rr'), 2, hash);
  const third = built.intern(unitsOf('q'.repeat(20)), 20, hash);
  const fourth = built.intern(unitsOf('r'.repeat(20)), 20, hash);
  assert.deepEqual([first, second, third, fourth], [11, 12, 13, 14]);
  assert.equal(built.intern(unitsOf('rr'), 2, hash), -1, 'a repeat in the event');
  assert.ok(built.work.probes > 0, 'equal hashes probe past the first cell');
  assert.ok(built.work.growths > 0, 'a table of 4 cells grew');
});

test('forget takes back the first occurrences a scan gave up on, so reading the text again counts them once', () => {
  const built = new BuildTerms();
  built.startEvent();
  const out: number[] = [];
  // The scan reads "cafe" and "lab" as bytes, then gives up at the ideographs and reads the text by searchWords.
  const text = Buffer.from('"café lab 東京 lab"');
  scanUtf8Terms(text, 1, text.length - 1, built, out);
  const terms = new SearchTerms();
  const expected: number[] = [];
  scanUtf8Terms(text, 1, text.length - 1, terms, expected);
  assert.deepEqual(out, [...new Set(expected)]);
  assert.deepEqual([...built.counts()], [1, 1, 1, 1]);
  sameParts(built, terms);
});

test('parts are SearchTerms\' arrays through the growths of both tables (its cells sized as SearchTerms sizes them)', () => {
  for (const count of [0, 1, 4096, 4097, 20_000]) {
    const built = new BuildTerms(0.8, 8);
    const terms = new SearchTerms();
    built.startEvent();
    for (let at = 0; at < count; at++) {
      const word = `w${at.toString(36)}`;
      assert.equal(built.internWord(word), terms.internWord(word));
    }
    sameParts(built, terms);
    if (count > 0) assert.equal(SearchTerms.fromParts(built.parts()).word(count - 1), `w${(count - 1).toString(36)}`);
  }
});
