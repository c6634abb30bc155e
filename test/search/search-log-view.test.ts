// The search build's locator of a view's id and texts against scanViewLayout, the replay's full scan: on seeded random
// views (every JSON escape, accents, CJK, emoji, lone surrogates, empty texts, series occurrences, odd ids, e-mails,
// times, counts and categories), on the same views cut short, changed into another layout, or with one byte changed,
// between random bytes, it finds the id and the four texts exactly where scanViewLayout does, and refuses exactly
// the views it refuses. SEARCH_LOG_VIEW_SEED=n replays one run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { viewJson, type EventRecord } from '../../src/events/event.js';
import { toStored } from '../../src/store/views/served-event.js';
import { LogTermCollector } from '../../src/search/search-log-terms.js';
import { locateViewTexts, type ViewTexts } from '../../src/search/search-log-view.js';
import { encodePut, encodeStored } from '../../src/store/records/encode-record.js';
import type { BuiltSearch } from '../../src/search/search-built.js';
import { scanViewLayout } from '../../src/store/views/view-scan.js';
import { mulberry32 } from '../helpers/random.js';
import { junk, otherLayout, pick, randomRecord, type Random } from '../helpers/random-views.js';
import { sampleRecord } from '../store/helpers.js';

const SEED = Number(process.env['SEARCH_LOG_VIEW_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const KEYS: (keyof ViewTexts)[] = ['idStart', 'idEnd', 'titleStart', 'titleEnd', 'descriptionStart', 'descriptionEnd', 'locationStart', 'locationEnd', 'nameStart', 'nameEnd'];

/** Asserts the locator agrees with scanViewLayout on `buf[start, end)`; true when both read the view. */
function agrees(buf: Buffer, start: number, end: number, where: string): boolean {
  const layout = scanViewLayout(buf, start, end);
  const expected = layout === undefined ? undefined : Object.fromEntries(KEYS.map((key) => [key, layout[key]]));
  const texts = locateViewTexts(buf, start, end);
  assert.deepEqual(texts === undefined ? undefined : { ...texts }, expected, `${where}: ${buf.toString('utf8', Math.max(start, 0), end)}`);
  return texts !== undefined;
}

/** The view in bytes, or in another layout, or with one byte changed to one that matters to a scan. */
function randomView(random: Random, record: EventRecord): { how: string; bytes: Buffer } {
  const view = viewJson(record);
  const roll = random();
  if (roll < 0.6) return { how: 'as written', bytes: Buffer.from(view) };
  if (roll < 0.8) {
    const { how, text } = otherLayout(random, record, view);
    return { how, bytes: Buffer.from(text) };
  }
  const bytes = Buffer.from(view);
  const at = Math.floor(random() * bytes.length);
  const byte = pick(random, [0x22, 0x5c, 0x7d, 0x2c, 0x3a, 0x30, 0x39, 0x2d, 0x54, 0x5a, 0x61, 0x20, 0x80, 0xc3]);
  bytes[at] = byte;
  return { how: `byte ${byte} at ${at}`, bytes };
}

test(`locateViewTexts finds what scanViewLayout finds in 6,000 random views and their changes, and refuses what it refuses (seed ${SEED}; SEARCH_LOG_VIEW_SEED replays it)`, (t) => {
  t.diagnostic(`seed ${SEED}`);
  const random = mulberry32(SEED);
  let read = 0;
  let series = 0;
  for (let n = 0; n < 6000; n++) {
    const record = randomRecord(random);
    const { how, bytes } = randomView(random, record);
    const before = Buffer.from(junk(random));
    const buf = Buffer.concat([before, bytes, Buffer.from(junk(random))]);
    const [start, end] = [before.length, before.length + bytes.length];
    const where = `seed ${SEED}, view ${n} (${how})`;
    if (agrees(buf, start, end, where)) {
      read++;
      if (record.series_id !== undefined) series++;
    }
    const cut = 1 + Math.floor(random() * (end - start - 1));
    agrees(buf, start, end - cut, `${where}, the last ${cut} bytes cut off`);
    agrees(buf, start + cut, end, `${where}, the first ${cut} bytes cut off`);
    // The view at the very start and end of its buffer: nothing to read past either bound.
    agrees(bytes, 0, bytes.length, `${where}, alone in its buffer`);
  }
  // About a third are read; runs where few were, or no series occurrence was, would prove little.
  assert.ok(read > 1000 && series > 200, `seed ${SEED}: ${read} views read, ${series} of them occurrences`);
});

test('the texts located span the JSON literals of the title, description, location and name, escapes and all', () => {
  const texts = {
    title: 'Café "Zoë" \\ 東京大学 🎉',
    description: '',
    location: 'Room 1\n\u00e9\u2028',
    organizer: { name: 'İz Straße', email: 'odd+tag!#$%&\'*/=?^_`{|}~@Campus.Example' },
  };
  for (const series_id of [undefined, 'ser_0123456789abcdefABCD']) {
    const record = sampleRecord(3, { ...texts, ...(series_id === undefined ? {} : { series_id }) });
    const bytes = Buffer.from(viewJson(record));
    const located = locateViewTexts(bytes, 0, bytes.length);
    assert.ok(located !== undefined, `series ${series_id}`);
    const part = (from: number, to: number): string => bytes.toString('utf8', from, to);
    assert.equal(part(located.idStart, located.idEnd), record.id);
    assert.equal(part(located.titleStart, located.titleEnd), JSON.stringify(texts.title));
    assert.equal(part(located.descriptionStart, located.descriptionEnd), '""');
    assert.equal(part(located.locationStart, located.locationEnd), JSON.stringify(texts.location));
    assert.equal(part(located.nameStart, located.nameEnd), JSON.stringify(texts.organizer.name));
  }
});

test('a view scanViewLayout refuses for a part the index does not read is refused too (left to JSON.parse)', () => {
  const refused: Partial<EventRecord>[] = [
    { start_time: '2026-02-29T10:00:00.000Z' },
    { end_time: '1969-12-31T23:59:59.999Z' },
    { end_time: '2026-01-01T24:00:00.000Z' },
    { capacity: -1 },
    { registered_count: 1.5 },
    { category: 'Social' as EventRecord['category'] },
    { organizer: { name: 'A', email: 'jürgen@campus.example' } },
    { organizer: { name: 'A', email: 'a"b@campus.example' } },
    { id: 'evt_0123456789abcde' },
    { series_id: 'ser_0123456789abcde' },
  ];
  for (const change of refused) {
    const bytes = Buffer.from(viewJson(sampleRecord(1, change)));
    assert.equal(scanViewLayout(bytes, 0, bytes.length), undefined, JSON.stringify(change));
    assert.equal(locateViewTexts(bytes, 0, bytes.length), undefined, JSON.stringify(change));
  }
  const bytes = Buffer.from(viewJson(sampleRecord(1, { start_time: '2024-02-29T23:59:59.999Z', end_time: '2000-02-29T00:00:00.000Z' })));
  assert.ok(locateViewTexts(bytes, 0, bytes.length) !== undefined, 'leap days are real days');
});

test('the build reads views of the layout written today without JSON.parse, and another layout with it', () => {
  const collector = new LogTermCollector();
  const lines: string[] = [];
  for (let n = 0; n < 20; n++) {
    const record = sampleRecord(n, { title: `Séminaire ${n} "東京" 🎉`, ...(n % 2 === 0 ? { series_id: `ser_${String(n).padStart(22, '0')}` } : {}) });
    lines.push(encodePut(n + 1, record, viewJson(record)));
  }
  const other = sampleRecord(20);
  lines.push(encodePut(21, other, viewJson(other).replace('{"id":', '{ "id":')));
  const bytes = Buffer.from(`${lines.join('\n')}\n`);
  let start = 0;
  for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
    collector.line(bytes, start, newline);
    start = newline + 1;
  }
  assert.equal(collector.parsedViews, 1);
  assert.equal(collector.finish(start).putSeqs.length, 21);
});

/** The build of `lines` (put lines), but the log's length. */
function built(lines: readonly string[]): Omit<BuiltSearch, 'logLength'> {
  const collector = new LogTermCollector();
  for (const line of lines) {
    const bytes = Buffer.from(line);
    collector.line(bytes, 0, bytes.length - 1);
  }
  const { logLength: _, ...rest } = collector.finish(0);
  return rest;
}

test('a put line with fields between its creation time and its view (a change time, promoted registrations, an idempotency tag) is read as a plain one', () => {
  const records = Array.from({ length: 12 }, (_, n) => sampleRecord(n, { title: `Talk ${n} "on" Straße`, ...(n % 3 === 0 ? { series_id: `ser_${String(n).padStart(22, '0')}` } : {}) }));
  const plain = records.map((record, n) => encodePut(n + 1, record));
  const withFields = records.map((record, n) => {
    const stored = toStored(record, n + 1, viewJson(record), Date.parse(record.created_at) + (n % 2) * 60_000);
    const idem = n % 4 === 1 ? { key: 'k-1', keyId: 'key_1', requestHash: 'h' } : undefined;
    return encodeStored(stored, n % 3 === 1 ? [`reg_${String(n).padStart(22, '0')}`] : [], idem);
  });
  assert.ok(withFields.some((line) => line.includes('"at":')) && withFields.some((line) => line.includes('"promoted":')) && withFields.some((line) => line.includes('"idem":')));
  assert.deepEqual(built(withFields), built(plain));
});
