// EventTerms splits a repeated text once while its caches hold it: `textsScanned` against a model of each cache
// (views: by text, up to 1,024 texts of at most 1,000 characters, emptied when full, and the last longer one;
// replayed events: by the text's key). Splitting again gives the same term ids, so only the count shows a cache that
// misses, keeps too much or never empties.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type EventRecord } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { searchWords } from '../../src/search/search-words.js';
import { decodeRecord } from '../../src/store/records/decode-record.js';
import { encodePut } from '../../src/store/records/encode-record.js';
import { searchTextOf } from '../../src/search/event-search-text.js';
import { PackedEvent, PackedEvents } from '../../src/store/views/packed-events.js';
import { EventTerms } from '../../src/search/search-event-terms.js';
import { mulberry32 } from '../helpers/random.js';
import { sampleRecord } from '../store/helpers.js';
import { STORE_EVENT_FORMS } from '../../src/store/views/store-event-forms.js';

const SEED = Number(process.env['SEARCH_EVENT_TERMS_SEED'] ?? Date.now() % 1_000_000);

function record(n: number, title: string, description: string, location: string, name: string): EventRecord {
  return sampleRecord(n, { title, description, location, organizer: { name, email: 'org@campus.example' } });
}

/**
 * The texts a cache by text splits: each not held; a held one is kept while at most 1,000 characters, all dropped at
 * 1,024. The last 4 longer ones are held apart, the oldest dropped first.
 */
class TextCacheModel {
  readonly #held = new Set<string>();
  readonly #long: string[] = [];
  scanned = 0;

  meet(text: string): void {
    if (text.length > 1000) {
      if (this.#long.includes(text)) return;
      this.scanned++;
      if (this.#long.length === 4) this.#long.shift();
      this.#long.push(text);
      return;
    }
    if (this.#held.has(text)) return;
    this.scanned++;
    if (this.#held.size === 1024) this.#held.clear();
    this.#held.add(text);
  }
}

test(`EventTerms splits an event view's title each time and each other field once while cached, as a model of its cache (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  // 1,100 short texts (more than the cache holds, so it fills and empties), and texts at the length limit.
  const pool = Array.from({ length: 1100 }, (_, n) => `text ${n}`);
  const long = ['l'.repeat(1000), `${'m'.repeat(999)} `, `${'l'.repeat(1000)}x`, 'n'.repeat(1500)];
  const pick = (): string => (random() < 0.05 ? long[Math.floor(random() * long.length)]! : pool[Math.floor(random() * (random() < 0.5 ? 20 : pool.length))]!);
  const terms = new EventTerms(STORE_EVENT_FORMS);
  const model = new TextCacheModel();
  for (let n = 0; n < 2500; n++) {
    const stored = toStored(record(n, `title ${n}`, pick(), pick(), pick()), n + 1);
    const out: number[] = [];
    terms.termsOf(stored, out);
    const [title, ...others] = searchTextOf(stored);
    model.scanned++;
    for (const text of others) model.meet(text);
    assert.equal(terms.textsScanned, model.scanned, `seed ${SEED}, event ${n}: texts split`);
    if (n % 100 === 0) assert.deepEqual(out.map((id) => terms.terms.word(id)), [title!, ...others].flatMap((text) => searchWords(text)), `seed ${SEED}, event ${n}: the words`);
  }
});

test('EventTerms keeps a text of 1,000 characters and not one of 1,001; 1,024 texts, then starts over', () => {
  const terms = new EventTerms(STORE_EVENT_FORMS);
  let n = 0;
  const scanned = (description: string): number => {
    const before = terms.textsScanned;
    terms.termsOf(toStored(record(n, 'x', description, '', ''), ++n), []);
    return terms.textsScanned - before;
  };
  assert.equal(scanned('a'.repeat(1000)), 3, 'title, description, and the empty location and name (one text)');
  assert.equal(scanned('a'.repeat(1000)), 1, 'the title alone: the rest was kept');
  assert.equal(scanned('b'.repeat(1001)), 2, 'title and the long description');
  assert.equal(scanned('b'.repeat(1001)), 1, 'the title alone: the long description is kept apart (a series\' occurrences)');
  for (const long of ['c', 'd', 'e']) assert.equal(scanned(long.repeat(1001)), 2, `${long}: 4 long ones are kept`);
  assert.equal(scanned('b'.repeat(1001)), 1, 'b still kept');
  assert.equal(scanned('f'.repeat(1001)), 2, 'a fifth long one drops the oldest');
  assert.equal(scanned('b'.repeat(1001)), 2, 'b was the oldest');
  // Held now: '', a×1000. 1,022 more fill the cache; the next empties it first.
  for (let text = 0; text < 1022; text++) assert.equal(scanned(`t${text}`), 2);
  assert.equal(scanned('a'.repeat(1000)), 1, 'still held: 1,024 texts');
  assert.equal(scanned('t1022'), 3, 'the 1,025th text: the cache starts over with it, and the empty text is split again');
  assert.equal(scanned('t1022'), 1, 'held');
  assert.equal(scanned('a'.repeat(1000)), 2, 'dropped when the cache started over');
});

/** `record` as replay reads it: a PackedEvent of `pack`. */
function replayed(stored: EventRecord, pack: PackedEvents, seq: number): PackedEvent {
  const line = Buffer.from(encodePut(seq, stored));
  const decoded = decodeRecord(line, 0, line.length - 1, { pack });
  if (typeof decoded === 'string' || decoded.op !== 'put' || !(decoded.stored instanceof PackedEvent)) throw new Error('not a packed put');
  return decoded.stored;
}

test('EventTerms splits a replayed event\'s title each time and each other field once per key while cached', () => {
  const pack = new PackedEvents();
  const terms = new EventTerms(STORE_EVENT_FORMS);
  const keys = new Set<number>();
  let expected = 0;
  const places = ['Main hall', 'Gym', 'Lab 2', ''];
  const names = ['Ann Smith', 'Gym', 'Bob'];
  for (let n = 0; n < 300; n++) {
    // A long description too: kept by its key, where a view's would not be (more than 1,000 characters).
    const description = n % 7 === 0 ? `talk ${n}` : n % 11 === 0 ? 'a long talk '.repeat(100) : `series ${n % 5}`;
    const stored = replayed(record(n, `title ${n % 50}`, description, places[n % places.length]!, names[n % names.length]!), pack, n + 1);
    const out: number[] = [];
    terms.termsOf(stored, out);
    expected++;
    for (let field = 1; field < 4; field++) {
      const key = stored.searchTextKey(field);
      if (!keys.has(key)) expected++;
      keys.add(key);
    }
    assert.equal(terms.textsScanned, expected, `event ${n}: texts split`);
    assert.deepEqual(out.map((id) => terms.terms.word(id)), searchTextOf(stored).flatMap((text) => searchWords(text)), `event ${n}: the words`);
  }
});
