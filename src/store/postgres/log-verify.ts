// `verify --store postgres://…`: the database's log read from one snapshot, each row checked, copied as record lines.
import { open } from 'node:fs/promises';
import type { Database } from './client.js';
import { decodeLines, seqOfLine } from './log-table.js';
import { SCHEMA_VERSION, SchemaTooNewError } from './schema.js';

/** The database's log is damaged: a row that does not decode, a row kept under another seq than its line's, seqs out of order, or views that contradict each other. */
export class DatabaseLogDamage extends Error {
  override readonly name = 'DatabaseLogDamage';
}

/**
 * Reads every row of campus_log in seq order from one snapshot (REPEATABLE READ, read only: instances may go on
 * writing) and checks each: its record lines decode and their checksums hold, the row is kept under its line's seq
 * (a group's: its last member's), and seqs only grow (they skip where one write used two: a confirmation). Writes
 * the lines to `out` (a new file), so the file engine's replay can check the views they make. Returns the seq each
 * row is kept under, in order, so a replay's line number can be named as its row.
 */
export async function copyCheckedLog(db: Database, out: string): Promise<{ rowSeqs: number[]; lastSeq: number }> {
  const file = await open(out, 'wx', 0o600);
  const rowSeqs: number[] = [];
  let lastSeq = 0;
  try {
    await db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // A database no instance has started on yet has no log: an empty store, and verify creates nothing.
      const [table] = await tx.query<{ present: boolean }>("SELECT to_regclass('campus_log') IS NOT NULL AS present");
      if (table?.present !== true) return;
      const [version] = await tx.query<{ value: string }>("SELECT value FROM campus_meta WHERE name = 'schema_version'");
      if (Number(version?.value ?? 0) > SCHEMA_VERSION) throw new SchemaTooNewError(`the database's schema is version ${version!.value}, newer than this program's ${SCHEMA_VERSION}: verify it with a newer campus-events`);
      for (;;) {
        const page = await tx.query<{ seq: number; line: string }>('SELECT seq::float8 AS seq, line FROM campus_log WHERE seq > $1 ORDER BY seq LIMIT 10000', [rowSeqs.at(-1) ?? 0]);
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
  return { rowSeqs, lastSeq };
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
    if (record.seq <= last) throw new DatabaseLogDamage(`campus_log row ${row.seq}: seq ${record.seq} comes after seq ${last}; seqs only grow`);
    last = record.seq;
  }
  return last;
}
