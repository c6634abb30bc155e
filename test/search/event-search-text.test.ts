// The searched text of an event against JSON.parse of its view, over seeded random records whose texts hold every
// escape, quotes, backslashes, the field markers themselves, accents, CJK and emoji (SEARCH_TEXT_SEED=n replays one).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type EventRecord, type StoredEvent } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { searchWords } from '../../src/search/search-words.js';
import { hasSearchWords, sameSearchText, searchTextOf, textOfLiteral } from '../../src/search/event-search-text.js';
import { mulberry32 } from '../helpers/random.js';
import { sampleRecord } from '../store/helpers.js';

const SEED = Number(process.env['SEARCH_TEXT_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const PIECES = [
  'Organic', 'chemistry', 'Lab', ' ', ' ', '—', '"', '\\', '\\"', '\n', '\t', '\r', '\b', '\f', '\u0000', '\u001f', '\u2028', '/',
  ',"description":', ',"category":', ',"location":', ',"start_time":', ',"organizer":{"name":', ',"email":', '"}', '{',
  'Café', 'Straße', 'İstanbul', '東京大学', '🎉', '\ud83c', 'x', '2026',
];

type Random = () => number;

function randomText(random: Random, most: number): string {
  let text = '';
  for (let n = Math.floor(random() * (most + 1)); n > 0; n--) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

function randomRecord(random: Random, n: number): EventRecord {
  return sampleRecord(n, {
    title: randomText(random, 6) || 'T',
    description: randomText(random, 10),
    location: randomText(random, 4) || 'L',
    organizer: { name: randomText(random, 4) || 'N', email: 'org@campus.example' },
    ...(random() < 0.3 ? { series_id: `ser_${n}` } : {}),
  });
}

/** The obvious reading: the view parsed whole. */
function parsedTexts(stored: StoredEvent): string[] {
  const view = JSON.parse(stored.json) as EventRecord;
  return [view.title, view.description, view.location, view.organizer.name];
}

test(`searchTextOf() gives the four searched fields as JSON.parse reads them (SEARCH_TEXT_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let n = 0; n < 2_000; n++) {
    const record = randomRecord(random, n);
    const stored = toStored(record, n + 1);
    const texts = searchTextOf(stored);
    assert.deepEqual(texts, parsedTexts(stored), `seed ${SEED}, record ${n}`);
    assert.deepEqual(texts, [record.title, record.description, record.location, record.organizer.name], `seed ${SEED}, record ${n}: as written`);
  }
});

test(`sameSearchText() is equality of the four fields; hasSearchWords() is every word starting some word (SEARCH_TEXT_SEED=${SEED})`, () => {
  const random = mulberry32(SEED + 1);
  for (let n = 0; n < 600; n++) {
    const what = `seed ${SEED}, pair ${n}`;
    const record = randomRecord(random, n);
    // The other state: a copy with some fields changed (searched or not), or nothing but the count.
    const other: EventRecord = { ...record, organizer: { ...record.organizer } };
    if (random() < 0.25) other.title = randomText(random, 3) || 'T';
    if (random() < 0.25) other.description = randomText(random, 3);
    if (random() < 0.25) other.location = randomText(random, 3) || 'L';
    if (random() < 0.25) other.organizer.name = randomText(random, 3) || 'N';
    if (random() < 0.5) other.registered_count = 1 + Math.floor(random() * 5);
    if (random() < 0.3) other.category = 'social';
    const a = toStored(record, 1);
    const b = toStored(other, 2);
    const same = parsedTexts(a).every((text, i) => text === parsedTexts(b)[i]);
    assert.equal(sameSearchText(a, b), same, `${what}: sameSearchText`);
    assert.equal(sameSearchText(b, a), same, `${what}: sameSearchText the other way`);

    const own = parsedTexts(a).flatMap((text) => searchWords(text));
    const candidates = [...own, ...searchWords(randomText(random, 3))];
    const words = candidates.length === 0 ? [] : Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
      const word = candidates[Math.floor(random() * candidates.length)]!;
      return random() < 0.5 ? word.slice(0, 1 + Math.floor(random() * word.length)) : word;
    });
    const expected = words.every((word) => own.some((each) => each.slice(0, word.length) === word));
    assert.equal(hasSearchWords(a, words), expected, `${what}: hasSearchWords ${JSON.stringify(words)} in ${JSON.stringify(own)}`);
  }
});

test('hasSearchWords(): a word must start a word of the text, every word of the query must be found, in any field', () => {
  const stored = toStored(sampleRecord(1, { title: 'Organic Chemistry', description: 'Straße', location: 'Hall B', organizer: { name: 'Zoë 東京', email: 'o@campus.example' } }), 1);
  assert.ok(hasSearchWords(stored, ['chem']));
  assert.ok(hasSearchWords(stored, ['chemistry', 'organic']));
  assert.ok(!hasSearchWords(stored, ['mistry']), 'inside a word is not a start');
  assert.ok(!hasSearchWords(stored, ['chem', 'physics']), 'one word missing');
  assert.ok(hasSearchWords(stored, ['strasse', 'hall', 'zoe', '京']), 'every field searched, folded');
  assert.ok(hasSearchWords(stored, []), 'no words: every event');
});

/** How many times `run` calls JSON.parse. */
function parsesIn(run: () => void): number {
  const parse = JSON.parse;
  let parses = 0;
  JSON.parse = ((text: string) => {
    parses++;
    return parse(text) as unknown;
  }) as typeof JSON.parse;
  try {
    run();
  } finally {
    JSON.parse = parse;
  }
  return parses;
}

test('sameSearchText(): two states with one view are the same text, its fields not read; else the fields compared', () => {
  // A title with an escape: reading it takes a JSON.parse, which the equal views skip.
  const record = sampleRecord(1, { title: 'Yoga "outdoors"' });
  const [first, second] = [toStored(record, 1), toStored(record, 2)];
  assert.equal(parsesIn(() => assert.ok(sameSearchText(first, second))), 0);
  assert.ok(parsesIn(() => searchTextOf(first)) > 0, 'reading the fields parses the title');
  const a = toStored(sampleRecord(1, { title: 'Yoga', registered_count: 3 }), 1);
  const b = toStored(sampleRecord(1, { title: 'Yoga', registered_count: 4 }), 2);
  assert.ok(sameSearchText(a, b));
  assert.ok(!sameSearchText(a, toStored(sampleRecord(1, { title: 'Yoga!', registered_count: 3 }), 3)));
  assert.ok(!sameSearchText(a, toStored(sampleRecord(1, { title: 'Yoga', organizer: { name: 'Someone', email: 'Ada@Campus.example' }, registered_count: 3 }), 3)));
});

test('searchTextOf() refuses a view without a searched field (a TypeError naming it)', () => {
  const view = toStored(sampleRecord(1), 1).json;
  const without = (json: string): StoredEvent => ({ ...toStored(sampleRecord(1), 1), json }) as StoredEvent;
  assert.throws(() => searchTextOf(without(view.replace(',"title":', ',"name":'))), { name: 'TypeError', message: 'an event view without the field ,"title":' });
  assert.throws(() => searchTextOf(without(view.replace(',"category":', ',"kind":'))), { name: 'TypeError', message: 'an event view without the field ,"description":' });
  assert.throws(() => searchTextOf(without(view.replace(',"email":', ',"mail":'))), { name: 'TypeError', message: 'an event view without the field ,"organizer":{"name":' });
  assert.throws(() => searchTextOf(without('{}')), TypeError);
});

test('textOfLiteral() unescapes a JSON string literal, and parses only one that holds an escape', () => {
  assert.equal(
    parsesIn(() => {
      assert.equal(textOfLiteral('"plain text é 東 🎉"'), 'plain text é 東 🎉');
      assert.equal(textOfLiteral('""'), '');
    }),
    0,
    'no escape: the literal is its text',
  );
  assert.equal(parsesIn(() => assert.equal(textOfLiteral('"a\\nb\\\\c\\"d\\u00e9"'), 'a\nb\\c"dé')), 1);
});
