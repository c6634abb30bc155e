// The start-up worker's reader of log lines (LogTermCollector) against the obvious path: random logs written by the
// real encoders (puts, updates, deletes, atomic groups, with registration, document, idempotency and mark lines mixed
// in; views of today's layout and of another, with JSON escapes and non-ASCII text), each line JSON.parsed and its
// text folded and split by searchWords. The reader must keep the same live events, in the same order (by last put),
// with the same seqs and ids, and each event's posting must hold exactly its words. Seed: SEARCH_LOG_TERMS_SEED=n.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, viewJson, type EventRecord } from '../../src/events/event.js';
import { searchWords } from '../../src/search/search-words.js';
import { LogTermCollector } from '../../src/search/search-log-terms.js';
import { encodeDelete, encodeDocument, encodeDocumentDelete, encodeGroup, encodeIdempotency, encodeMark, encodePut, encodeRegister } from '../../src/store/records/encode-record.js';
import { packedOf, type BuiltSearch } from '../../src/search/search-built.js';
import { SearchTerms } from '../../src/search/search-terms.js';
import { mulberry32 } from '../helpers/random.js';
import { eventId, sampleRecord } from '../store/helpers.js';

const SEED = Number(process.env['SEARCH_LOG_TERMS_SEED'] ?? Date.now() % 1_000_000);
/** Accents, folds of several letters, CJK, an astral emoji, JSON escapes (quote, newline, tab, backslash, control), a lone tab. */
const WORDS = ['Seminar', 'lab', 'chemie', 'Straße', 'café', 'Łódź', '東京大学', 'İz', '🎉party', '"quoted"', 'line\nbreak', 'tab\tbed', 'back\\slash', 'ﬁsh', 'x\u0001y', 'ünï', 'ΣΟΦΊΑ', '2026', 'a-b', '한국어'];

type Random = () => number;
interface Expected {
  seq: number;
  words: Set<string>;
}

function text(random: Random, count: number): string {
  return Array.from({ length: count }, () => WORDS[Math.floor(random() * WORDS.length)]! + (random() < 0.3 ? String(Math.floor(random() * 9)) : '')).join(random() < 0.5 ? ' ' : ',');
}

function randomRecord(random: Random, id: string): EventRecord {
  return sampleRecord(0, {
    id,
    title: text(random, 1 + Math.floor(random() * 3)),
    description: random() < 0.3 ? '' : text(random, Math.floor(random() * 6)),
    location: text(random, Math.floor(random() * 2)),
    organizer: { name: text(random, 1), email: random() < 0.1 ? 'jürgen@campus.example' : 'org@campus.example' },
    category: CATEGORIES[Math.floor(random() * CATEGORIES.length)]!,
  });
}

/** The view of `record` in another layout than viewJson's (its keys reversed): the reader must JSON.parse it. */
function otherLayout(record: EventRecord): string {
  const view = JSON.parse(viewJson(record)) as Record<string, unknown>;
  return JSON.stringify(Object.fromEntries(Object.entries(view).reverse()));
}

/** The words replay's search keeps of a put line: JSON.parse it, then split its four texts. */
function wordsOfPut(line: string): { id: string; words: string[] } {
  const { event } = JSON.parse(line) as { event: EventRecord };
  return { id: event.id, words: [event.title, event.description, event.location, event.organizer.name].flatMap(searchWords) };
}

/** What the reader kept: per slot, its id, seq and words; and every word of its dictionary. */
function readBuilt(built: BuiltSearch): { events: Map<string, Expected>; dictionary: Set<string> } {
  const terms = SearchTerms.fromParts(built.terms);
  const live = built.putSeqs.length;
  const slotWords = Array.from({ length: live }, () => new Set<string>());
  const dictionary = new Set<string>();
  for (let term = 0; term < terms.size; term++) {
    const word = terms.word(term);
    assert.ok(!dictionary.has(word), `seed ${SEED}: ${word} is in the dictionary once`);
    dictionary.add(word);
  }
  const packed = packedOf(built);
  for (let term = 0; term + 1 < built.offsets.length; term++) {
    for (let at = built.offsets[term]!; at < built.offsets[term + 1]!; at++) slotWords[built.slots[at]!]!.add(terms.word(term));
  }
  for (const [term, bitmap] of packed.bitmaps) bitmap.forEach((slot) => slotWords[slot]!.add(terms.word(term)));
  const events = new Map<string, Expected>();
  let from = 0;
  for (let slot = 0; slot < live; slot++) {
    const id = Buffer.from(built.ids.subarray(from, built.idEnds[slot]!)).toString('latin1');
    from = built.idEnds[slot]!;
    events.set(id, { seq: built.putSeqs[slot]!, words: slotWords[slot]! });
  }
  assert.equal(from, built.ids.length, `seed ${SEED}: the ids fill their bytes`);
  return { events, dictionary };
}

