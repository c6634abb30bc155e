// Strict RFC 3339 date-time parsing (no Date.parse leniency) and the one output form, YYYY-MM-DDTHH:MM:SS.sssZ.
import { daysInMonth } from '../lib/calendar.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Earliest and latest instants the service stores: years 1970 to 9999, in UTC. */
export const MIN_TIME_MS = Date.UTC(1970, 0, 1);
export const MAX_TIME_MS = Date.UTC(10000, 0, 1) - 1;

/**
 * Parses an RFC 3339 date-time with `Z` or an offset into milliseconds since the epoch,
 * keeping fractional seconds to the millisecond (further digits dropped). Returns undefined for
 * anything else: naive times, impossible dates, `24:00`, leap seconds, out-of-range years.
 */
export function parseDateTime(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (!isRealDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const ms = utcMs(year, month, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  return ms >= MIN_TIME_MS && ms <= MAX_TIME_MS ? ms : undefined;
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
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime();
}
