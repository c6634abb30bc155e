// Reads the index fields of a logged event view straight from its bytes, for fast replay; JSON.parse remains the fallback.
import { CATEGORIES } from '../../events/event.js';
import type { StoredEvent } from '../../events/event.js';
import { daysInMonth } from '../../lib/calendar.js';
import { closingQuote, digitsBefore, openingQuote } from '../../lib/json-bytes.js';
import { ServedEvent } from './served-event.js';

/**
 * The compact form of the view in `buf[start, end)` when it has exactly the layout `viewJson` writes
 * today; `undefined` for any other layout (an older field order, a non-ASCII e-mail), which the
 * caller then reads with JSON.parse. `json` is that view already decoded; `intern` shares equal
 * e-mails (and must return a string that does not point into `json`).
 */
export function scanStoredView(
  buf: Buffer,
  start: number,
  end: number,
  json: string,
  createdAt: string,
  seq: number,
  modifiedMs: number,
  intern: ((value: string) => string) | undefined,
): StoredEvent | undefined {
  const layout = scanViewLayout(buf, start, end);
  if (layout === undefined) return undefined;
  // The e-mail is ASCII here, so its offsets from the end of the view are the same in bytes and in characters.
  // The slice points into `json`: interned (or copied) below, so no other event's e-mail keeps this view alive.
  const email = json.slice(json.length - (end - layout.emailStart), json.length - (end - layout.emailEnd)).toLowerCase();
  // A copy of the id, not a slice of `json`: a map keyed by this id may outlive the event's view.
  const id = buf.toString('latin1', layout.idStart, layout.idEnd);
  const seriesId = layout.seriesIdStart === -1 ? undefined : buf.toString('latin1', layout.seriesIdStart, layout.seriesIdEnd);
  return new ServedEvent(id, layout.startMs, layout.endMs, CATEGORIES[layout.category]!, intern === undefined ? flatCopy(email) : intern(email), createdAt, seq, modifiedMs, json, seriesId);
}

/**
 * Where the parts of a view lie in its bytes, when it has exactly the layout `viewJson` writes. Every
 * `…Start`/`…End` is a byte position; the text fields (title, description, location, name) span their
 * JSON string literal, quotes included; the e-mail spans its characters only (it is plain ASCII here).
 */
export interface ViewLayout {
  idStart: number;
  idEnd: number;
  titleStart: number;
  titleEnd: number;
  descriptionStart: number;
  descriptionEnd: number;
  /** Index in CATEGORIES. */
  category: number;
  locationStart: number;
  locationEnd: number;
  startMs: number;
  endMs: number;
  capacityStart: number;
  capacityEnd: number;
  registeredStart: number;
  registeredEnd: number;
  nameStart: number;
  nameEnd: number;
  emailStart: number;
  emailEnd: number;
  /** The series id of an occurrence (`ser_…`, plain ASCII), or -1 for an event outside a series. */
  seriesIdStart: number;
  seriesIdEnd: number;
}

/** The one layout object scanViewLayout fills (replay reads a million views: no object per view). */
const LAYOUT: ViewLayout = {
  idStart: 0, idEnd: 0, titleStart: 0, titleEnd: 0, descriptionStart: 0, descriptionEnd: 0, category: 0, locationStart: 0, locationEnd: 0,
  startMs: 0, endMs: 0, capacityStart: 0, capacityEnd: 0, registeredStart: 0, registeredEnd: 0, nameStart: 0, nameEnd: 0, emailStart: 0, emailEnd: 0,
  seriesIdStart: 0, seriesIdEnd: 0,
};

/**
 * The layout of the view in `buf[start, end)`, or undefined for any other layout. The result is
 * overwritten by the next call. The description is never scanned: the id and the title are read
 * forward from the start, everything else backward from the end, where only short strings lie.
 */
