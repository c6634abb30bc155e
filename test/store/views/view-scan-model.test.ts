// view-scan against the obvious reader: for seeded random records (every JSON escape, control characters, non-ASCII
// text, keys of the layout inside the text, odd ids, e-mails, times and numbers), each part of the view that
// scanViewLayout points at is the part the view was built from, byte for byte, and JSON.parse of it gives the field back;
// a view it refuses is one a plain rule says it must refuse; scanStoredView equals toStored. VIEW_SCAN_SEED=n replays one run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, toStored, viewJson, type EventRecord } from '../../../src/events/event.js';
import { flatCopy, looksLikeUtcTime, parseUtcTime, scanStoredView, scanViewLayout, type ViewLayout } from '../../../src/store/views/view-scan.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['VIEW_SCAN_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Pieces of text: every character JSON escapes, backslash runs before quotes, the layout's own keys, non-ASCII. */
const PIECES = [
  '"', '\\', '\\"', '\\\\', '\\\\"', '"\\', '/', '\b', '\f', '\n', '\r', '\t', '\u0000', '\u0001', '\u001f', '\u007f', ' ', 'a', 'Z', '0', '9',
  'é', 'Zoë', '日本', '🎉', '\u2028', '\u2029', '\ud800', '\udfff', 'ß', '\u00a0',
  '","category":"social', '","location":', '"}}', '"}', '","email":"x@y.z"}}', ',"email":"', ',"organizer":{"name":', ',"registered_count":7',
  '","capacity":12', '","end_time":"2026-01-01T00:00:00.000Z', ',"start_time":"', ',"description":', ',"series_id":"ser_0123456789abcdef"}',
  '","title":"', '{"id":"evt_0123456789abcdef', '1', '2026-09-01T17:00:00.000Z',
];

function text(random: Random, max: number): string {
  let out = '';
  for (let n = Math.floor(random() * max); n > 0; n--) out += random() < 0.5 ? pick(random, PIECES) : ALNUM[Math.floor(random() * ALNUM.length)]!;
  return out;
}

function alnum(random: Random, length: number): string {
  let out = '';
  for (let n = 0; n < length; n++) out += ALNUM[Math.floor(random() * ALNUM.length)]!;
  return out;
}

function randomId(random: Random, prefix: string): string {
  const roll = random();
  if (roll < 0.9) return prefix + alnum(random, 16 + Math.floor(random() * 8));
  if (roll < 0.93) return prefix + alnum(random, 15); // one short
  if (roll < 0.96) return prefix + alnum(random, 10) + pick(random, ['-', '_', 'é', ' ', '"']) + alnum(random, 10);
  return pick(random, ['EVT_', 'evt', 'ev_', 'ser_', 'evt_', '']) + alnum(random, 20);
}

