// The term ids of an event's searched text against the obvious implementation: searchWords of each field of
// searchTextOf, in order, repeats kept; the same for a replayed (packed) event and for a view, repeated texts or not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type EventRecord, type StoredEvent } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { searchWords } from '../../src/search/search-words.js';
import { decodeRecord } from '../../src/store/records/decode-record.js';
import { encodePut } from '../../src/store/records/encode-record.js';
import { searchTextOf } from '../../src/search/event-search-text.js';
import { PackedEvent, PackedEvents } from '../../src/store/views/packed-events.js';
import { EventTerms } from '../../src/search/search-event-terms.js';
import { SearchTerms } from '../../src/search/search-terms.js';
import { mulberry32 } from '../helpers/random.js';
import { sampleRecord } from '../store/helpers.js';
import { STORE_EVENT_FORMS } from '../../src/store/views/store-event-forms.js';

const SEED = Number(process.env['SEARCH_EVENT_TERMS_SEED'] ?? Date.now() % 1_000_000);
const WORDS = ['Seminar', 'lab', 'Chemistry', 'yoga', 'Straße', 'café', 'Łódź', '東京', 'run', 'İz', '2026', 'x'.repeat(400)];

function replayed(record: EventRecord, pack: PackedEvents, seq: number): PackedEvent {
  const line = Buffer.from(encodePut(seq, record));
  const decoded = decodeRecord(line, 0, line.length - 1, { pack });
  if (typeof decoded === 'string' || decoded.op !== 'put' || !(decoded.stored instanceof PackedEvent)) throw new Error('not a packed put');
  return decoded.stored;
}

/** The words of an event's searched text, field by field, repeats kept. */
function wordsOf(stored: StoredEvent): string[] {
  return searchTextOf(stored).flatMap((text) => searchWords(text));
}

test(`EventTerms.termsOf() and distinct() give the ids of searchWords of each searched field, views and replayed events alike (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const text = (count: number): string => Array.from({ length: count }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(random() < 0.5 ? ' ' : '-');
  const terms = new EventTerms(STORE_EVENT_FORMS);
  const pack = new PackedEvents();
  // Few texts for the repeated fields, so most are met again (from the cache), some longer than it keeps.
  const descriptions = Array.from({ length: 6 }, (_, i) => (i === 5 ? text(4).repeat(60) : text(i)));
  const places = Array.from({ length: 4 }, () => text(1 + Math.floor(random() * 2)));
  const met = new Set<string>();
  for (let n = 0; n < 300; n++) {
    const record = sampleRecord(n, {
      title: text(1 + Math.floor(random() * 3)),
      description: descriptions[Math.floor(random() * descriptions.length)]!,
      location: places[Math.floor(random() * places.length)]!,
      organizer: { name: places[Math.floor(random() * places.length)]!, email: 'org@campus.example' },
    });
    const stored = random() < 0.5 ? replayed(record, pack, n + 1) : toStored(record, n + 1);
    const out = [-1];
    terms.termsOf(stored, out);
    for (const word of wordsOf(stored)) met.add(word);
    const where = `seed ${SEED}, event ${n} (${stored instanceof PackedEvent ? 'replayed' : 'view'})`;
    assert.equal(out[0], -1, `${where}: pushed after what out held`);
    assert.deepEqual(out.slice(1).map((id) => terms.terms.word(id)), wordsOf(stored), where);
    assert.deepEqual([...terms.distinct(stored)].map((id) => terms.terms.word(id)), [...new Set(wordsOf(stored))], where);
  }
  // Each word interned once: the dictionary holds exactly the words met.
  assert.deepEqual(new Set(Array.from({ length: terms.terms.size }, (_, id) => terms.terms.word(id))), met, `seed ${SEED}`);
});

test('EventTerms.adopt() takes a dictionary built elsewhere, only before any word is interned', () => {
  const built = new SearchTerms();
  const yoga = built.internWord('yoga');
  const terms = new EventTerms(STORE_EVENT_FORMS);
  terms.adopt(built);
  assert.equal(terms.terms, built);
  const out: number[] = [];
  terms.termsOf(toStored(sampleRecord(1, { title: 'Yoga', description: '', location: 'Gym', organizer: { name: 'Ann', email: 'a@campus.example' } }), 1), out);
  assert.equal(out[0], yoga, 'the adopted dictionary\'s id');
  assert.throws(() => terms.adopt(new SearchTerms()), /adopted before any word/);
  assert.doesNotThrow(() => new EventTerms(STORE_EVENT_FORMS).adopt(new SearchTerms()));
});

test('EventTerms keeps giving the right ids past the size of its text cache (more than 1,024 distinct texts)', () => {
  const terms = new EventTerms(STORE_EVENT_FORMS);
  for (let n = 0; n < 1100; n++) {
    const stored = toStored(sampleRecord(n, { title: 'T', description: `d${n} common`, location: `room ${n % 1030}`, organizer: { name: 'Ann', email: 'a@campus.example' } }), n + 1);
    const out: number[] = [];
    terms.termsOf(stored, out);
    assert.deepEqual(out.map((id) => terms.terms.word(id)), wordsOf(stored), `event ${n}`);
  }
});
