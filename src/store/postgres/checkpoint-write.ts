// Writing a checkpoint (API.md §12, "History is bounded"): one instance at a time, when §7's compaction rule says the log is due.
import type { Database, Transaction } from './client.js';
import { checkpointChunks, type CheckpointState } from './checkpoint-lines.js';
import { newestCheckpoint, type Checkpoint } from './checkpoint-table.js';
import { newerSchemaSince, SCHEMA_VERSION_SQL } from './schema.js';

/** pg_try_advisory_xact_lock key held by the one transaction writing a checkpoint ("chkpt" in ASCII). */
export const CHECKPOINT_LOCK = 0x63686b7074;

/**
 * The steps of a checkpoint, in order; the hook `onStep(n)` runs before step n (1-based). Everything happens in one
 * transaction: until its COMMIT (step 5 ends) the database is as it was, whatever stops the writer (a kill -9, a
 * lost connection: PostgreSQL rolls it back), and from it on every reader sees the checkpoint and not the rows it replaced.
 */
export const CHECKPOINT_STEPS = [
  'take the lock (or skip: another instance holds it) and check the log is due',
  'take the views’ state at their last seq, and wait for the webhooks to acknowledge the rows through it',
  'insert the parts',
  'add the checkpoint, delete the rows at or before its seq and the older checkpoints',
  'commit',
] as const;

/** How big the log is, as compaction counts a data folder's (API.md §7). */
export interface LogSize {
  /** Lines: the checkpoint's plus one per row after it (an atomic group's row is one line, as in events.jsonl). */
  lines: number;
  bytes: number;
  /** Live events, registrations, documents and remembered Idempotency-Key answers: the lines a compacted log would keep. */
  live: number;
}

/**
 * §7's rule for compaction, applied to the newest checkpoint and the rows after it as a data folder's log: due once
 * it is over `minBytes` and more than half of its lines are superseded.
 */
export function checkpointDue(size: LogSize, minBytes: number): boolean {
  return size.bytes > minBytes && (size.lines - size.live) * 2 > size.lines;
}

/** What a checkpoint needs of the instance writing it. */
export interface CheckpointHost {
  readonly db: Database;
  /** The newest checkpoint the instance's views know of. */
  known(): Checkpoint;
  /** Live events, registrations, documents and remembered Idempotency-Key answers in the views now. */
  live(): number;
  /** The views' state, taken in their turn (no batch applying meanwhile). */
  snapshot(): Promise<CheckpointState>;
  /** False once the instance is closing (or cannot reach the database): a checkpoint waiting for webhooks gives up. */
  writable(): boolean;
  /** Test only: runs before each step (1-based, see CHECKPOINT_STEPS); may throw, or never resolve to freeze as a stopped process would. */
  onStep?: ((step: number) => void | Promise<void>) | undefined;
}

/** How long a checkpoint waits for the webhooks to acknowledge (and save) the changes through its seq, in ms. */
const SETTLE_MS = 10_000;
/** How often it reads their positions again meanwhile (an instance saves its webhooks' every 250 ms). */
const SETTLE_POLL_MS = 50;
/** A webhook's cursor_index once it is past every message of its seq's line (LINE_DONE in webhooks/message-backlog.ts). */
const LINE_DONE = Number.MAX_SAFE_INTEGER;

/** How a checkpoint went: written (with the rows it dropped), or skipped and why. */
export type CheckpointOutcome = { written: Checkpoint; rowsDropped: number; parts: number } | { skipped: string };

/** A checkpoint may take this long per statement (deleting millions of rows the first time), whatever the connection's default. */
const STATEMENT_TIMEOUT = '10min';

/**
 * Writes a checkpoint of the host's views when §7's rule says the log is due (always, with `force`), unless another
 * instance is writing one (its transaction holds CHECKPOINT_LOCK) or wrote one the views have not read yet. One
 * transaction: the parts, the checkpoint's row, and the deletion of every row at or before its seq and of older checkpoints.
 */
