// Where the id and the four searched texts lie in a logged view's bytes, for the search index's build from the log
// (the worker's): the views scanViewLayout reads, and only the parts the index needs. scanViewLayout also parses both
// times, the counts, the category and the series id for replay, which cost the worker about a tenth of its CPU;
// here the times are only checked, the 90 fixed bytes around them in one pass over a template.
import { CATEGORIES } from '../../events/event.js';
import { closingQuote, digitsBefore, isAlphanumeric, openingQuote } from '../views/view-scan.js';

/** Byte positions in a view; each text spans its JSON string literal, quotes included (as in ViewLayout). */
export interface ViewTexts {
  idStart: number;
  idEnd: number;
  titleStart: number;
  titleEnd: number;
  descriptionStart: number;
  descriptionEnd: number;
  locationStart: number;
  locationEnd: number;
  nameStart: number;
  nameEnd: number;
}

/** The one result locateViewTexts fills (a million views at start-up: no object per view). */
const TEXTS: ViewTexts = { idStart: 0, idEnd: 0, titleStart: 0, titleEnd: 0, descriptionStart: 0, descriptionEnd: 0, locationStart: 0, locationEnd: 0, nameStart: 0, nameEnd: 0 };

/**
 * The id and texts of the view in `buf[start, end)`, exactly where scanViewLayout finds them, for exactly the views
 * it reads (every check it makes is made here: a view it refuses, another layout, is refused here too, and the
 * caller reads it with JSON.parse); undefined otherwise. The result is overwritten by the next call.
 */
export function locateViewTexts(buf: Buffer, start: number, end: number): ViewTexts | undefined {
  if (!startsWith(buf, start, ID_KEY)) return undefined;
  const idStart = start + ID_KEY.length - EVT_LENGTH;
  let idEnd = idStart + EVT_LENGTH;
  // Past `end` too: an id that runs into the next bytes fails the title's key, which must fit before `end`.
  while (isAlphanumeric(buf[idEnd]!)) idEnd++;
  if (idEnd - idStart < 20 || idEnd + TITLE_KEY.length > end || !startsWith(buf, idEnd, TITLE_KEY)) return undefined;

  // An occurrence of a series ends with `,"series_id":"ser_…"}` after the organizer.
  let viewEnd = end;
  let closing = VIEW_END;
  if (buf[end - 1] === CLOSE_BRACE && buf[end - 2] === QUOTE) {
    let seriesIdStart = end - 2;
    while (isAlphanumeric(buf[seriesIdStart - 1]!)) seriesIdStart--;
    if (end - 2 - seriesIdStart >= 16 && endsWith(buf, seriesIdStart, SERIES_KEY)) {
      viewEnd = seriesIdStart - SERIES_KEY.length;
      closing = ORGANIZER_END;
    }
  }
  if (!endsWith(buf, viewEnd, closing)) return undefined;
  const emailEnd = viewEnd - closing.length;
  let emailStart = emailEnd;
  // As scanViewLayout: an e-mail with an escape or a non-ASCII character in it is left to JSON.parse.
  while (buf[emailStart - 1]! >= 0x20 && buf[emailStart - 1]! < 0x7f && buf[emailStart - 1] !== QUOTE && buf[emailStart - 1] !== BACKSLASH) emailStart--;
  if (!endsWith(buf, emailStart, EMAIL_KEY)) return undefined;
  const nameEnd = emailStart - EMAIL_KEY.length;
  const nameStart = openingQuote(buf, nameEnd, idEnd);
  if (nameStart < 0 || !endsWith(buf, nameStart, ORGANIZER_KEY)) return undefined;
  const registeredStart = digitsBefore(buf, nameStart - ORGANIZER_KEY.length);
  if (registeredStart < 0 || !endsWith(buf, registeredStart, REGISTERED_KEY)) return undefined;
  const capacityStart = digitsBefore(buf, registeredStart - REGISTERED_KEY.length);
  // The times and their keys, from the location's closing quote to the capacity: 90 bytes of a fixed shape.
  const locationEnd = capacityStart - TIMES.length;
  if (capacityStart < 0 || locationEnd < 0 || !timesAt(buf, locationEnd)) return undefined;
  const locationStart = openingQuote(buf, locationEnd, idEnd);
  if (locationStart < 0 || !endsWith(buf, locationStart, LOCATION_KEY)) return undefined;
  const categoryEnd = locationStart - LOCATION_KEY.length;
  let category = 0;
  while (category < CATEGORY_KEYS.length && !endsWith(buf, categoryEnd, CATEGORY_KEYS[category]!)) category++;
  if (category === CATEGORY_KEYS.length) return undefined;
  // The title's closing quote is its first unescaped one; the description runs from there to the category.
  const titleStart = idEnd + TITLE_KEY.length - 1;
  const titleEnd = closingQuote(buf, titleStart, end) + 1;
  const descriptionStart = titleEnd + DESCRIPTION_KEY.length;
  const descriptionEnd = categoryEnd - CATEGORY_KEYS[category]!.length + 1;
  if (descriptionStart > end || !startsWith(buf, titleEnd, DESCRIPTION_KEY) || buf[descriptionStart] !== QUOTE || descriptionEnd < descriptionStart + 2) return undefined;
  const texts = TEXTS;
  texts.idStart = idStart;
  texts.idEnd = idEnd;
  texts.titleStart = titleStart;
  texts.titleEnd = titleEnd;
  texts.descriptionStart = descriptionStart;
  texts.descriptionEnd = descriptionEnd;
  texts.locationStart = locationStart;
  texts.locationEnd = locationEnd;
  texts.nameStart = nameStart;
  texts.nameEnd = nameEnd;
  return texts;
}