export function scanViewLayout(buf: Buffer, start: number, end: number): ViewLayout | undefined {
  const idStart = expect(buf, start, end, ID_KEY);
  if (!startsWith(buf, idStart, EVT_PREFIX)) return undefined;
  let idEnd = idStart + EVT_PREFIX.length;
  // Past `end` too: an id that runs into the next bytes fails the title's key below, which must fit before `end`.
  while (isAlphanumeric(buf[idEnd]!)) idEnd++;
  if (idEnd - idStart < 20 || expect(buf, idEnd, end, TITLE_KEY) < 0) return undefined;

  // An occurrence of a series ends with `,"series_id":"ser_…"}` after the organizer.
  const series = seriesSuffix(buf, end);
  const viewEnd = series === undefined ? end : series.start;
  if (!endsWith(buf, viewEnd, series === undefined ? VIEW_END : ORGANIZER_END)) return undefined;
  const emailEnd = viewEnd - (series === undefined ? VIEW_END.length : ORGANIZER_END.length);
  let emailStart = emailEnd;
  // Bounded by the quote that opens the e-mail (or the title's, before it, in any other layout).
  while (buf[emailStart - 1]! >= 0x20 && buf[emailStart - 1]! < 0x7f && buf[emailStart - 1] !== QUOTE && buf[emailStart - 1] !== BACKSLASH) emailStart--;
  // An e-mail with an escape or a non-ASCII character in it is left to JSON.parse.
  if (!endsWith(buf, emailStart, EMAIL_KEY)) return undefined;
  const nameEnd = emailStart - EMAIL_KEY.length;
  const nameStart = openingQuote(buf, nameEnd, idEnd);
  const registeredEnd = before(buf, nameStart, ORGANIZER_KEY);
  const registeredStart = digitsBefore(buf, registeredEnd);
  const capacityEnd = before(buf, registeredStart, REGISTERED_KEY);
  const capacityStart = digitsBefore(buf, capacityEnd);
  let pos = before(buf, capacityStart, CAPACITY_KEY) - 24;
  const endMs = parseUtcTime(buf, pos, end);
  pos = before(buf, pos, END_KEY) - 24;
  const startMs = parseUtcTime(buf, pos, end);
  const locationEnd = before(buf, pos, START_KEY);
  const locationStart = openingQuote(buf, locationEnd, idEnd);
  const categoryEnd = before(buf, locationStart, LOCATION_KEY);
  const category = categoryBefore(buf, categoryEnd);
  if (category < 0 || Number.isNaN(startMs) || Number.isNaN(endMs)) return undefined;
  // The title's closing quote is its first unescaped one (the location's opening quote, found above, is one such);
  // the description runs from there to the category.
  const titleStart = idEnd + TITLE_KEY.length - 1;
  const titleEnd = closingQuote(buf, titleStart, end) + 1;
  const descriptionStart = expect(buf, titleEnd, end, DESCRIPTION_KEY);
  const descriptionEnd = categoryEnd - CATEGORY_KEYS[category]!.length + 1;
  if (descriptionStart < 0 || buf[descriptionStart] !== QUOTE || descriptionEnd < descriptionStart + 2) return undefined;
  const layout = LAYOUT;
  layout.idStart = idStart;
  layout.idEnd = idEnd;
  layout.titleStart = titleStart;
  layout.titleEnd = titleEnd;
  layout.descriptionStart = descriptionStart;
  layout.descriptionEnd = descriptionEnd;
  layout.category = category;
  layout.locationStart = locationStart;
  layout.locationEnd = locationEnd;
  layout.startMs = startMs;
  layout.endMs = endMs;
  layout.capacityStart = capacityStart;
  layout.capacityEnd = capacityEnd;
  layout.registeredStart = registeredStart;
  layout.registeredEnd = registeredEnd;
  layout.nameStart = nameStart;
  layout.nameEnd = nameEnd;
  layout.emailStart = emailStart;
  layout.emailEnd = emailEnd;
  layout.seriesIdStart = series === undefined ? -1 : series.idStart;
  layout.seriesIdEnd = series === undefined ? -1 : end - 2;
  return layout;
}

/** Where `,"series_id":"ser_…"}` ends a view: the offset of its comma and of the id; undefined when it does not. */
function seriesSuffix(buf: Buffer, end: number): { start: number; idStart: number } | undefined {
  if (buf[end - 1] !== CLOSE_BRACE || buf[end - 2] !== QUOTE) return undefined;
  let idStart = end - 2;
  // Bounded by the `_` of `ser_`, or by any other byte a view holds before it.
  while (isAlphanumeric(buf[idStart - 1]!)) idStart--;
  if (end - 2 - idStart < 16 || !endsWith(buf, idStart, SERIES_KEY)) return undefined;
  return { start: idStart - SERIES_KEY.length, idStart: idStart - 4 };
}