export async function writeCheckpoint(host: CheckpointHost, options: { minBytes: number; force?: boolean; byItself?: boolean; settleMs?: number }): Promise<CheckpointOutcome> {
  const step = async (n: number): Promise<void> => {
    await host.onStep?.(n);
  };
  await step(1);
  return host.db.transaction(async (tx): Promise<CheckpointOutcome> => {
    const [lock] = await tx.query<{ taken: boolean; schema: string | null }>(`SELECT pg_try_advisory_xact_lock(${CHECKPOINT_LOCK}) AS taken, ${SCHEMA_VERSION_SQL} AS schema`);
    if (lock?.taken !== true) return { skipped: 'another instance is writing one' };
    // A newer program migrated the database: its rows are not this one's to drop (WriteHealth stops the writes).
    const newer = newerSchemaSince(lock.schema);
    if (newer !== undefined) return { skipped: newer.message };
    await tx.query(`SET LOCAL statement_timeout = '${STATEMENT_TIMEOUT}'`);
    const newest = await newestCheckpoint(tx);
    const known = host.known();
    if (newest.seq > known.seq) return { skipped: `another instance wrote one (at seq ${newest.seq}) that this instance has not read yet` };
    if (options.force !== true) {
      const size = await logSize(tx, newest, host.live());
      if (!checkpointDue(size, options.minBytes)) return { skipped: `the log is not due (${size.lines} lines, ${size.live} live, ${size.bytes} bytes)` };
    }
    await step(2);
    const state = await host.snapshot();
    if (state.seq <= newest.seq) return { skipped: 'nothing was written since the last checkpoint' };
    // Every webhook's messages come from the rows after its position (on whichever instance delivers it): none is
    // dropped before it is acknowledged. One written by itself waits for every webhook; one asked for by hand for those
    // delivering in good order, and goes ahead past the others, which report what they miss as a gap.
    const behind = await webhookBehind(tx, host, state.seq, options.byItself === true, options.settleMs ?? SETTLE_MS);
    if (!host.writable()) return { skipped: 'the store is closing' };
    if (behind !== undefined && options.byItself === true) return { skipped: `webhook ${behind} has not acknowledged the changes through seq ${state.seq}` };
    await step(3);
    let parts = 0;
    let lines = 0;
    let bytes = 0;
    for (const chunk of checkpointChunks(state)) {
      await tx.query('INSERT INTO campus_checkpoint_parts (checkpoint, part, lines) VALUES ($1, $2, $3)', [state.seq, parts++, chunk.text]);
      lines += chunk.lines;
      bytes += chunk.bytes;
    }
    await step(4);
    const written: Checkpoint = { seq: state.seq, gone: state.gone, lines, bytes };
    await tx.query('INSERT INTO campus_checkpoints (seq, gone, lines, bytes, parts) VALUES ($1, $2, $3, $4, $5)', [written.seq, written.gone, lines, bytes, parts]);
    const [dropped] = await tx.query<{ rows: number }>('WITH dropped AS (DELETE FROM campus_log WHERE seq <= $1 RETURNING 1) SELECT count(*)::float8 AS rows FROM dropped', [written.seq]);
    await tx.query('DELETE FROM campus_checkpoint_parts WHERE checkpoint < $1', [written.seq]);
    await tx.query('DELETE FROM campus_checkpoints WHERE seq < $1', [written.seq]);
    await step(5);
    return { written, rowsDropped: dropped?.rows ?? 0, parts };
  });
}

/**
 * Waits (at most `settleMs`) until no webhook has left a change through `seq` unacknowledged, as campus_webhooks holds
 * its position (saved by whichever instance delivers it): every webhook, or (`every` false) those delivering in good
 * order (active, no retry pending). Resolves with the id of one still behind at the deadline (or the stop), if any.
 */
async function webhookBehind(tx: Transaction, host: CheckpointHost, seq: number, every: boolean, settleMs: number): Promise<string | undefined> {
  const deadline = performance.now() + settleMs;
  for (;;) {
    const [row] = await tx.query<{ id: string }>(
      `SELECT id FROM campus_webhooks WHERE (cursor_seq < $1 OR (cursor_seq = $1 AND cursor_index < $2))${every ? '' : " AND status = 'active' AND attempts = 0"} LIMIT 1`,
      [seq, LINE_DONE],
    );
    if (row === undefined || performance.now() >= deadline || !host.writable()) return row?.id;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}

/**
 * The lines of the rows of campus_log: one a row, but a group row (a series and its occurrences, one transaction)
 * holds as many as it has members, as a data folder counts its group lines: the sizes its head lists, or the tabs
 * before its members in the older layout (lib/group-line.ts).
 */
export const ROW_LINES = String.raw`CASE
  WHEN left(line, 1) = E'\t' THEN length(line) - length(replace(line, E'\t', ''))
  WHEN line ~ '^\{"seq":[0-9]+,"op":"group","sizes":\[' THEN array_length(string_to_array(substring(line FROM '"sizes":\[([0-9,]*)\]'), ','), 1)
  ELSE 1 END`;

/** The log's size as §7 counts it: the newest checkpoint's lines and bytes, and the rows after it. */
async function logSize(tx: Transaction, newest: Checkpoint, live: number): Promise<LogSize> {
  const [tail] = await tx.query<{ lines: number; bytes: number }>(`SELECT coalesce(sum(${ROW_LINES}), 0)::float8 AS lines, coalesce(sum(octet_length(line)), 0)::float8 AS bytes FROM campus_log WHERE seq > $1`, [newest.seq]);
  return { lines: newest.lines + (tail?.lines ?? 0), bytes: newest.bytes + (tail?.bytes ?? 0), live };
}
