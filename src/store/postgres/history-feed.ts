// The past of the database's log as webhooks read it back (API.md §13 with §12): the changes after a position, with their context.
import { eventIdOf, HistoryWalk, isEventRecord, type HistoryRead } from '../views/change-history.js';
import { withTimeout, type Queryable } from './client.js';
import { decodeLines } from './log-table.js';

/** Rows read back at a time. */
const PAGE = 5000;
/** A stretch touching more events than this is read back by walking the whole log. */
const MAX_EVENTS = 500;
const READ_TIMEOUT_MS = 30_000;

type Row = { seq: number; line: string };

/**
 * The changes after `since` up to `through`, at most `limit`. Each needs the state before it, which only the records
 * before `since` can rebuild: of those, only the rows naming an event the stretch touches are read (a webhook taken
 * over is usually a moment behind, in a log of millions of rows), and the whole log when the stretch touches many.
 */
export async function readHistory(db: Queryable, range: { since: number; through: number; limit?: number | undefined }, nowMs: number): Promise<HistoryRead> {
  const limit = range.limit ?? Infinity;
  const stretch: Row[] = [];
  const events = new Set<string>();
  let changes = 0;
  for (let last = range.since; changes < limit; ) {
    const rows = await page(db, 'seq > $1 AND seq <= $2', [last, range.through]);
    if (rows.length === 0) break;
    stretch.push(...rows);
    for (const record of decodeLines(rows)) {
      if (!isEventRecord(record)) continue;
      events.add(eventIdOf(record));
      changes++;
    }
    last = rows[rows.length - 1]!.seq;
  }
  if (events.size > MAX_EVENTS) return readFromStart(db, range, nowMs);
  const walk = new HistoryWalk(range.since, limit, nowMs);
  const [marked] = await withTimeout(db.query<{ seq: number | null }>(`SELECT max(seq)::float8 AS seq FROM campus_log WHERE seq <= $1 AND line ~ '^\\{"seq":[0-9]+,"op":"(mark|regstate)"'`, [range.since]), READ_TIMEOUT_MS, 'reading the log back for webhooks');
  if (marked?.seq !== null && marked?.seq !== undefined) walk.compacted(marked.seq);
  if (events.size > 0) {
    // The first event id a record line names is the event it is about (put, del, reg, regstate, cancel, checkin); an
    // atomic group's row (a series) may name several, so every group row is read.
    const about = `(split_part(split_part(line, '"evt_', 2), '"', 1) = ANY($3) OR left(line, 1) = E'\\t')`;
    for (let last = 0; ; ) {
      const rows = await page(db, `seq > $1 AND seq <= $2 AND ${about}`, [last, range.since, [...events].map((id) => id.slice('evt_'.length))]);
      if (rows.length === 0) break;
      for (const record of decodeLines(rows)) walk.take(record);
      last = rows[rows.length - 1]!.seq;
    }
  }
  for (const record of decodeLines(stretch)) if (!walk.take(record)) break;
  return walk.result;
}

/** The same read, walking campus_log from its start (as the file store walks its log). */
export async function readFromStart(db: Queryable, range: { since: number; through: number; limit?: number | undefined }, nowMs: number): Promise<HistoryRead> {
  const walk = new HistoryWalk(range.since, range.limit ?? Infinity, nowMs);
  for (let last = 0; ; ) {
    const rows = await page(db, 'seq > $1 AND seq <= $2', [last, range.through]);
    if (rows.length === 0) return walk.result;
    for (const record of decodeLines(rows)) if (record.seq <= range.through && !walk.take(record)) return walk.result;
    last = rows[rows.length - 1]!.seq;
  }
}

function page(db: Queryable, where: string, params: unknown[]): Promise<Row[]> {
  return withTimeout(db.query<Row>(`SELECT seq::float8 AS seq, line FROM campus_log WHERE ${where} ORDER BY seq LIMIT ${PAGE}`, params), READ_TIMEOUT_MS, 'reading the log back for webhooks');
}
