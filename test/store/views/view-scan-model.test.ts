// view-scan against the obvious reader: for seeded random records (every JSON escape, control characters, non-ASCII
// text, keys of the layout inside the text, odd ids, e-mails, times and numbers), each part of the view that
// scanViewLayout points at is the part the view was built from, byte for byte, and JSON.parse of it gives the field back;
// a view it refuses is one a plain rule says it must refuse; scanStoredView equals toStored. VIEW_SCAN_SEED=n replays one run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATEGORIES, viewJson, type EventRecord } from '../../../src/events/event.js';
import { toStored } from '../../../src/store/views/served-event.js';
import { flatCopy, looksLikeUtcTime, parseUtcTime, scanStoredView, scanViewLayout, type ViewLayout } from '../../../src/store/views/view-scan.js';
import { mulberry32 } from '../../helpers/random.js';
import { junk, otherLayout, pick, randomRecord } from '../../helpers/random-views.js';

const SEED = Number(process.env['VIEW_SCAN_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

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