/** Feeds `text` line by line (as the worker does, from one buffer) and returns the build and the bytes read. */
function collect(collector: LogTermCollector, text: string): BuiltSearch {
  const bytes = Buffer.from(text, 'utf8');
  let start = 0;
  for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
    collector.line(bytes, start, newline);
    start = newline + 1;
  }
  return collector.finish(start);
}

const regId = (n: number): string => `reg_${String(n).padStart(22, '0')}`;

/** One random log: its lines and what replay keeps of them. */
function randomLog(random: Random, count: number): { log: string; expected: Map<string, Expected>; allWords: Set<string> } {
  const ids = Array.from({ length: 1 + Math.floor(random() * 40) }, (_, n) => eventId(n * 7 + Math.floor(random() * 7)));
  const pickId = (): string => ids[Math.floor(random() * ids.length)]!;
  const expected = new Map<string, Expected>();
  const allWords = new Set<string>();
  let seq = 0;
  const put = (): string => {
    const record = randomRecord(random, pickId());
    const line = encodePut(++seq, record, random() < 0.25 ? otherLayout(record) : viewJson(record));
    const { id, words } = wordsOfPut(line);
    for (const word of words) allWords.add(word);
    expected.delete(id);
    expected.set(id, { seq, words: new Set(words) });
    return line;
  };
  const del = (): string => {
    const id = pickId();
    expected.delete(id);
    return encodeDelete(++seq, id);
  };
  /** Lines that are neither put nor del; some hold `"event":{…}` or a view's text, which are no put. */
  const other = (): string => {
    const roll = random();
    if (roll < 0.2) return encodeMark(++seq, Math.floor(seq / 2));
    const view = viewJson(randomRecord(random, pickId()));
    if (roll < 0.45) return encodeDocument({ collection: 'notes', id: `n${seq}`, seq: ++seq, json: `{"op":"put","event":${view}}` });
    if (roll < 0.55) return encodeDocumentDelete(++seq, 'notes', `n${seq}`);
    if (roll < 0.75) {
      seq++;
      return encodeIdempotency({ requestHash: 'h1', keyId: 'key_1', key: 'k', atMs: 0, seq, answer: { kind: 'event', view, createdAt: '2026-08-01T12:00:00.000Z' } });
    }
    seq++;
    return encodeRegister({ id: regId(seq), eventId: pickId(), name: text(random, 2), email: 'a@b.example', status: 'confirmed', createdAt: '2026-08-01T12:00:00.000Z', checkedInAt: null, seq });
  };
  const lines: string[] = [];
  for (let n = 0; n < count; n++) {
    const roll = random();
    if (roll < 0.45) lines.push(put());
    else if (roll < 0.6) lines.push(del());
    else if (roll < 0.8) lines.push(other());
    else {
      const members: string[] = [];
      for (let m = 1 + Math.floor(random() * 4); m > 0; m--) {
        const kind = random();
        members.push(kind < 0.5 ? put() : kind < 0.7 ? del() : other());
      }
      lines.push(encodeGroup(members));
    }
  }
  return { log: lines.join(''), expected, allWords };
}

function assertSameAsModel(built: BuiltSearch, expected: Map<string, Expected>, allWords: Set<string>, when: string): void {
  const { events, dictionary } = readBuilt(built);
  assert.deepEqual([...events.keys()], [...expected.keys()], `seed ${SEED}, ${when}: the live events, in the order of their last put`);
  for (const [id, want] of expected) {
    const got = events.get(id)!;
    assert.equal(got.seq, want.seq, `seed ${SEED}, ${when}: the seq of ${id}`);
    assert.deepEqual([...got.words].sort(), [...want.words].sort(), `seed ${SEED}, ${when}: the words of ${id}`);
  }
  assert.deepEqual([...dictionary].sort(), [...allWords].sort(), `seed ${SEED}, ${when}: the dictionary holds the words of every put read`);
}