/** Whether `literal` is at `pos` (a byte past the buffer never matches). */
function startsWith(buf: Buffer, pos: number, literal: Uint8Array): boolean {
  for (let i = 0; i < literal.length; i++) if (buf[pos + i] !== literal[i]) return false;
  return true;
}

/** Whether `literal` ends at `pos`, compared from its last byte (so the categories differ at the first or third). */
function endsWith(buf: Buffer, pos: number, literal: Uint8Array): boolean {
  const from = pos - literal.length;
  if (from < 0) return false;
  for (let i = literal.length - 1; i >= 0; i--) if (buf[from + i] !== literal[i]) return false;
  return true;
}

/**
 * Whether the 90 bytes at `pos` (all in the buffer) are `,"start_time":"…","end_time":"…","capacity":` with two
 * real UTC times of the `YYYY-MM-DDTHH:MM:SS.sssZ` shape, as parseUtcTime reads them (1970 or later, a real day).
 */
function timesAt(buf: Buffer, pos: number): boolean {
  for (let i = 0; i < TIMES.length; i++) {
    const byte = buf[pos + i]!;
    if (TIMES[i] === DIGIT ? byte < 0x30 || byte > 0x39 : byte !== TIMES[i]) return false;
  }
  return realTime(buf, pos + START_TIME_AT) && realTime(buf, pos + END_TIME_AT);
}

/** Whether the time at `pos`, its digits checked, names a real instant: the ranges parseUtcTime checks. */
function realTime(buf: Buffer, pos: number): boolean {
  const year = number(buf, pos, 4);
  const month = number(buf, pos + 5, 2);
  const day = number(buf, pos + 8, 2);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || number(buf, pos + 11, 2) > 23 || number(buf, pos + 14, 2) > 59 || number(buf, pos + 17, 2) > 59) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/** The decimal number of the `digits` digits at `pos`. */
function number(buf: Buffer, pos: number, digits: number): number {
  let value = 0;
  for (let i = 0; i < digits; i++) value = value * 10 + buf[pos + i]! - 0x30;
  return value;
}

const ascii = (text: string): Uint8Array => new Uint8Array(Buffer.from(text));
const ID_KEY = ascii('{"id":"evt_');
const EVT_LENGTH = 4;
const TITLE_KEY = ascii('","title":"');
const DESCRIPTION_KEY = ascii(',"description":');
const LOCATION_KEY = ascii('","location":');
const ORGANIZER_KEY = ascii(',"organizer":{"name":');
const REGISTERED_KEY = ascii(',"registered_count":');
const EMAIL_KEY = ascii(',"email":"');
const VIEW_END = ascii('"}}');
const ORGANIZER_END = ascii('"}');
const SERIES_KEY = ascii(',"series_id":"ser_');
const CATEGORY_KEYS: Uint8Array[] = CATEGORIES.map((category) => ascii(`","category":"${category}`));
/** In TIMES, a byte that must be a decimal digit. */
const DIGIT = 0;
const START_TIME_KEY = ',"start_time":"';
const TIME = '####-##-##T##:##:##.###Z';
const TIMES = ascii(`${START_TIME_KEY}${TIME}","end_time":"${TIME}","capacity":`).map((byte) => (byte === 0x23 ? DIGIT : byte));
const START_TIME_AT = START_TIME_KEY.length;
const END_TIME_AT = TIMES.length - '","capacity":'.length - TIME.length;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;