function randomEmail(random: Random): string {
  const roll = random();
  let local = '';
  // Any printable ASCII but the quote and backslash; sometimes those, a control character or a non-ASCII one.
  for (let n = Math.floor(random() * 20); n > 0; n--) local += String.fromCharCode(0x20 + Math.floor(random() * 95)).replace(/["\\]/, '.');
  if (roll < 0.85) return local + '@Campus.Example';
  if (roll < 0.88) return '';
  return local + pick(random, ['"', '\\', 'ë', '\n', '\u001f', '\u007f', '日', '🎉']) + alnum(random, 3);
}

function randomTime(random: Random): string {
  const roll = random();
  if (roll < 0.93) return new Date(Math.floor(random() * 253402300800000)).toISOString();
  return pick(random, [
    '1969-12-31T23:59:59.999Z', '2023-02-29T00:00:00.000Z', '2026-04-31T10:00:00.000Z', '2026-13-01T00:00:00.000Z', '2026-01-01T24:00:00.000Z',
    '2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000+', '2026-01-01 00:00:00.000Z', '2026-1-01T00:00:00.000Z', '+012026-01-01T00:00:00.000Z', '',
    '2024-02-29T00:00:00.000Z', '2000-02-29T23:59:59.999Z', '1970-01-01T00:00:00.000Z',
  ]);
}

function randomCount(random: Random): number {
  const roll = random();
  if (roll < 0.93) return Math.floor(random() * (random() < 0.5 ? 10 : 1e12));
  return pick(random, [-1, -250, 1.5, 1e21, 0]);
}

function randomRecord(random: Random): EventRecord {
  const record: EventRecord = {
    id: randomId(random, 'evt_'),
    title: text(random, 12),
    description: random() < 0.3 ? '' : text(random, 40),
    category: random() < 0.97 ? pick(random, CATEGORIES) : (pick(random, ['Social', 'sports', '', 'academic ']) as EventRecord['category']),
    location: text(random, 8),
    start_time: randomTime(random),
    end_time: randomTime(random),
    capacity: randomCount(random),
    registered_count: randomCount(random),
    organizer: { name: text(random, 8), email: randomEmail(random) },
    created_at: new Date(Math.floor(random() * 4e12)).toISOString(),
  };
  if (random() < 0.3) record.series_id = randomId(random, 'ser_');
  return record;
}

/** The plain rule: the scanner reads a view exactly when every field it reads has the shape the writer gives it. */
function scannable(record: EventRecord): boolean {
  const validTime = (time: string): boolean => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(time) && roundTrips(time) && time >= '1970';
  const count = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;
  return /^evt_[A-Za-z0-9]{16,}$/.test(record.id) && (record.series_id === undefined || /^ser_[A-Za-z0-9]{16,}$/.test(record.series_id)) &&
    /^[\x20-\x7e]*$/.test(record.organizer.email) && !/["\\]/.test(record.organizer.email) && (CATEGORIES as readonly string[]).includes(record.category) &&
    validTime(record.start_time) && validTime(record.end_time) && count(record.capacity) && count(record.registered_count);
}

/** True when Date reads `time` as the very instant it names (no rolled-over day, hour 24 or other shape). */
function roundTrips(time: string): boolean {
  const ms = Date.parse(time);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === time;
}

/** The view built piece by piece, noting where each piece lies in its UTF-8 bytes: the layout the scanner must find. */
function expectedLayout(record: EventRecord): { json: string; layout: ViewLayout } {
  let json = '';
  const at = (): number => Buffer.byteLength(json);
  const put = (piece: string): [number, number] => {
    const start = at();
    json += piece;
    return [start, at()];
  };
  put('{"id":"');
  const inner = (value: string): string => JSON.stringify(value).slice(1, -1);
  const [idStart, idEnd] = put(inner(record.id));
  put('","title":');
  const [titleStart, titleEnd] = put(JSON.stringify(record.title));
  put(',"description":');
  const [descriptionStart, descriptionEnd] = put(JSON.stringify(record.description));
  put(`,"category":"${record.category}","location":`);
  const [locationStart, locationEnd] = put(JSON.stringify(record.location));
  put(`,"start_time":"${record.start_time}","end_time":"${record.end_time}","capacity":`);
  const [capacityStart, capacityEnd] = put(String(record.capacity));
  put(',"registered_count":');
  const [registeredStart, registeredEnd] = put(String(record.registered_count));
  put(',"organizer":{"name":');
  const [nameStart, nameEnd] = put(JSON.stringify(record.organizer.name));
  put(',"email":"');
  const [emailStart, emailEnd] = put(inner(record.organizer.email));
  put('"}');
  let seriesIdStart = -1;
  let seriesIdEnd = -1;
  if (record.series_id !== undefined) {
    put(',"series_id":"');
    [seriesIdStart, seriesIdEnd] = put(inner(record.series_id));
    put('"');
  }
  put('}');
  const layout: ViewLayout = {
    idStart, idEnd, titleStart, titleEnd, descriptionStart, descriptionEnd, category: CATEGORIES.indexOf(record.category as (typeof CATEGORIES)[number]), locationStart, locationEnd,
    startMs: Date.parse(record.start_time), endMs: Date.parse(record.end_time), capacityStart, capacityEnd, registeredStart, registeredEnd, nameStart, nameEnd,
    emailStart, emailEnd, seriesIdStart, seriesIdEnd,
  };
  return { json, layout };
}

/** Bytes around the view that look like its parts (quotes, digits, backslashes, keys), so no bound may be crossed. */
function junk(random: Random): string {
  return text(random, 4) + pick(random, ['', '"', '\\', '0123', 'evt_0123456789abcdefgh', '"}}', '","title":"', 'Z"}}']);
}

test(`scanViewLayout finds every part of 4,000 random views where building them piece by piece put it, and refuses exactly the views a plain rule refuses (seed ${SEED}; VIEW_SCAN_SEED replays it)`, (t) => {
  t.diagnostic(`seed ${SEED}`);
  const random = mulberry32(SEED);
  let scanned = 0;
  for (let n = 0; n < 4000; n++) {
    const record = randomRecord(random);
    const view = viewJson(record);
    const { json, layout: expected } = expectedLayout(record);
    const where = `seed ${SEED}, view ${n}: ${view}`;
    assert.equal(json, view, `${where}: the pieces make the view`);
    const before = junk(random);
    const buf = Buffer.from(before + view + junk(random));
    const start = Buffer.byteLength(before);
    const end = start + Buffer.byteLength(view);
    const layout = scanViewLayout(buf, start, end);
    // No proper part of a view is a view, even with the rest of its bytes right beside it.
    const cut = 1 + Math.floor(random() * (end - start - 1));
    assert.equal(scanViewLayout(buf, start, end - cut), undefined, `${where}: the last ${cut} bytes cut off`);
    assert.equal(scanViewLayout(buf, start + cut, end), undefined, `${where}: the first ${cut} bytes cut off`);
    if (!scannable(record)) {
      assert.equal(layout, undefined, `${where}: refused`);
      assert.equal(scanStoredView(buf, start, end, view, record.created_at, n, 5, undefined), undefined, `${where}: refused as an event`);
      continue;
    }
    scanned++;
    const shifted = Object.fromEntries(Object.entries(expected).map(([key, value]) => [key, /Start$|End$/.test(key) && value >= 0 ? value + start : value]));
    assert.deepEqual({ ...layout }, shifted, `${where}: layout`);
    // What the parts say, read the slow way.
    const part = (from: number, to: number): string => buf.toString('utf8', from, to);
    const l = layout!;
    assert.equal(part(l.idStart, l.idEnd), record.id, where);
    assert.equal(JSON.parse(part(l.titleStart, l.titleEnd)), record.title, where);
    assert.equal(JSON.parse(part(l.descriptionStart, l.descriptionEnd)), record.description, where);
    assert.equal(JSON.parse(part(l.locationStart, l.locationEnd)), record.location, where);
    assert.equal(JSON.parse(part(l.nameStart, l.nameEnd)), record.organizer.name, where);
    assert.equal(Number(part(l.capacityStart, l.capacityEnd)), record.capacity, where);
    assert.equal(Number(part(l.registeredStart, l.registeredEnd)), record.registered_count, where);
    assert.equal(part(l.emailStart, l.emailEnd), record.organizer.email, where);
    assert.equal(CATEGORIES[l.category], record.category, where);
    assert.equal(l.seriesIdStart < 0 ? undefined : part(l.seriesIdStart, l.seriesIdEnd), record.series_id, where);

    const stored = scanStoredView(buf, start, end, view, record.created_at, n, 5, undefined);
    assert.deepEqual(stored, toStored(record, n, view, 5), `${where}: as toStored`);
    const interned: string[] = [];
    const viaIntern = scanStoredView(buf, start, end, view, record.created_at, n, 5, (email) => (interned.push(email), 'shared'));
    assert.deepEqual(interned, [record.organizer.email.toLowerCase()], `${where}: intern is asked once, for the e-mail in lower case`);
    assert.equal(viaIntern?.organizerEmail, 'shared', where);
  }
  // About half the records are scannable (2,000 or so); a run where none were would prove nothing.
  assert.ok(scanned > 1000, `seed ${SEED}: only ${scanned} views were scannable`);
});

/** A scannable view changed into another layout: a field dropped or moved, a value of another type, spaces, broken bytes. */
function otherLayout(random: Random, record: EventRecord, view: string): { how: string; text: string | Buffer } {
  const fields = JSON.parse(view) as Record<string, unknown> & { organizer: Record<string, unknown> };
  const keys = Object.keys(fields).filter((key) => key !== 'series_id');
  const rebuild = (order: string[], changed: Record<string, unknown> = {}): string => JSON.stringify(Object.fromEntries(order.map((key) => [key, key in changed ? changed[key] : fields[key]]).concat(fields['series_id'] === undefined ? [] : [['series_id', fields['series_id']]])));
  const roll = Math.floor(random() * 9);
  const key = pick(random, keys);
  if (roll === 0) return { how: `without ${key}`, text: rebuild(keys.filter((each) => each !== key)) };
  if (roll === 1) {
    const at = Math.floor(random() * (keys.length - 1));
    const order = [...keys];
    [order[at], order[at + 1]] = [order[at + 1]!, order[at]!];
    return { how: `${order[at]} before ${order[at + 1]}`, text: rebuild(order) };
  }
  if (roll === 2) {
    const value = pick(random, [null, 7, true, [], {}, '7', 1.5, -2]);
    // A number where the view has a string, or anything else where it has a number or an object.
    const fits = typeof fields[key] === typeof value && (typeof value !== 'number' || (Number.isInteger(value) && value >= 0));
    return { how: `${key} as ${JSON.stringify(value)}`, text: rebuild(keys, { [key]: fits ? null : value }) };
  }
  if (roll === 3) {
    const part = pick(random, ['name', 'email']);
    const organizer = random() < 0.5 ? { email: fields.organizer['email'], name: fields.organizer['name'] } : { [part]: fields.organizer[part] };
    return { how: `organizer ${JSON.stringify(Object.keys(organizer))}`, text: rebuild(keys, { organizer }) };
  }
  if (roll === 4) {
    const spaced = JSON.stringify(fields, null, 1);
    return { how: 'with spaces', text: random() < 0.5 ? spaced : view.replace(pick(random, ['":', ',"']), (found) => (found === '":' ? '": ' : ', "')) };
  }
  if (roll === 5) {
    // The description's opening quote shared with the category's key: no JSON writer makes it.
    return { how: 'a description of one quote', text: view.replace(/,"description":.*,"category":"/s, ',"description":","category":"') };
  }
  if (roll === 6) {
    // A raw control byte or a byte above ASCII spliced into the e-mail (JSON.stringify escapes the first, keeps the second as UTF-8).
    const bytes = Buffer.from(view);
    const at = bytes.lastIndexOf(',"email":"') + 10 + Math.floor(random() * (record.organizer.email.length + 1));
    const byte = pick(random, [0x00, 0x09, 0x0a, 0x1f, 0x7f, 0x80, 0xc3, 0xff]);
    return { how: `byte ${byte} in the e-mail at ${at}`, text: Buffer.concat([bytes.subarray(0, at), Buffer.from([byte]), bytes.subarray(at)]) };
  }
  if (roll === 8) {
    // The closing bytes broken (a series id's closing quote too): the last or the one before it dropped, the last doubled, a byte before it.
    const [body, last, beforeLast] = [view.slice(0, -2), view.slice(-1), view.slice(-2, -1)];
    const broken = pick(random, [beforeLast, last, beforeLast + last + last, `${beforeLast}x${last}`]);
    return { how: `ending ${JSON.stringify(broken)}`, text: body + broken };
  }
  // Another key's name in place of one: mostly the same name capitalised (same length: only the key's bytes differ).
  const inner = random() < 0.3;
  const renamedKey = inner ? pick(random, ['name', 'email']) : key;
  const renamed = random() < 0.7 ? renamedKey[0]!.toUpperCase() + renamedKey.slice(1) : pick(random, ['desc', 'categories', 'place', 'start', 'end_date', 'seats', 'registered', 'owner', 'ident']);
  const rename = (object: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(object).map(([name, value]) => [name === renamedKey ? renamed : name, value]));
  return { how: `${inner ? 'organizer.' : ''}${renamedKey} renamed ${renamed}`, text: JSON.stringify(inner ? { ...fields, organizer: rename(fields.organizer) } : rename(fields)) };
}

test(`scanViewLayout refuses 3,000 views changed into another layout (seed ${SEED})`, () => {
  const random = mulberry32(SEED + 1);
  for (let n = 0; n < 3000; n++) {
    const record = randomRecord(random);
    if (!scannable(record)) continue;
    const { how, text } = otherLayout(random, record, viewJson(record));
    const buf = Buffer.concat([Buffer.from('"}}evt_0123456789ABCDEFGHIJ'), Buffer.from(text), Buffer.from('"}}')]);
    assert.equal(scanViewLayout(buf, 27, buf.length - 3), undefined, `seed ${SEED}, view ${n}, ${how}: ${buf.toString('utf8', 27, buf.length - 3)}`);
  }
});

test(`parseUtcTime and looksLikeUtcTime agree with Date over random texts with one character changed (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const characters = [...'0123456789-T:.Z +/a'];
  for (let n = 0; n < 20_000; n++) {
    let time = new Date(Math.floor(random() * 253402300800000)).toISOString();
    if (random() < 0.6) {
      const at = Math.floor(random() * 24);
      time = time.slice(0, at) + pick(random, characters) + time.slice(at + 1);
    }
    // At -1 the time's first byte is cut off: the rest must not pass for a time read from before the buffer.
    const pos = Math.floor(random() * 4) - 1;
    const buf = Buffer.from(pos < 0 ? time.slice(1) : '9'.repeat(pos) + time + pick(random, ['', 'Z', '0']));
    const limit = random() < 0.1 ? pos + 23 : buf.length;
    const where = `seed ${SEED}, ${JSON.stringify(time)} at ${pos}, limit ${limit}`;
    const shaped = pos >= 0 && limit - pos >= 24 && /^....-..-..T..:..:..\....Z$/.test(time);
    assert.equal(looksLikeUtcTime(buf, pos, limit), shaped, where);
    const valid = shaped && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(time) && time >= '1970' && roundTrips(time);
    const ms = parseUtcTime(buf, pos, limit);
    if (valid) assert.equal(ms, Date.parse(time), where);
    else assert.ok(Number.isNaN(ms), `${where}: ${ms}`);
  }
});

test('flatCopy gives an equal string for ASCII, escapes and non-ASCII text', () => {
  for (const text of ['', 'a', 'Zoë — 日本 🎉', '\u0000\n"\\', 'x'.repeat(1000)]) {
    assert.equal(flatCopy(text), text);
    assert.equal(flatCopy(`..${text}..`.slice(2, -2)), text);
  }
});
