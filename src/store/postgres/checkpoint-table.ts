// The campus_checkpoints and campus_checkpoint_parts tables: which checkpoint is the newest, and its lines read back part by part.
import type { Queryable } from './client.js';

/** A checkpoint as its row in campus_checkpoints describes it. */
export interface Checkpoint {
  /** The seq it holds the state as of: rows at or before it are gone from campus_log. */
  readonly seq: number;
  /** The newest seq of a deletion it forgot (the change feed answers 410 before it, API.md §9.2). */
  readonly gone: number;
  /** Its record lines, and their bytes: a compacted events.jsonl of the same state would be as big. */
  readonly lines: number;
  readonly bytes: number;
}

/** Where a database without a checkpoint stands: every row since the first write is in campus_log. */
export const NO_CHECKPOINT: Checkpoint = Object.freeze({ seq: 0, gone: 0, lines: 0, bytes: 0 });

/** A scalar subquery: the newest checkpoint as `seq gone lines bytes`, or null before the first. */
export const NEWEST_CHECKPOINT = "(SELECT seq || ' ' || gone || ' ' || lines || ' ' || bytes FROM campus_checkpoints ORDER BY seq DESC LIMIT 1)";

/** The checkpoint NEWEST_CHECKPOINT gave, or NO_CHECKPOINT for null. */
export function parseCheckpoint(text: string | null | undefined): Checkpoint {
  if (text === null || text === undefined) return NO_CHECKPOINT;
  const [seq, gone, lines, bytes] = text.split(' ').map(Number);
  if (![seq, gone, lines, bytes].every((value) => Number.isSafeInteger(value))) throw new Error(`campus_checkpoints holds a row that is not four integers: ${JSON.stringify(text)}`);
  return { seq: seq!, gone: gone!, lines: lines!, bytes: bytes! };
}

/** The newest checkpoint as `db` sees it now (inside a transaction: as of its snapshot). */
export async function newestCheckpoint(db: Queryable): Promise<Checkpoint> {
  const [row] = await db.query<{ checkpoint: string | null }>(`SELECT ${NEWEST_CHECKPOINT} AS checkpoint`);
  return parseCheckpoint(row?.checkpoint);
}

/** Parts read per query: a few MiB. */
const PARTS_PER_READ = 4;

/**
 * Calls `each` with the text of every part of the checkpoint at `seq`, in order (lines ending in a newline, never cut
 * between parts). Read inside a REPEATABLE READ transaction, so a newer checkpoint deleting these parts meanwhile
 * changes nothing of what is read. Throws when a part is missing.
 */
export async function readCheckpointParts(tx: Queryable, seq: number, each: (text: string, part: number) => void | Promise<void>): Promise<number> {
  const [row] = await tx.query<{ parts: number }>('SELECT parts FROM campus_checkpoints WHERE seq = $1', [seq]);
  if (row === undefined) throw new Error(`campus_checkpoints holds no checkpoint at seq ${seq}`);
  for (let next = 0; next < row.parts; ) {
    const parts = await tx.query<{ part: number; lines: string }>('SELECT part, lines FROM campus_checkpoint_parts WHERE checkpoint = $1 AND part >= $2 ORDER BY part LIMIT $3', [seq, next, PARTS_PER_READ]);
    if (parts.length === 0 || parts[0]!.part !== next) throw new Error(`the checkpoint at seq ${seq} lacks its part ${next} of ${row.parts}`);
    for (const part of parts) {
      if (part.part !== next) throw new Error(`the checkpoint at seq ${seq} lacks its part ${next} of ${row.parts}`);
      await each(part.lines, next++);
    }
  }
  return row.parts;
}
