// The campus_log table: the file store's record lines, one per row, keyed by the global sequence number.
import { trustedGroupBounds } from '../../lib/group-line.js';
import { decodeLine } from '../records/group-line.js';
import type { DecodeOptions, LogRecord, MetaRecord } from '../records/jsonl-record.js';

/** pg_advisory_xact_lock key held by a write's transaction from its catch-up to its commit: seqs are assigned one transaction at a time. */
export const LOG_LOCK = 0x63616d70_6c6f67;
/** The NOTIFY channel a commit names its newest seq on. */
export const LOG_CHANNEL = 'campus_log';

/**
 * The statement reading rows of campus_log that match `where` a page at a time, in seq order, seqs as numbers. The
 * order names the table's column: a bare `seq` names the float8 output column, which no index orders, so PostgreSQL
 * sorted every row after the page's start for each page (verify of a large log spent most of its time so).
 */
export function logPageSql(where: string, limit: number): string {
  return `SELECT seq::float8 AS seq, line FROM campus_log WHERE ${where} ORDER BY campus_log.seq LIMIT ${limit}`;
}

/** The seq a row is kept under: its line's (an atomic group names its newest member's), or for a group of the older layout (members after tabs) its last member's. */
export function seqOfLine(line: string): number {
  if (line.startsWith('\t')) return Math.max(...line.split('\t').slice(1).map(seqOfMember));
  return seqOfMember(line);
}

/** How many records `line` holds, as verify and a folder's backup count them: an atomic group's members, else one. */
export function recordsIn(line: string): number {
  if (!line.startsWith('\t') && !/^\{"seq":\d{1,15},"op":"group"/.test(line)) return 1;
  const buf = Buffer.from(line, 'utf8');
  const end = buf[buf.length - 1] === 0x0a ? buf.length - 1 : buf.length;
  const group = trustedGroupBounds(buf, 0, end);
  return typeof group === 'string' ? 1 : group.bounds.length / 2;
}

/** The seq a (maybe damaged) line names, for a message: its seq, or `?`. */
export function seqNamedIn(line: string): string {
  const match = /^\t?\{"seq":(\d{1,15}),/.exec(line);
  return match === null ? '?' : match[1]!;
}

/** The seq a record line starts with (`{"seq":41,…`). */
function seqOfMember(line: string): number {
  const match = /^\{"seq":(\d{1,15}),/.exec(line);
  if (match === null) throw new TypeError(`a log line must start with {"seq":N, got ${JSON.stringify(line.slice(0, 40))}`);
  return Number(match[1]);
}

/** The records of rows read from campus_log, checked as replay checks a file's lines; a damaged row stops with its seq. */
export function decodeLines(rows: readonly { seq: number; line: string }[]): (LogRecord | MetaRecord)[] {
  const records: (LogRecord | MetaRecord)[] = [];
  for (const row of rows) {
    const line = row.line.endsWith('\n') ? row.line.slice(0, -1) : row.line;
    // An atomic group (a series and its occurrences) is one row, its members applied together.
    const buf = Buffer.from(line, 'utf8');
    const decoded = decodeLine(buf, 0, buf.length, undefined);
    if (typeof decoded === 'string') throw new Error(`campus_log row ${row.seq} is damaged: ${decoded}`);
    if (Array.isArray(decoded)) records.push(...decoded);
    else records.push(decoded);
  }
  return records;
}

const NEWLINE = 0x0a;
/**
 * Calls `apply` with each record of `text`: record lines as campus_log rows hold them, one after another, each ending
 * in a newline (an atomic group: its members, applied in turn). Reads the bytes in place, as replay reads a file (one buffer,
 * no string per line). A damaged line throws what `damaged` makes of its number (from 1), its text and what is wrong.
 * Returns the lines read.
 */
export function forEachRecord(text: string, damaged: (line: number, text: string, reason: string) => Error, apply: (record: LogRecord | MetaRecord) => void, options: DecodeOptions = {}): number {
  const buf = Buffer.from(text, 'utf8');
  let lines = 0;
  for (let start = 0; start < buf.length; ) {
    let end = buf.indexOf(NEWLINE, start);
    if (end < 0) end = buf.length;
    lines++;
    const decoded = decodeLine(buf, start, end, options);
    if (typeof decoded === 'string') throw damaged(lines, buf.toString('utf8', start, end), decoded);
    if (Array.isArray(decoded)) for (const record of decoded) apply(record);
    else apply(decoded);
    start = end + 1;
  }
  return lines;
}