test(`the reader keeps what JSON.parse and searchWords keep of random logs (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 40; round++) {
    const { log, expected, allWords } = randomLog(random, 5 + Math.floor(random() * 60));
    const built = collect(new LogTermCollector(), log);
    assert.equal(built.logLength, Buffer.byteLength(log), `seed ${SEED}, round ${round}: the bytes read`);
    assertSameAsModel(built, expected, allWords, `round ${round}`);
  }
});

test('a line is read within its bounds only: a group is cut at its end, and a put line without its event throws', () => {
  const first = sampleRecord(1, { title: 'alpha' });
  const second = sampleRecord(2, { title: 'beta' });
  const groupA = encodeGroup([encodePut(1, first), encodeMark(2, 1)]);
  const groupB = encodeGroup([encodePut(3, second), encodeDelete(4, eventId(1))]);
  // Two groups back to back: the first's members end at its newline, not at the second's tab.
  const built = collect(new LogTermCollector(), groupA + groupB);
  assert.deepEqual([...readBuilt(built).events.keys()], [eventId(2)]);
  // The layout of logs written before (a tab before each member) reads the same.
  const tabbed = (lines: string[]): string => lines.map((line) => `\t${line.slice(0, -1)}`).join('') + '\n';
  const old = collect(new LogTermCollector(), tabbed([encodePut(1, first), encodeMark(2, 1)]) + tabbed([encodePut(3, second), encodeDelete(4, eventId(1))]));
  assert.deepEqual(readBuilt(old).events, readBuilt(built).events);
  // Read alone, without its newline and without what follows: the group's last member still counts.
  const alone = Buffer.from(`${groupA}${encodeDelete(9, eventId(1))}`);
  const collector = new LogTermCollector();
  collector.line(alone, 0, groupA.length - 1);
  const { events } = readBuilt(collector.finish(groupA.length));
  assert.deepEqual([...events].map(([id, event]) => [id, event.seq, [...event.words].sort()]), [[eventId(1), 1, ['ada', 'alpha', 'hall', 'lovelace', 'main']]]);

  const noEvent = '{"seq":7,"op":"put","at":"x","crc":"00000000"}';
  assert.throws(() => collect(new LogTermCollector(), `${noEvent}\n`), /a put line \(seq 7\) has no "event"/);
  // The next line's event is not this line's.
  assert.throws(() => collect(new LogTermCollector(), `${noEvent}\n${encodePut(8, first)}`), /a put line \(seq 7\) has no "event"/);
  // A line cut just before its event's brace has none either.
  const cut = Buffer.from(encodePut(12, first));
  const brace = cut.indexOf(',"event":{') + ',"event":'.length;
  assert.throws(() => new LogTermCollector().line(cut, 0, brace), /a put line \(seq 12\) has no "event"/);
  // A line that starts otherwise, or a seq with another op, is skipped.
  const skipped = collect(new LogTermCollector(), `{"seqq":1,"op":"put","event":{}}\n{"seq":2,"op":"puts","event":{}}\n{"seq":3,"op":"delete","id":"${eventId(1)}"}\n${encodePut(4, first)}`);
  assert.deepEqual([...readBuilt(skipped).events].map(([id, event]) => [id, event.seq]), [[eventId(1), 4]]);
  // Put lines whose seq key or seq number is of another shape are no puts either.
  const put = encodePut(5, second);
  const misshapen = collect(new LogTermCollector(), `${put.replace('{"seq":5,', '{"sek":5,')}${put.replace('{"seq":5,', '{"seq":5A,')}${encodePut(6, first)}`);
  assert.deepEqual([...readBuilt(misshapen).events].map(([id, event]) => [id, event.seq]), [[eventId(1), 6]]);
  // A line that is only a tab (a group of no members) reads nothing past its end, though a put line follows.
  const empty = Buffer.from(`\t${encodePut(7, first)}`);
  const nothing = new LogTermCollector();
  nothing.line(empty, 0, 1);
  assert.deepEqual([...readBuilt(nothing.finish(1)).events.keys()], []);
});

test('more than 65,536 ids and more than 65,536 puts are all kept', () => {
  const lines: string[] = [];
  // 65,536 deletes of ids never put take the first 65,536 id numbers; the next ids need more room.
  for (let n = 0; n < 65_536; n++) lines.push(encodeDelete(n + 1, eventId(1_000_000 + n)));
  let seq = 65_536;
  const record = sampleRecord(5, { title: 'lonely' });
  const view = viewJson(record);
  for (let n = 0; n < 65_540; n++) lines.push(encodePut(++seq, record, view));
  lines.push(encodePut(++seq, sampleRecord(6, { title: 'latest' })));
  lines.push(encodeDelete(++seq, eventId(1_000_000)));
  const built = collect(new LogTermCollector(), lines.join(''));
  const { events } = readBuilt(built);
  assert.deepEqual(
    [...events].map(([id, event]) => [id, event.seq, [...event.words].sort()]),
    [
      [eventId(5), seq - 2, ['ada', 'hall', 'lonely', 'lovelace', 'main']],
      [eventId(6), seq - 1, ['ada', 'hall', 'latest', 'lovelace', 'main']],
    ],
  );
});
