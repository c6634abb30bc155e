// A data folder's record lines copied into an empty database (`migrate`; a backup of a database is the copy verify
// checks: see cli-postgres.ts).
import type { Database } from './client.js';
import type { KeyRow } from './key-table.js';
import { recordsIn, seqOfLine } from './log-table.js';
import type { WebhookStateSnapshot } from '../webhook-state.js';
import { importWebhooks } from './webhook-table.js';
import { encodeGroup } from '../records/encode-record.js';
import { keepsItsWriteSeq } from '../records/record-checks.js';

/** The database already holds data: a migration never mixes two campuses. */
export class DatabaseNotEmptyError extends Error {
  override readonly name = 'DatabaseNotEmptyError';
}

/**
 * Copies record lines (a data folder's log, seqs kept) and keys into an empty database, in one transaction:
 * all of it or nothing. The remembered Idempotency-Key answers a compaction rewrote (`idem` lines, at the seq of the
 * write they answered) come along, so a retry after the move is still answered as the first time.
 */
export async function importLines(db: Database, lines: readonly string[], keys: readonly KeyRow[], webhooks?: WebhookStateSnapshot): Promise<{ records: number; keys: number; webhooks: number }> {
  const kept = rowsOf(lines);
  const records = lines.reduce((sum, line) => sum + recordsIn(line), 0);
  let webhookCount = 0;
  await db.transaction(async (tx) => {
    await tx.query('LOCK TABLE campus_log, campus_checkpoints, campus_keys, campus_webhooks IN EXCLUSIVE MODE');
    const [present] = await tx.query('SELECT 1 FROM campus_log UNION ALL SELECT 1 FROM campus_checkpoints UNION ALL SELECT 1 FROM campus_keys UNION ALL SELECT 1 FROM campus_webhooks LIMIT 1');
    if (present !== undefined) throw new DatabaseNotEmptyError('the database already holds events, keys or webhooks; migrate only into an empty database (a new one, or drop the campus_* tables)');
    for (let at = 0; at < kept.length; at += 5000) {
      const chunk = kept.slice(at, at + 5000).map((line) => (line.endsWith('\n') ? line : `${line}\n`));
      await tx.query('INSERT INTO campus_log (seq, line) SELECT * FROM unnest($1::bigint[], $2::text[])', [chunk.map(seqOfLine), chunk]);
    }
    for (const key of keys) {
      await tx.query('INSERT INTO campus_keys (id, name, email, role, hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [key.id, key.name, key.email, key.role, key.hash, key.created_at, key.revoked_at]);
    }
    if (webhooks !== undefined) webhookCount = await importWebhooks(tx, webhooks, kept.length === 0 ? 0 : seqOfLine(kept[kept.length - 1]!));
  });
  return { records, keys: keys.length, webhooks: webhookCount };
}

/**
 * The lines as campus_log rows, one a seq, in seq order. A compaction keeps a series' document and a remembered answer
 * at the seq of the write that made it (docstate and idem lines; older builds wrote them ahead of the rest), where an event's line or its mark
 * (the newest seq no event or registration holds) may be too: lines sharing a seq become one row, the members of one
 * group line, as an atomic write's are.
 */
function rowsOf(lines: readonly string[]): string[] {
  const bySeq = new Map<number, string[]>();
  for (const line of lines) {
    const seq = seqOfLine(line);
    const same = bySeq.get(seq);
    if (same === undefined) bySeq.set(seq, [line]);
    else same.push(line);
  }
  // Those whose seq need not grow first (catch-up moves on only past the others).
  const keptFirst = (line: string): number => (keepsItsWriteSeq({ op: /^\{"seq":\d+,"op":"(\w+)"/.exec(line)?.[1] ?? '' }) ? 0 : 1);
  return [...bySeq.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, members]) => (members.length === 1 ? members[0]! : encodeGroup(members.sort((a, b) => keptFirst(a) - keptFirst(b)))));
}
