// Reading campus_log into the views: every committed record after the last one applied, in seq order.
import type { Views } from '../views/apply-record.js';
import { applyRecord } from '../views/apply-record.js';
import { withTimeout, type Queryable } from './client.js';
import { decodeLines } from './log-table.js';

/** How long a read may take before the database counts as unreachable. */
const QUERY_TIMEOUT_MS = 2_000;

/** Rows a catch-up reads at a time. */
const CATCH_UP_ROWS = 5000;

/** A log row as a catch-up reads it. */
export type LogRow = { seq: number; line: string };

/** The log after `lastSeq`, in order; seq::float8: an exact number for every seq below 2^53, where int8 would come back as a string. */
export function catchUpQuery(lastSeq: number): string {
  return `SELECT seq::float8 AS seq, line FROM campus_log WHERE seq > ${Math.trunc(lastSeq)} ORDER BY seq LIMIT ${CATCH_UP_ROWS}`;
}

/** The views a catch-up applies records to, and where they stand in the log. */
export interface CatchUpTarget {
  readonly views: Views;
  readonly now: () => number;
  /** The seq of the newest record applied to the views. */
  lastSeq(): number;
  /** The views hold every record up to `seq` now. */
  advance(seq: number): void;
}

/** Applies every committed record after the target's lastSeq, in seq order; `read`: the first rows, read already (by catchUpQuery). */
export async function catchUp(db: Queryable, target: CatchUpTarget, read?: readonly LogRow[]): Promise<void> {
  for (;;) {
    const rows = read ?? (await withTimeout(db.query<LogRow>(catchUpQuery(target.lastSeq())), QUERY_TIMEOUT_MS, 'reading the log'));
    read = undefined;
    // Rows read before the batch ahead applied its own (see WriteBatches) are in the views already.
    const fresh = rows.filter((row) => row.seq > target.lastSeq());
    if (fresh.length > 0) {
      const nowMs = target.now();
      for (const record of decodeLines(fresh)) {
        applyRecord(target.views, record, nowMs);
        if (record.seq > target.lastSeq()) target.advance(record.seq);
      }
      target.advance(Math.max(target.lastSeq(), fresh[fresh.length - 1]!.seq));
      target.views.changes.batchCommitted(target.views.index.values(), target.views.index.size);
    }
    if (rows.length < CATCH_UP_ROWS) return;
  }
}
