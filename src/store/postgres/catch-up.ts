// Reading campus_log into the views: every committed record after the last one applied, in seq order, and the newest checkpoint.
import { applyRecord, type AppliedViews } from '../views/apply-record.js';
import type { DecodeOptions } from '../records/jsonl-record.js';
import { withTimeout, type Queryable } from './client.js';
import { NEWEST_CHECKPOINT, parseCheckpoint, type Checkpoint } from './checkpoint-table.js';
import { forEachRecord, seqNamedIn } from './log-table.js';
import { keepsItsWriteSeq } from '../records/record-checks.js';

/** How long a read may take before the database counts as unreachable. */
const QUERY_TIMEOUT_MS = 2_000;

/** Rows a catch-up reads at a time. */
const CATCH_UP_ROWS = 10_000;

/**
 * A page of campus_log as a catch-up reads it: the lines of its rows run together in seq order (one string: far
 * cheaper for the client than a row each), and the newest checkpoint as of the same snapshot.
 */
export type LogPage = {
  /** The newest checkpoint (see NEWEST_CHECKPOINT), null before the first. */
  checkpoint: string | null;
  rows: number;
  /** The seq of the page's last row; null when it has none. */
  seq: number | null;
  lines: string | null;
};

/** The name write-batch.ts reads a page under (its first round trip reads one with catchUpQuery). */
export type LogRow = LogPage;

/**
 * One page of the log after `lastSeq`, and the newest checkpoint, in one statement (so one snapshot): rows at or before
 * a checkpoint are deleted in the transaction that adds it, so a page never misses rows without showing why.
 * seq::float8: an exact number for every seq below 2^53, where int8 would come back as a string.
 */
export function catchUpQuery(lastSeq: number): string {
  return `SELECT ${NEWEST_CHECKPOINT} AS checkpoint, count(*)::integer AS rows, max(seq)::float8 AS seq, string_agg(line, '' ORDER BY seq) AS lines FROM (SELECT seq, line FROM campus_log WHERE seq > ${Math.trunc(lastSeq)} ORDER BY seq LIMIT ${CATCH_UP_ROWS}) AS page`;
}

/**
 * A checkpoint was written past the views' last seq: the rows between were deleted with it, so these views can no
 * longer catch up by reading rows (an instance cut off or paused while another wrote it). They start over from it.
 */
export class CheckpointPassed extends Error {
  override readonly name = 'CheckpointPassed';
  constructor(readonly checkpoint: Checkpoint, readonly lastSeq: number) {
    super(`a checkpoint at seq ${checkpoint.seq} dropped the rows after seq ${lastSeq}, where this instance stood: it reads the checkpoint again`);
  }
}

/** The views a catch-up applies records to, and where they stand in the log. */
export interface CatchUpTarget {
  readonly views: AppliedViews;
  readonly now: () => number;
  /** How records are decoded (a start-up packs the events as replay does); default: each view kept as a string. */
  readonly decode?: DecodeOptions;
  /** The seq of the newest record applied to the views. */
  lastSeq(): number;
  /** The views hold every record up to `seq` now. */
  advance(seq: number): void;
  /** The newest checkpoint the views know of. */
  checkpoint(): Checkpoint;
  /** A newer checkpoint, at or before lastSeq: the views forget what it forgot (see PostgresStore). */
  adopt(checkpoint: Checkpoint): void;
  /** Rows and bytes of log read past the checkpoint (what makes the next one due). */
  read(rows: number, bytes: number): void;
}

/**
 * Applies every committed record after the target's lastSeq, in seq order; `read`: the first page, read already (by
 * catchUpQuery). Throws CheckpointPassed when a checkpoint past lastSeq dropped rows the views never applied.
 */
export async function catchUp(db: Queryable, target: CatchUpTarget, read?: readonly LogPage[]): Promise<void> {
  for (;;) {
    const [page] = read ?? (await withTimeout(db.query<LogPage>(catchUpQuery(target.lastSeq())), QUERY_TIMEOUT_MS, 'reading the log'));
    read = undefined;
    if (page === undefined) return;
    const checkpoint = parseCheckpoint(page.checkpoint);
    if (checkpoint.seq > target.checkpoint().seq) {
      if (checkpoint.seq > target.lastSeq()) throw new CheckpointPassed(checkpoint, target.lastSeq());
      target.adopt(checkpoint);
    }
    if (page.rows === 0 || page.lines === null || page.seq === null) return;
    // Rows read before the batch ahead applied its own (see WriteBatches) are in the views already.
    if (page.seq > target.lastSeq()) {
      const nowMs = target.now();
      const damaged = (_line: number, text: string, reason: string): Error => new Error(`campus_log row ${seqNamedIn(text)} is damaged: ${reason}`);
      forEachRecord(page.lines, damaged, (record) => {
        if (record.seq <= target.lastSeq()) return;
        applyRecord(target.views, record, nowMs);
        // A remembered answer or a series' document a compaction kept (a migrated folder's) holds the seq of the write
        // that made it, which the next member of its row may share: it moves nothing on.
        if (!keepsItsWriteSeq(record)) target.advance(record.seq);
      }, target.decode);
      target.advance(Math.max(target.lastSeq(), page.seq));
      target.read(page.rows, page.lines.length);
      target.views.changes.batchCommitted(target.views.index.values(), target.views.index.size);
    }
    if (page.rows < CATCH_UP_ROWS) return;
  }
}
