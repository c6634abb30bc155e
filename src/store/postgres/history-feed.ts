// The past of the database's log as webhooks read it back (API.md §13 with §12): the changes after a position, with their context.
import { eventIdOf, HistoryWalk, isEventRecord, type HistoryRead } from '../views/change-history.js';
import type { LogRecord, MetaRecord } from '../records/jsonl-record.js';
import { withTimeout, type Database, type Queryable } from './client.js';
import { newestCheckpoint, readCheckpointParts, type Checkpoint } from './checkpoint-table.js';
import { decodeLines, forEachRecord, logPageSql, seqNamedIn } from './log-table.js';

/** Rows read back at a time. */
const PAGE = 5000;
/** A stretch touching more events than this is read back by walking the whole log. */
const MAX_EVENTS = 500;
const READ_TIMEOUT_MS = 30_000;

type Row = { seq: number; line: string };
type Range = { since: number; through: number; limit?: number | undefined };

/**
 * The changes after `since` up to `through`, at most `limit`, read from one snapshot (REPEATABLE READ: a checkpoint
 * written meanwhile changes nothing of what is read). Each needs the state before it, which only the newest checkpoint
 * and the rows before `since` can rebuild: of those, only what names an event the stretch touches is decoded (a webhook
 * taken over is usually a moment behind), and the whole log when the stretch touches many. A position before the
 * checkpoint reads as a data folder's log after compaction does: what the checkpoint replaced is reported compacted
 * (`compactedThrough`), and a webhook there reports the gap.
 */
export function readHistory(db: Database, range: Range, nowMs: number): Promise<HistoryRead> {
  return db.transaction(async (tx) => {
    const checkpoint = await withTimeout(newestCheckpoint(tx), READ_TIMEOUT_MS, 'reading the log back for webhooks');
    if (range.since < checkpoint.seq) return walkFromStart(tx, checkpoint, range, nowMs);
    const limit = range.limit ?? Infinity;
    const stretch: Row[] = [];
    const events = new Set<string>();
    let changes = 0;
    for (let last = range.since; changes < limit; ) {
      const rows = await page(tx, 'seq > $1 AND seq <= $2', [last, range.through]);
      if (rows.length === 0) break;
      stretch.push(...rows);
      for (const record of decodeLines(rows)) {
        if (!isEventRecord(record)) continue;
        events.add(eventIdOf(record));
        changes++;
      }
      last = rows[rows.length - 1]!.seq;
    }
    if (events.size > MAX_EVENTS) return walkFromStart(tx, checkpoint, range, nowMs);
    const walk = new HistoryWalk(range.since, limit, nowMs);
    walk.compacted(checkpoint.seq);
    const [marked] = await withTimeout(tx.query<{ seq: number | null }>(`SELECT max(seq)::float8 AS seq FROM campus_log WHERE seq <= $1 AND line ~ '^\\{"seq":[0-9]+,"op":"(mark|regstate)"'`, [range.since]), READ_TIMEOUT_MS, 'reading the log back for webhooks');
    if (marked?.seq !== null && marked?.seq !== undefined) walk.compacted(marked.seq);
    if (events.size > 0) {
      await readCheckpoint(tx, checkpoint, (record) => walk.take(record), events);
      // The first event id a record line names is the event it is about (put, del, reg, regstate, cancel, checkin); an
      // atomic group's row (a series) may name several, so every group row is read (either layout: see group-line.ts).
      const about = `(split_part(split_part(line, '"evt_', 2), '"', 1) = ANY($3) OR left(line, 1) = E'\\t' OR line ~ '^\\{"seq":[0-9]+,"op":"group"')`;
      for (let last = checkpoint.seq; ; ) {
        const rows = await page(tx, `seq > $1 AND seq <= $2 AND ${about}`, [last, range.since, [...events].map((id) => id.slice('evt_'.length))]);
        if (rows.length === 0) break;
        for (const record of decodeLines(rows)) walk.take(record);
        last = rows[rows.length - 1]!.seq;
      }
    }
    for (const record of decodeLines(stretch)) if (!walk.take(record)) break;
    return walk.result;
  }, 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
}

/** The same read, walking the whole log: the newest checkpoint, then campus_log (as the file store walks its log). */
export function readFromStart(db: Database, range: Range, nowMs: number): Promise<HistoryRead> {
  return db.transaction(async (tx) => walkFromStart(tx, await newestCheckpoint(tx), range, nowMs), 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
}

async function walkFromStart(tx: Queryable, checkpoint: Checkpoint, range: Range, nowMs: number): Promise<HistoryRead> {
  const walk = new HistoryWalk(range.since, range.limit ?? Infinity, nowMs);
  // Every row at or before the checkpoint is gone: a webhook behind it reports the gap, as after a compaction.
  walk.compacted(checkpoint.seq);
  let more = true;
  await readCheckpoint(tx, checkpoint, (record) => (more &&= walk.take(record)));
  if (!more) return walk.result;
  for (let last = checkpoint.seq; ; ) {
    const rows = await page(tx, 'seq > $1 AND seq <= $2', [last, range.through]);
    if (rows.length === 0) return walk.result;
    for (const record of decodeLines(rows)) if (record.seq <= range.through && !walk.take(record)) return walk.result;
    last = rows[rows.length - 1]!.seq;
  }
}

/** Each record of the checkpoint (only those about `events`, when given: the others are not even decoded). */
async function readCheckpoint(tx: Queryable, checkpoint: Checkpoint, take: (record: LogRecord | MetaRecord) => void, events?: ReadonlySet<string>): Promise<void> {
  if (checkpoint.seq === 0) return;
  await withTimeout(
    readCheckpointParts(tx, checkpoint.seq, (text, part) => {
      const damaged = (line: number, damagedText: string, reason: string): Error => new Error(`the checkpoint at seq ${checkpoint.seq}, part ${part} line ${line} (seq ${seqNamedIn(damagedText)}), is damaged: ${reason}`);
      forEachRecord(events === undefined ? text : linesAbout(text, events), damaged, take);
    }),
    READ_TIMEOUT_MS,
    'reading the checkpoint back for webhooks',
  );
}

/** The lines of `text` whose first event id is one of `events`. */
function linesAbout(text: string, events: ReadonlySet<string>): string {
  let kept = '';
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const at = text.indexOf('"evt_', start);
    if (at >= 0 && at < end) {
      const close = text.indexOf('"', at + 1);
      if (close > at && close < end && events.has(text.slice(at + 1, close))) kept += text.slice(start, end + 1);
    }
    start = end + 1;
  }
  return kept;
}

function page(db: Queryable, where: string, params: unknown[]): Promise<Row[]> {
  return withTimeout(db.query<Row>(logPageSql(where, PAGE), params), READ_TIMEOUT_MS, 'reading the log back for webhooks');
}
