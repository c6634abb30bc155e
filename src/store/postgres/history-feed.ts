// The webhooks' view of the database's log (API.md §13 with §12): each record applied with its context, and the past read back.
import { HistoryWalk, touchedBy, type CommittedChange, type HistoryRead } from '../change-history.js';
import type { LogRecord, MetaRecord } from '../jsonl-record.js';
import { withTimeout, type Queryable } from './client.js';
import { applyRecord, type Views } from './apply-record.js';
import { decodeLines } from './log-table.js';

/** Rows read back at a time. */
const PAGE = 5000;

/**
 * Applies a record another instance committed (as applyRecord does) and, when `told` is given, adds it there as a
 * change with its context: the event before and after it, and the registrations it touched, as its writer saw them.
 */
export function applyAndTell(views: Views, record: LogRecord | MetaRecord, nowMs: number, told: CommittedChange[] | undefined): void {
  if (told === undefined || !isEventRecord(record)) return applyRecord(views, record, nowMs);
  const id = record.op === 'put' ? record.stored.id : record.op === 'del' ? record.id : record.op === 'reg' || record.op === 'regstate' ? record.registration.eventId : record.eventId;
  const before = views.index.get(id);
  const touched = touchedBy(record, views.rosters.get(id));
  applyRecord(views, record, nowMs);
  const now = views.index.get(id);
  const after = record.op === 'put' ? record.stored : record.op === 'del' ? null : now !== before ? now : undefined;
  told.push({ record, before, after, touched, atMs: nowMs });
}

function isEventRecord(record: LogRecord | MetaRecord): record is LogRecord {
  return record.op === 'put' || record.op === 'del' || record.op === 'reg' || record.op === 'cancel' || record.op === 'checkin' || record.op === 'regstate';
}

/** The changes after `since` up to `through`, at most `limit`, walking campus_log from its start (as the file store walks its log). */
export async function readHistory(db: Queryable, range: { since: number; through: number; limit?: number | undefined }, nowMs: number): Promise<HistoryRead> {
  const walk = new HistoryWalk(range.since, range.limit ?? Infinity, nowMs);
  let last = 0;
  for (;;) {
    const rows = await withTimeout(db.query<{ seq: number; line: string }>('SELECT seq::float8 AS seq, line FROM campus_log WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3', [last, range.through, PAGE]), 10_000, 'reading the log back for webhooks');
    if (rows.length === 0) return walk.result;
    for (const record of decodeLines(rows)) if (record.seq <= range.through && !walk.take(record)) return walk.result;
    last = rows[rows.length - 1]!.seq;
  }
}