/** A copy of `text` that shares no memory with the string it was sliced from. */
export function flatCopy(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** True when `buf[pos]` starts the shape of a `YYYY-MM-DDTHH:MM:SS.sssZ` time (separators only: cheap, for `created_at`). */
export function looksLikeUtcTime(buf: Buffer, pos: number, limit: number): boolean {
  return pos >= 0 && pos + 24 <= limit && buf[pos + 4] === DASH && buf[pos + 7] === DASH && buf[pos + 10] === T && buf[pos + 13] === COLON && buf[pos + 16] === COLON && buf[pos + 19] === DOT && buf[pos + 23] === Z;
}

/**
 * Milliseconds of the `YYYY-MM-DDTHH:MM:SS.sssZ` time at `buf[pos]` (24 bytes, before `limit`);
 * NaN when it is not one, or not a real date.
 */
export function parseUtcTime(buf: Buffer, pos: number, limit: number = buf.length): number {
  if (!looksLikeUtcTime(buf, pos, limit)) return NaN;
  const year = digit(buf, pos) * 1000 + digit(buf, pos + 1) * 100 + digit(buf, pos + 2) * 10 + digit(buf, pos + 3);
  const month = digit(buf, pos + 5) * 10 + digit(buf, pos + 6);
  const day = digit(buf, pos + 8) * 10 + digit(buf, pos + 9);
  const hour = digit(buf, pos + 11) * 10 + digit(buf, pos + 12);
  const minute = digit(buf, pos + 14) * 10 + digit(buf, pos + 15);
  const second = digit(buf, pos + 17) * 10 + digit(buf, pos + 18);
  const ms = digit(buf, pos + 20) * 100 + digit(buf, pos + 21) * 10 + digit(buf, pos + 22);
  // A non-digit is NaN, which fails every comparison below.
  if (!(year >= 1970 && month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59 && ms >= 0)) return NaN;
  if (day > daysInMonth(year, month)) return NaN;
  return (((daysSinceEpoch(year, month, day) * 24 + hour) * 60 + minute) * 60 + second) * 1000 + ms;
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil), cheaper than Date.UTC. */
function daysSinceEpoch(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** The decimal digit at `pos`, or NaN. */
function digit(buf: Buffer, pos: number): number {
  const value = buf[pos]! - 0x30;
  return value >= 0 && value <= 9 ? value : NaN;
}

/** The position after `literal` when it is at `pos` (before `end`), else -1 (which every later step passes on). */
function expect(buf: Buffer, pos: number, end: number, literal: Buffer): number {
  if (pos < 0 || pos + literal.length > end) return -1;
  for (let i = 0; i < literal.length; i++) if (buf[pos + i] !== literal[i]) return -1;
  return pos + literal.length;
}

function startsWith(buf: Buffer, pos: number, literal: Buffer): boolean {
  return expect(buf, pos, buf.length, literal) !== -1;
}

/** The position where `literal` starts when it ends at `pos`, else -1 (which every later step passes on). */
function before(buf: Buffer, pos: number, literal: Buffer): number {
  return endsWith(buf, pos, literal) ? pos - literal.length : -1;
}

function endsWith(buf: Buffer, pos: number, literal: Buffer): boolean {
  return expect(buf, pos - literal.length, pos, literal) !== -1;
}

export function isAlphanumeric(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
}

/** The index in CATEGORIES of the category whose name ends at `pos` (before its closing quote), or -1. */
function categoryBefore(buf: Buffer, pos: number): number {
  for (let i = 0; i < CATEGORY_KEYS.length; i++) {
    if (endsWith(buf, pos, CATEGORY_KEYS[i]!)) return i;
  }
  return -1;
}

/** The bytes of an ASCII key (its UTF-8). */
const ascii = (text: string): Buffer => Buffer.from(text);
const ID_KEY = ascii('{"id":"');
const EVT_PREFIX = ascii('evt_');
const TITLE_KEY = ascii('","title":"');
const DESCRIPTION_KEY = ascii(',"description":');
const LOCATION_KEY = ascii('","location":');
const START_KEY = ascii(',"start_time":"');
const END_KEY = ascii('","end_time":"');
const CAPACITY_KEY = ascii('","capacity":');
const REGISTERED_KEY = ascii(',"registered_count":');
const ORGANIZER_KEY = ascii(',"organizer":{"name":');
const EMAIL_KEY = ascii(',"email":"');
const VIEW_END = ascii('"}}');
const ORGANIZER_END = ascii('"}');
const SERIES_KEY = ascii(',"series_id":"ser_');
const CLOSE_BRACE = 0x7d;
/** Each category with the keys around it, in the order of CATEGORIES: `","category":"social`. */
const CATEGORY_KEYS: Buffer[] = CATEGORIES.map((category) => ascii(`","category":"${category}`));
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const DASH = 0x2d;
const COLON = 0x3a;
const DOT = 0x2e;
const T = 0x54;
const Z = 0x5a;
