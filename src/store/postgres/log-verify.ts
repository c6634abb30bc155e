// `verify --store postgres://…`: the database's log read from one snapshot, each row checked, copied as record lines.
import { open } from 'node:fs/promises';
import type { Database, Queryable } from './client.js';
import { forEachRecord, decodeLines, logPageSql, seqNamedIn, seqOfLine } from './log-table.js';
import { newestCheckpoint, NO_CHECKPOINT, readCheckpointParts, type Checkpoint } from './checkpoint-table.js';
import { SCHEMA_VERSION, SchemaTooNewError } from './schema.js';
import { keepsItsWriteSeq } from '../records/record-checks.js';

/** The database's log is damaged: a row that does not decode, a row kept under another seq than its line's, seqs out of order, or views that contradict each other. */
export class DatabaseLogDamage extends Error {
  override readonly name = 'DatabaseLogDamage';
}

/** What copyCheckedLog copied: the newest checkpoint's lines (none before the first), then the rows after it. */
export interface CheckedLog {
  checkpoint: Checkpoint;
  /** The lines of the file the checkpoint's copy takes (its `lines` counts records: a group line holds several). */
  checkpointFileLines: number;
  /** The seq each row is kept under, in order. */
  rowSeqs: number[];
  lastSeq: number;
}

/**
 * Reads the newest checkpoint and every row of campus_log after it, in seq order, from one snapshot (REPEATABLE READ,
 * read only: instances may go on writing, and a checkpoint written meanwhile changes nothing of what is read), and
 * checks each: its record lines decode and their checksums hold, the row is kept under its line's seq (a group's: its
 * last member's), and seqs only grow (they skip where one write used two: a confirmation). Writes the lines to `out` (a
 * new file), the checkpoint's first, as a compacted events.jsonl holds them, so the file engine's replay can check the
 * views they make. Returns the checkpoint and the seq each row is kept under, so a replay's line number can be named.
 */
export async function copyCheckedLog(db: Database, out: string): Promise<CheckedLog> {
  const file = await open(out, 'wx', 0o600);
  const rowSeqs: number[] = [];
  let checkpoint = NO_CHECKPOINT;
  let checkpointFileLines = 0;
  let lastSeq = 0;
  try {
    await db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // A database no instance has started on yet has no log: an empty store, and verify creates nothing.
      const [table] = await tx.query<{ present: boolean }>("SELECT to_regclass('campus_log') IS NOT NULL AS present");
      if (table?.present !== true) return;
      const [version] = await tx.query<{ value: string }>("SELECT value FROM campus_meta WHERE name = 'schema_version'");
      if (Number(version?.value ?? 0) > SCHEMA_VERSION) throw new SchemaTooNewError(`the database's schema is version ${version!.value}, newer than this program's ${SCHEMA_VERSION}: verify it with a newer campus-events`);
      // A database of an older program (before checkpoints) has no such table: all of its log is in campus_log.
      const [checkpoints] = await tx.query<{ present: boolean }>("SELECT to_regclass('campus_checkpoints') IS NOT NULL AS present");
      if (checkpoints?.present === true) checkpoint = await newestCheckpoint(tx);
      if (checkpoint.seq > 0) ({ lastSeq, fileLines: checkpointFileLines } = await copyCheckpoint(tx, checkpoint, (text) => file.write(text)));
      for (;;) {
        const page = await tx.query<{ seq: number; line: string }>(logPageSql('seq > $1', 10_000), [rowSeqs.at(-1) ?? checkpoint.seq]);
        if (page.length === 0) return;
        for (const row of page) {
          lastSeq = checkRow(row, lastSeq);
          rowSeqs.push(row.seq);
        }
        await file.write(page.map((row) => (row.line.endsWith('\n') ? row.line : `${row.line}\n`)).join(''));
      }
    });
  } finally {
    await file.close();
  }
  return { checkpoint, checkpointFileLines, rowSeqs, lastSeq: Math.max(lastSeq, checkpoint.seq) };
}

/** Checks every line of the checkpoint and copies its parts with `write`; returns the seq of its last record, and its lines. */
async function copyCheckpoint(tx: Queryable, checkpoint: Checkpoint, write: (text: string) => Promise<unknown>): Promise<{ lastSeq: number; fileLines: number }> {
  let lines = 0;
  let fileLines = 0;
  let lastSeq = 0;
  await readCheckpointParts(tx, checkpoint.seq, async (text, part) => {
    const damaged = (line: number, damagedText: string, reason: string): Error => new DatabaseLogDamage(`the checkpoint at seq ${checkpoint.seq}, part ${part} line ${line} (seq ${seqNamedIn(damagedText)}), is damaged: ${reason}`);
    fileLines += forEachRecord(text, damaged, (record) => {
      if (record.seq > checkpoint.seq) throw new DatabaseLogDamage(`the checkpoint at seq ${checkpoint.seq} holds a line of seq ${record.seq}, after its own`);
      lastSeq = Math.max(lastSeq, record.seq);
      lines++;
    });
    await write(text);
  });
  if (lines !== checkpoint.lines) throw new DatabaseLogDamage(`the checkpoint at seq ${checkpoint.seq} holds ${lines} lines, not the ${checkpoint.lines} its row in campus_checkpoints says`);
  return { lastSeq, fileLines };
}

/** Checks one row after the record of seq `previous`; returns the seq of its last record. */
function checkRow(row: { seq: number; line: string }, previous: number): number {
  let records;
  try {
    records = decodeLines([row]);
  } catch (error) {
    throw new DatabaseLogDamage(error instanceof Error ? error.message : String(error));
  }
  const kept = seqOfLine(row.line);
  if (kept !== row.seq) throw new DatabaseLogDamage(`campus_log row ${row.seq} holds the line of seq ${kept}`);
  let last = previous;
  for (const record of records) {
    // A docstate or idem line keeps the seq of the write that made it, which another line may share (a migrated
    // folder's compaction put both at one seq, in one row): like the file's replay, its seq need not grow.
    if (keepsItsWriteSeq(record)) continue;
    if (record.seq <= last) throw new DatabaseLogDamage(`campus_log row ${row.seq}: seq ${record.seq} comes after seq ${last}; seqs only grow`);
    last = record.seq;
  }
  return last;
}
