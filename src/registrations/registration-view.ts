// A registration as served (API.md §8): its JSON object, and a page of them as CSV for a spreadsheet.
import type { Registration } from '../store/views/roster.js';
import { crc32 } from '../lib/crc32.js';

/** The JSON of one registration: `{id, event_id, name, email, status, created_at, checked_in_at}`. */
export function registrationJson(registration: Registration): string {
  return JSON.stringify({
    id: registration.id,
    event_id: registration.eventId,
    name: registration.name,
    email: registration.email,
    status: registration.status,
    created_at: registration.createdAt,
    checked_in_at: registration.checkedInAt,
  });
}

/**
 * A registration's strong ETag, from its JSON (`registrationJson`): all a registration has is there, and it only moves
 * forward (waitlisted, confirmed, checked in), so each of its states has its own.
 */
export function registrationEtag(json: string): string {
  return `"r${crc32(json).toString(36)}"`;
}

/** The header row of the CSV, in the order of its cells. */
export const CSV_HEADER = 'id,name,email,status,created_at,checked_in_at';

/** `Content-Type` of the CSV. */
export const CSV_TYPE = 'text/csv; charset=utf-8';

/** A page of registrations as RFC 4180 CSV: a header row, CRLF line ends, an empty cell for null. */
export function registrationsCsv(registrations: readonly Registration[]): string {
  let csv = `${CSV_HEADER}\r\n`;
  for (const r of registrations) {
    csv += [r.id, r.name, r.email, r.status, r.createdAt, r.checkedInAt ?? ''].map(csvCell).join(',') + '\r\n';
  }
  return csv;
}

/**
 * One CSV cell: a text a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR)
 * gets a leading `'`; a cell with a comma, quote or line break is quoted, its quotes doubled.
 */
export function csvCell(value: string): string {
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}
