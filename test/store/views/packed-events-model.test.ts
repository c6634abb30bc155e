// PackedEvents against the obvious implementation (each record's viewJson and toStored) over seeded random steps:
// puts replayed from their log lines, recounts, and reads in random order, with every JSON escape, non-ASCII text
// and the numbers and times at the edges of what the columns hold. Then the caches, counted, and pack()'s refusals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type EventRecord, type StoredEvent, viewJson } from '../../../src/events/event.js';
import { seatsOf, toStored, viewBytes, viewCrc } from '../../../src/store/views/served-event.js';
import { crc32 } from '../../../src/lib/crc32.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { encodePut } from '../../../src/store/records/encode-record.js';
import { searchTextOf } from '../../../src/search/event-search-text.js';
import { BLOCK, PackedEvent, PackedEvents, RECENT_VIEWS } from '../../../src/store/views/packed-events.js';
import { MAX_TEXT_BYTES } from '../../../src/store/views/text-arena.js';
import { scanViewLayout, type ViewLayout } from '../../../src/store/views/view-scan.js';
import { mulberry32 } from '../../helpers/random.js';
import { sampleRecord } from '../helpers.js';

const SEED = Number(process.env['PACKED_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const MAX_UINT32 = 2 ** 32 - 1;
/** 10000-01-01T00:00:00.000Z, the first time whose ISO string has more than 4 digits of year. */
const YEAR_10000 = Date.UTC(10000, 0, 1);

/** Every character JSON.stringify escapes (the 32 controls, quote, backslash, lone surrogates), and some it does not. */
const ESCAPED = [...Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)), '"', '\\', '\ud800', '\udfff'];
const PLAIN = ['a', 'Z', ' ', '/', 'é', '日本', '🎉', '\u2028', '\u2029', '\u007f', '","capacity":1,"registered_count":2,', '"}}', ',"email":"x@y.z"}'];
const NUMBERS = [0, 1, 9, 10, 99, 999_999_999, 1_000_000_000, MAX_UINT32 - 1, MAX_UINT32, MAX_UINT32 + 1, 9_999_999_999, 10_000_000_000, 123_456_789_012_345];

/** The put line of `record` (or of `view`, a hand-made layout of it) decoded as replay decodes it, into `pack`. */
function replayed(pack: PackedEvents, record: EventRecord, seq: number, view?: string): StoredEvent {
  const line = Buffer.from(encodePut(seq, record, view));
  const decoded = decodeRecord(line, 0, line.length - 1, { pack });
  if (typeof decoded === 'string' || decoded.op !== 'put') throw new Error(`not a put: ${JSON.stringify(decoded)}`);
  return decoded.stored;
}

/** Everything a reader can ask of a stored event, through its accessors and the store's measures. */
function observed(stored: StoredEvent) {
  const { id, startMs, endMs, category, organizerEmail, createdAt, seq, modifiedMs, json, seriesId } = stored;
  const search = stored instanceof PackedEvent ? [0, 1, 2, 3].map((field) => stored.searchText(field)) : searchTextOf(stored);
  return { id, startMs, endMs, category, organizerEmail, createdAt, seq, modifiedMs, json, seriesId, seats: seatsOf(stored), crc: viewCrc(stored), bytes: viewBytes(stored), search };
}

/** The same, computed the obvious way from the record: its viewJson (or the view as written), JSON's own measures. */
function expected(record: EventRecord, seq: number, modifiedMs: number, view: string = viewJson(record)) {
  const json = view;
  return {
    id: record.id,
    startMs: Date.parse(record.start_time),
    endMs: Date.parse(record.end_time),
    category: record.category,
    organizerEmail: record.organizer.email.toLowerCase(),
    createdAt: record.created_at,
    seq,
    modifiedMs,
    json,
    seriesId: record.series_id,
    seats: { capacity: record.capacity, registered: record.registered_count },
    crc: crc32(json),
    bytes: Buffer.byteLength(json),
    search: [record.title, record.description, record.location, record.organizer.name],
  };
}

/** Whether the columns can hold the record: numbers of 32 bits written without a leading zero. */
function packable(record: EventRecord, view: string): boolean {
  return view === viewJson(record) && record.capacity <= MAX_UINT32 && record.registered_count <= MAX_UINT32;
}

