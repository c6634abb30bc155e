// The campus_log table: the file store's record lines, one per row, keyed by the global sequence number.
import { decodeRecord } from '../records/decode-record.js';
import type { LogRecord, MetaRecord } from '../records/jsonl-record.js';

/** pg_advisory_xact_lock key held by a write's transaction from its catch-up to its commit: seqs are assigned one transaction at a time. */
export const LOG_LOCK = 0x63616d70_6c6f67;
/** The NOTIFY channel a commit names its newest seq on. */
export const LOG_CHANNEL = 'campus_log';

/** The seq a row is kept under: its line's, or for an atomic group (members after tabs) its last member's. */
export function seqOfLine(line: string): number {
  if (line.startsWith('\t')) return Math.max(...line.split('\t').slice(1).map(seqOfMember));
  return seqOfMember(line);
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
    // An atomic group (a series and its occurrences) is one row: its members after tabs, applied together.
    for (const member of line.startsWith('\t') ? line.split('\t').slice(1) : [line]) {
      const buf = Buffer.from(member, 'utf8');
      const record = decodeRecord(buf, 0, buf.length);
      if (typeof record === 'string') throw new Error(`campus_log row ${row.seq} is damaged: ${record}`);
      records.push(record);
    }
  }
  return records;
}
