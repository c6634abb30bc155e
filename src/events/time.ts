// Strict RFC 3339 date-time parsing (no Date.parse leniency), the one output form (YYYY-MM-DDTHH:MM:SS.sssZ), and the check of a date-time field.
import { daysInMonth } from '../lib/calendar.js';
import { type Check, Problem, quote } from '../lib/checks.js';

// The form parseDateTime reads: /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Earliest and latest instants the service stores: years 1970 to 9999, in UTC. */
export const MIN_TIME_MS = Date.UTC(1970, 0, 1);
export const MAX_TIME_MS = Date.UTC(10000, 0, 1) - 1;

/**
 * Parses an RFC 3339 date-time with `Z` or an offset into milliseconds since the epoch,
 * keeping fractional seconds to the millisecond (further digits dropped). Returns undefined for
 * anything else: naive times, impossible dates, `24:00`, leap seconds, out-of-range years.
 * Read character by character (the form written above): every create and update parses two, and a regular
 * expression's match made a dozen strings of each.
 */
export function parseDateTime(text: string): number | undefined {
  const length = text.length;
  if (length < 20 || !(text.charCodeAt(4) === 45 && text.charCodeAt(7) === 45 && (text.charCodeAt(10) | 32) === 116 && text.charCodeAt(13) === 58 && text.charCodeAt(16) === 58)) return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  if (!isRealDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  let at = 19;
  let millis = 0;
  if (text.charCodeAt(at) === 46 /* . */) {
    const from = ++at;
    while (at < length && isDigit(text.charCodeAt(at))) at++;
    if (at === from) return undefined;
    for (let i = from; i < from + 3; i++) millis = millis * 10 + (i < at ? text.charCodeAt(i) - 48 : 0);
  }
  let offsetMinutes = 0;
  const zone = text.charCodeAt(at);
  if ((zone | 32) === 122 /* z */) {
    if (at + 1 !== length) return undefined;
  } else {
    if ((zone !== 43 && zone !== 45) || at + 6 !== length || text.charCodeAt(at + 3) !== 58) return undefined;
    const offsetHours = digits(text, at + 1, 2);
    const offsetMins = digits(text, at + 4, 2);
    if (offsetHours < 0 || offsetMins < 0 || offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (zone === 45 ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const ms = utcMs(year, month, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  return ms >= MIN_TIME_MS && ms <= MAX_TIME_MS ? ms : undefined;
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

/** The number `count` ASCII digits of `text` from `from` make, or -1 when one is not a digit. */
function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) return -1;
    value = value * 10 + code - 48;
  }
  return value;
}

/** Parses a real calendar date `YYYY-MM-DD` into the ms of its midnight UTC, else undefined. */
export function parseDate(text: string): number | undefined {
  const m = DATE_ONLY.exec(text);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (!isRealDate(year, month, day)) return undefined;
  return utcMs(year, month, day, 0, 0, 0, 0);
}

/** Formats an instant as the service writes every time: `2026-09-01T17:00:00.000Z`. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString();
}

function isRealDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number, millis: number): number {
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime();
}

/** An RFC 3339 date-time with `Z` or an offset, normalised to `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export const dateTime: Check<string> = (value, field) => {
  const ms = typeof value === 'string' ? parseDateTime(value) : undefined;
  if (ms === undefined) {
    return new Problem(field, `${field} must be an RFC 3339 date-time with a time zone between 1970 and 9999, such as "2026-09-01T17:00:00Z", got ${quote(value)}`);
  }
  return formatTime(ms);
};