test(`PackedEvents reads back every put and recount as viewJson and toStored of its record (PACKED_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[below(items.length)]!;
  const text = (): string => Array.from({ length: below(8) }, () => pick(below(3) === 0 ? ESCAPED : PLAIN)).join('') + (below(30) === 0 ? 'long '.repeat(80) : '');
  const number = (): number => (below(3) === 0 ? pick(NUMBERS) : below(MAX_UINT32 + 1));
  const time = (): number => (below(10) === 0 ? pick([0, YEAR_10000 - 1, YEAR_10000 - 86_400_000]) : below(YEAR_10000 / 2));
  // Two tables, so text keys are compared across tables too.
  const tables = [new PackedEvents(), new PackedEvents()];
  const kept: { table: number; record: EventRecord; seq: number; modifiedMs: number; stored: StoredEvent; view?: string }[] = [];
  const packedSlots = [0, 0];
  const check = (entry: (typeof kept)[number], what: string): void => {
    assert.deepEqual(observed(entry.stored), expected(entry.record, entry.seq, entry.modifiedMs, entry.view), what);
  };
  for (let step = 1; step <= 1500; step++) {
    const what = `seed ${SEED} (PACKED_SEED repeats it), step ${step}`;
    const kind = below(10);
    const packedOnes = kept.filter((each) => each.stored instanceof PackedEvent);
    if (kind < 6 || packedOnes.length === 0) {
      const start = time();
      const created = below(4) === 0 ? pick([0, YEAR_10000 - 1]) : below(YEAR_10000);
      const record = sampleRecord(step, {
        title: text(),
        description: below(4) === 0 ? pick(['', 'Weekly seminar', 'é 日本']) : text(),
        location: below(2) === 0 ? pick(['Main hall', 'Hall "B"', 'Room\t2']) : text(),
        category: pick(['academic', 'social', 'athletic', 'cultural'] as const),
        start_time: new Date(start).toISOString(),
        end_time: new Date(Math.min(YEAR_10000 - 1, start + 1 + below(1e10))).toISOString(),
        capacity: number(),
        registered_count: number(),
        organizer: { name: below(2) === 0 ? pick(['Ada', 'Zoë "Z" Ünal']) : text(), email: pick(['Ada@Campus.example', 'x@y.z', `Org${below(5)}+tag@Example.ORG`]) },
        created_at: new Date(created).toISOString(),
        ...(below(3) === 0 ? { series_id: `ser_${pick(['0123456789abcdef', 'ABCDEFGHIJKLMNOPqrst'])}${below(100)}` } : {}),
      });
      // Now and then a view JSON would not write so: a number with a leading zero, which the columns cannot give back.
      const zero = below(12);
      const view = zero === 0 ? viewJson(record).replace(`"capacity":${record.capacity},`, `"capacity":0${record.capacity},`) : zero === 1 ? viewJson(record).replace(`"registered_count":${record.registered_count},`, `"registered_count":0${record.registered_count},`) : viewJson(record);
      const table = below(2);
      const stored = replayed(tables[table]!, record, step, view);
      const written = { table, record, seq: step, modifiedMs: created, stored };
      const entry = view === viewJson(record) ? written : { ...written, view };
      assert.equal(stored instanceof PackedEvent, packable(record, view), `${what}: packed or not`);
      if (stored instanceof PackedEvent) packedSlots[table]!++;
      check(entry, what);
      kept.push(entry);
    } else if (kind < 8) {
      const from = pick(packedOnes);
      const registered = number() % (MAX_UINT32 + 1);
      const modifiedMs = below(YEAR_10000);
      const stored = (from.stored as PackedEvent).recounted(registered, step, modifiedMs);
      packedSlots[from.table]!++;
      const entry = { table: from.table, record: { ...from.record, registered_count: registered }, seq: step, modifiedMs, stored };
      check(entry, `${what}: recount of ${from.record.id}`);
      check(from, `${what}: ${from.record.id} after its recount`);
      kept.push(entry);
    } else {
      check(pick(kept), `${what}: read again`);
    }
    tables.forEach((table, n) => {
      assert.equal(table.slots, packedSlots[n], `${what}: slots`);
      assert.equal(table.blocks, Math.ceil(packedSlots[n]! / BLOCK), `${what}: blocks`);
    });
  }
  for (const entry of kept) check(entry, `seed ${SEED}: ${entry.record.id} at the end`);
  // Equal keys, equal text, in either table; an interned field's equal text in one table, one key.
  const byKey = new Map<number, string>();
  const byText = new Map<string, number>();
  for (const { table, stored } of kept) {
    if (!(stored instanceof PackedEvent)) continue;
    for (const field of [0, 1, 2, 3]) {
      const key = stored.searchTextKey(field);
      const value = stored.searchText(field);
      assert.equal(byKey.get(key) ?? value, value, `seed ${SEED}: key ${key} of two texts`);
      byKey.set(key, value);
      if (field === 0) continue;
      const name = JSON.stringify([table, field, value]);
      assert.equal(byText.get(name) ?? key, key, `seed ${SEED}: one interned text, two keys`);
      byText.set(name, key);
    }
  }
  const keysOf = (table: number): Set<number> => new Set(kept.filter((each) => each.table === table && each.stored instanceof PackedEvent).flatMap((each) => [0, 1, 2, 3].map((field) => (each.stored as PackedEvent).searchTextKey(field))));
  const [left, right] = [keysOf(0), keysOf(1)];
  assert.ok([...left].every((key) => !right.has(key)), `seed ${SEED}: two tables share no key`);
});

test(`a view is built once while it is among the ${RECENT_VIEWS} built last, and measured once for good`, () => {
  const pack = new PackedEvents();
  const record = sampleRecord(1, { title: 'Zoë "cached"', capacity: 5000 });
  const first = replayed(pack, record, 1) as PackedEvent;
  const others = Array.from({ length: RECENT_VIEWS }, (_, n) => first.recounted(n + 1, n + 2, 1000 + n));
  const view = (registered: number): string => viewJson({ ...record, registered_count: registered });
  assert.equal(pack.viewsBuilt, 0, 'nothing is built before it is read');
  assert.equal(first.viewCrc(), crc32(view(0)));
  assert.equal(first.viewBytes(), Buffer.byteLength(view(0)));
  assert.equal(first.json, view(0));
  assert.equal(pack.viewsBuilt, 1, 'measuring built the view; reading it again did not');
  others.slice(0, -1).forEach((each, n) => assert.equal(each.json, view(n + 1)));
  assert.equal(pack.viewsBuilt, RECENT_VIEWS, `${RECENT_VIEWS} views built`);
  assert.equal(first.json, view(0));
  assert.equal(pack.viewsBuilt, RECENT_VIEWS, `the first is still among the ${RECENT_VIEWS} built last`);
  assert.equal(others.at(-1)!.json, view(RECENT_VIEWS));
  assert.equal(pack.viewsBuilt, RECENT_VIEWS + 1);
  assert.equal(first.viewCrc(), crc32(view(0)));
  assert.equal(first.viewBytes(), Buffer.byteLength(view(0)));
  assert.equal(pack.viewsBuilt, RECENT_VIEWS + 1, 'its measures were kept');
  assert.equal(first.json, view(0));
  assert.equal(pack.viewsBuilt, RECENT_VIEWS + 2, 'the oldest view was dropped for the newest, and is built again');
});

test('the columns grow a block at a time, and every slot reads back across block boundaries', () => {
  const pack = new PackedEvents();
  assert.equal(pack.blocks, 0);
  const record = sampleRecord(2, { series_id: 'ser_0123456789abcdefXYZ' });
  const first = replayed(pack, record, 1) as PackedEvent;
  assert.equal(pack.blocks, 1);
  const later: PackedEvent[] = [];
  for (let n = 1; n <= 2 * BLOCK; n++) {
    later.push(first.recounted(n % 1000, n + 1, n));
    assert.equal(pack.blocks, Math.ceil((n + 1) / BLOCK), `after ${n + 1} slots`);
  }
  for (const n of [1, BLOCK - 2, BLOCK - 1, BLOCK, 2 * BLOCK - 1, 2 * BLOCK]) {
    const stored = later[n - 1]!;
    assert.deepEqual(observed(stored), expected({ ...record, registered_count: n % 1000 }, n + 1, n), `slot ${n}`);
  }
});

/** A copy of `view`'s layout in a buffer that starts with `prefix`, so a field can be pointed at the prefix (position 0). */
function placed(view: string, prefix: string): { buf: Buffer; layout: ViewLayout } {
  const buf = Buffer.concat([Buffer.from(prefix), Buffer.from(view)]);
  const layout = scanViewLayout(buf, Buffer.byteLength(prefix), buf.length);
  assert.ok(layout !== undefined, 'the usual layout');
  return { buf, layout: { ...layout } };
}

test('pack() gives back the bytes a layout points at, at position 0 of the buffer too', () => {
  const record = sampleRecord(3, { series_id: 'ser_0123456789abcdefXYZ' });
  for (const [field, literal, changed] of [
    ['title', '"At zero \\"t\\""', { title: 'At zero "t"' }],
    ['location', '"Room\\t0"', { location: 'Room\t0' }],
    ['name', '"Zoë"', { organizer: { ...record.organizer, name: 'Zoë' } }],
    ['email', 'Zero@Example.org', { organizer: { ...record.organizer, email: 'Zero@Example.org' } }],
    ['seriesId', 'ser_ZZZZ0123456789abcd', { series_id: 'ser_ZZZZ0123456789abcd' }],
    ['capacity', '7', { capacity: 7 }],
    ['registered', '0', { registered_count: 0 }],
  ] as const) {
    const pack = new PackedEvents();
    const { buf, layout } = placed(viewJson(record), literal);
    Object.assign(layout, { [`${field}Start`]: 0, [`${field}End`]: Buffer.byteLength(literal) });
    const stored = pack.pack(buf, layout, record.id, Date.parse(record.created_at), 4, 5);
    assert.ok(stored !== undefined, field);
    assert.deepEqual(observed(stored), expected({ ...record, ...changed }, 4, 5), field);
  }
});

test('pack() refuses, taking no slot, what the columns could not give back: times past year 9999, numbers JSON would not write so, text too long', () => {
  const record = sampleRecord(4, { series_id: 'ser_0123456789abcdefXYZ' });
  const tooLong = 'x'.repeat(MAX_TEXT_BYTES + 1);
  const refusals: [string, string, Partial<ViewLayout>, number?][] = [
    ['end at year 10000', '', { endMs: YEAR_10000 }],
    ['created at year 10000', '', {}, YEAR_10000],
    ['no created time (NaN, as replay reads one before 1970)', '', {}, NaN],
    ['an empty capacity', '', { capacityEnd: -1 }],
    ['an empty registered_count', '', { registeredEnd: -1 }],
    ['capacity 2^32', '4294967296', { capacityStart: 0, capacityEnd: 10 }],
    ['registered_count 99999999999', '99999999999', { registeredStart: 0, registeredEnd: 11 }],
    ['registered_count 00', '00', { registeredStart: 0, registeredEnd: 2 }],
    ...(['title', 'description', 'location', 'name', 'email', 'seriesId'] as const).map((field): [string, string, Partial<ViewLayout>] => [`a ${field} too long`, tooLong, { [`${field}Start`]: 0, [`${field}End`]: tooLong.length }]),
  ];
  for (const [what, prefix, change, createdMs = Date.parse(record.created_at)] of refusals) {
    const pack = new PackedEvents();
    const { buf, layout } = placed(viewJson(record), prefix);
    if (change.capacityEnd === -1) change.capacityEnd = layout.capacityStart;
    if (change.registeredEnd === -1) change.registeredEnd = layout.registeredStart;
    assert.equal(pack.pack(buf, { ...layout, ...change }, record.id, createdMs, 4, 5), undefined, what);
    assert.equal(pack.slots, 0, what);
    assert.ok(pack.pack(buf, layout, record.id, Date.parse(record.created_at), 4, 5) instanceof PackedEvent, `${what}: the same buffer packs with its own layout`);
  }
  const last = new PackedEvents().pack(...packArgs(record, YEAR_10000 - 1));
  assert.equal(last?.createdAt, '9999-12-31T23:59:59.999Z', 'created in the last millisecond of 9999');
});

function packArgs(record: EventRecord, createdMs: number): [Buffer, ViewLayout, string, number, number, number] {
  const { buf, layout } = placed(viewJson(record), '');
  return [buf, layout, record.id, createdMs, 4, 5];
}
