// Where the id and the four searched texts lie in a logged view's bytes, for the search index's build from the log
// (the worker's): the views scanViewLayout reads, and only the parts the index needs. scanViewLayout also parses both
// times, the counts, the category and the series id for replay, which cost the worker about a tenth of its CPU;
// here the times are only checked, and the keys and times compared four bytes at a time.
import { CATEGORIES } from '../events/event.js';
import { daysInMonth } from '../lib/calendar.js';
import { closingQuote, digitsBefore, openingQuote } from '../lib/json-bytes.js';
import { bytePattern, digitsAt, wordsAt, wordsOf } from './search-log-bytes.js';

/**
 * Byte positions in a view; each text spans its JSON string literal, quotes included: the same positions, under the
 * same names, as the store's ViewLayout (scanViewLayout) gives for these parts.
 */
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
  // A shorter view fails the title's key, which must fit before `end`, and the id's is in it.
  const words = wordsOf(buf);
  if (start + ID_KEY.length > end || !wordsAt(words, start, ID_KEY)) return undefined;
  const idStart = start + ID_KEY.length - EVT_LENGTH;
  let idEnd = idStart + EVT_LENGTH;
  // Past `end` too: an id that runs into the next bytes fails the title's key below.
  while (idEnd < buf.length && ALPHANUMERIC[buf[idEnd]!] === 1) idEnd++;
  if (idEnd - idStart < 20 || idEnd + TITLE_KEY.length > end || !wordsAt(words, idEnd, TITLE_KEY)) return undefined;

  // An occurrence of a series ends with `,"series_id":"ser_…"}` after the organizer.
  let viewEnd = end;
  /** `"}}` ends the view, or `"}` the organizer before a series id. */
  let closing = 3;
  if (buf[end - 1] === CLOSE_BRACE && buf[end - 2] === QUOTE) {
    let seriesIdStart = end - 2;
    while (seriesIdStart > 0 && ALPHANUMERIC[buf[seriesIdStart - 1]!] === 1) seriesIdStart--;
    if (end - 2 - seriesIdStart >= 16 && wordsAt(words, seriesIdStart - SERIES_KEY.length, SERIES_KEY)) {
      viewEnd = seriesIdStart - SERIES_KEY.length;
      closing = 2;
    }
  }
  if (viewEnd < closing || buf[viewEnd - closing] !== QUOTE || buf[viewEnd - closing + 1] !== CLOSE_BRACE || buf[viewEnd - 1] !== CLOSE_BRACE) return undefined;
  const emailEnd = viewEnd - closing;
  let emailStart = emailEnd;
  // As scanViewLayout: an e-mail with an escape or a non-ASCII character in it is left to JSON.parse.
  while (emailStart > 0 && EMAIL_BYTE[buf[emailStart - 1]!] === 1) emailStart--;
  if (!wordsAt(words, emailStart - EMAIL_KEY.length, EMAIL_KEY)) return undefined;
  const nameEnd = emailStart - EMAIL_KEY.length;
  const nameStart = openingQuote(buf, nameEnd, idEnd);
  if (nameStart < 0 || !wordsAt(words, nameStart - ORGANIZER_KEY.length, ORGANIZER_KEY)) return undefined;
  const registeredStart = digitsBefore(buf, nameStart - ORGANIZER_KEY.length);
  if (registeredStart < 0 || !wordsAt(words, registeredStart - REGISTERED_KEY.length, REGISTERED_KEY)) return undefined;
  const capacityStart = digitsBefore(buf, registeredStart - REGISTERED_KEY.length);
  // The times and their keys, from the location's closing quote to the capacity: 90 bytes of a fixed shape.
  const locationEnd = capacityStart - TIMES.length;
  if (capacityStart < 0 || !wordsAt(words, locationEnd, TIMES) || !digitsAt(words, locationEnd, TIMES)) return undefined;
  if (!realTime(buf, locationEnd + START_TIME_AT) || !realTime(buf, locationEnd + END_TIME_AT)) return undefined;
  const locationStart = openingQuote(buf, locationEnd, idEnd);
  if (locationStart < 0 || !wordsAt(words, locationStart - LOCATION_KEY.length, LOCATION_KEY)) return undefined;
  const categoryEnd = locationStart - LOCATION_KEY.length;
  let category = 0;
  while (category < CATEGORY_KEYS.length && !wordsAt(words, categoryEnd - CATEGORY_KEYS[category]!.length, CATEGORY_KEYS[category]!)) category++;
  if (category === CATEGORY_KEYS.length) return undefined;
  // The title's closing quote is its first unescaped one; the description runs from there to the category.
  const titleStart = idEnd + TITLE_KEY.length - 1;
  const titleEnd = closingQuote(buf, titleStart, end) + 1;
  const descriptionStart = titleEnd + DESCRIPTION_KEY.length;
  const descriptionEnd = categoryEnd - CATEGORY_KEYS[category]!.length + 1;
  if (descriptionStart > end || !wordsAt(words, titleEnd, DESCRIPTION_KEY) || buf[descriptionStart] !== QUOTE || descriptionEnd < descriptionStart + 2) return undefined;
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

/** Whether the time at `pos` (its shape and digits checked) names a real instant: the ranges parseUtcTime checks. */
function realTime(buf: Buffer, pos: number): boolean {
  const year = number(buf, pos, 4);
  const month = number(buf, pos + 5, 2);
  const day = number(buf, pos + 8, 2);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || number(buf, pos + 11, 2) > 23 || number(buf, pos + 14, 2) > 59 || number(buf, pos + 17, 2) > 59) return false;
  return day <= daysInMonth(year, month);
}

/** The decimal number of the `digits` digits at `pos`. */
function number(buf: Buffer, pos: number, digits: number): number {
  let value = 0;
  for (let i = 0; i < digits; i++) value = value * 10 + buf[pos + i]! - 0x30;
  return value;
}

/** 1 for each byte value of a class (a 256-entry table: one load a byte). */
function byteClass(test: (byte: number) => boolean): Uint8Array {
  return Uint8Array.from({ length: 256 }, (_, byte) => (test(byte) ? 1 : 0));
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;
const ID_KEY = bytePattern('{"id":"evt_');
const EVT_LENGTH = 4;
const TITLE_KEY = bytePattern('","title":"');
const DESCRIPTION_KEY = bytePattern(',"description":');
const LOCATION_KEY = bytePattern('","location":');
const ORGANIZER_KEY = bytePattern(',"organizer":{"name":');
const REGISTERED_KEY = bytePattern(',"registered_count":');
const EMAIL_KEY = bytePattern(',"email":"');
const SERIES_KEY = bytePattern(',"series_id":"ser_');
const CATEGORY_KEYS = CATEGORIES.map((category) => bytePattern(`","category":"${category}`));
const START_TIME_KEY = ',"start_time":"';
/** A time's shape, `#` a digit. */
const TIME = '####-##-##T##:##:##.###Z';
const TIMES = bytePattern(`${START_TIME_KEY}${TIME}","end_time":"${TIME}","capacity":`);
const START_TIME_AT = START_TIME_KEY.length;
const END_TIME_AT = TIMES.length - '","capacity":'.length - TIME.length;
const ALPHANUMERIC = byteClass((byte) => (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a));
/** The bytes of an e-mail scanViewLayout reads: printable ASCII but the quote and the backslash. */
const EMAIL_BYTE = byteClass((byte) => byte >= 0x20 && byte < 0x7f && byte !== QUOTE && byte !== BACKSLASH);
