// Times as people read them: in the browser's time zone, and back from a `datetime-local` field to UTC.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** `2026-09-01T17:00:00.000Z` as a local date and time, e.g. "1 Sept 2026, 19:00". */
export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

/** The local time of day of an instant. */
export function formatTime(iso: string): string {
  return timeOnly.format(new Date(iso));
}

/** The browser's time zone name, e.g. "Europe/Paris". */
export function timeZoneName(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** An instant as the value of a `datetime-local` input in local time: `YYYY-MM-DDTHH:MM`. */
export function toLocalInput(iso: string): string {
  const date = new Date(iso);
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A `datetime-local` value read as local time, as an RFC 3339 UTC time; undefined when empty or not a date. */
export function fromLocalInput(value: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (match === null) return undefined;
  const [, year, month, day, hours, minutes, seconds] = match.map(Number) as [number, number, number, number, number, number, number];
  const date = new Date(year, month - 1, day, hours, minutes, Number.isNaN(seconds) ? 0 : seconds);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A local calendar day as `YYYY-MM-DD`. */
export function localDayKey(date: Date): string {
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A UTC calendar day as `YYYY-MM-DD`, the form of the API's date filters. */
export function utcDayKey(date: Date): string {
  return date.toISOString().slice(0, 10);
}
