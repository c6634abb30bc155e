// The CLI's commands against a PostgreSQL store (API.md §12): keys in the database, backup from it, migrate a data folder into it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createKeyIn } from './auth/key-registry.js';
import { readKeys, type KeyRecord } from './auth/key-file.js';
import type { Role } from './auth/principal.js';
import { backupLog } from './store/file/log-backup.js';
import { LogDamageError } from './store/file/log-damage-error.js';
import { verifyLog, type LogReport } from './store/file/log-verify.js';
import { connect, type Database } from './store/postgres/client.js';
import { KeyTable } from './store/postgres/key-table.js';
import { importLines } from './store/postgres/log-export.js';
import { copyCheckedLog, DatabaseLogDamage } from './store/postgres/log-verify.js';
import { migrateSchema, refuseNewerSchema } from './store/postgres/schema.js';
import { redactUrl } from './store/postgres/hosts.js';
import { fileWebhookState } from './store/file/file-webhook-state.js';

/** Runs `work` on the database at `url` (its schema created or migrated first, unless `readOnly`), then closes it. */
async function withDatabase<T>(url: string, work: (db: Database) => Promise<T>, readOnly = false): Promise<T> {
  const db = await connect(url, { max: 2 });
  try {
    if (!readOnly) await migrateSchema(db);
    return await work(db);
  } finally {
    await db.end().catch(() => undefined);
  }
}

/** `keys create --store URL`: the new key's record and its secret (shown once). */
export function createDatabaseKey(url: string, owner: { name: string; email: string; role: Role }): Promise<{ record: KeyRecord; secret: string }> {
  return withDatabase(url, (db) => createKeyIn(new KeyTable(db), owner, { randomBytes, now: Date.now }));
}

/**
 * Runs `work`, which only reads, on a database that holds this service's tables, left at their schema (an older
 * build's instances may still run on it, and would refuse it migrated); on one that holds none (no instance has
 * started on it: a new one, or a name mistyped), `whenEmpty`, and no table is made. A newer schema is refused.
 */
async function withExistingDatabase<T>(url: string, work: (db: Database) => Promise<T>, whenEmpty: () => T): Promise<T> {
  return withDatabase(url, async (db) => {
    const [meta] = await db.query<{ present: boolean }>("SELECT to_regclass('campus_meta') IS NOT NULL AS present");
    if (meta?.present !== true) return whenEmpty();
    await refuseNewerSchema(db);
    return work(db);
  }, true);
}

/** `keys list --store URL`: every key, revoked ones included (none on a database no instance has started on). */
export function listDatabaseKeys(url: string): Promise<KeyRecord[]> {
  return withExistingDatabase(url, (db) => new KeyTable(db).read(), () => []);
}

/** `keys revoke ID --store URL`: 'revoked', 'already' or 'unknown'. */
export function revokeDatabaseKey(url: string, id: string): Promise<'revoked' | 'already' | 'unknown'> {
  return withDatabase(url, async (db) => {
    const keys = new KeyTable(db);
    const key = (await keys.read()).find((candidate) => candidate.id === id);
    if (key === undefined) return 'unknown';
    if (key.revoked_at !== null) return 'already';
    await keys.revoke(id, new Date().toISOString());
    return 'revoked';
  });
}

/**
 * `backup --out FILE --store URL`: the copy `verify --store` checks, kept as a data folder's log (written as `backup`
 * writes a folder's: a temporary file, fsync, rename, never overwriting FILE). A copy no server would start on is no
 * backup: a damaged database writes nothing. Refused on a database no instance has started on (no table made).
 */
export async function backupFromDatabase(url: string, out: string): Promise<{ out: string; lines: number; bytes: number; lastSeq: number }> {
  return inScratch('campus-backup-', async (scratch) => {
    await withExistingDatabase(url, (db) => checkedCopy(db, scratch), () => {
      throw new Error(`${redactUrl(url)} holds no campus-events tables (no instance has started on it): nothing to back up; check the database's name`);
    });
    const { out: written, lines, bytes, lastSeq } = await backupLog(scratch, out);
    return { out: written, lines, bytes, lastSeq };
  });
}

/**
 * What `verify --store URL` found: a data folder's counts, the newest checkpoint (seq 0: none yet) and its lines, and
 * the rows of campus_log after it (a series and its occurrences are one).
 */
export type DatabaseLogReport = Pick<LogReport, 'lines' | 'liveEvents' | 'liveRegistrations' | 'liveDocuments' | 'rememberedAnswers' | 'supersededLines' | 'lastSeq'> & { rows: number; checkpointSeq: number; checkpointLines: number };

/**
 * `verify --store URL`: the database's log checked as `verify` checks a data folder's (read-only; instances may
 * run): every row, from one snapshot, then the views replayed from a copy of it in a temporary folder (registered_count
 * against the confirmed registrations, seats, the waitlist). Throws DatabaseLogDamage naming the row.
 */
export function verifyDatabase(url: string): Promise<DatabaseLogReport> {
  return inScratch('campus-verify-', (scratch) => withDatabase(url, (db) => checkedCopy(db, scratch), true));
}

/** The database's log copied to `folder`'s events.jsonl from one snapshot, each row checked, then replayed as verify replays a folder's. */
async function checkedCopy(db: Database, folder: string): Promise<DatabaseLogReport> {
  const { checkpoint, checkpointFileLines, rowSeqs, lastSeq } = await copyCheckedLog(db, path.join(folder, 'events.jsonl'));
  let report;
  try {
    report = await verifyLog(folder);
  } catch (error) {
    // Every row decoded, so what the replay refuses is what they say: name the row (or the checkpoint's line), not the scratch copy's line.
    if (error instanceof LogDamageError && error.line <= checkpointFileLines) throw new DatabaseLogDamage(`the checkpoint at seq ${checkpoint.seq}, its line ${error.line}, is damaged: ${error.reason}`);
    if (error instanceof LogDamageError) throw new DatabaseLogDamage(`campus_log row ${rowSeqs[error.line - checkpointFileLines - 1] ?? '?'} is damaged: ${error.reason}`);
    const message = error instanceof Error ? error.message : String(error);
    throw new DatabaseLogDamage(`campus_log: ${message.replace(/^[^:]*events\.jsonl: /, '').replace(/ The store will not start.*$/, '')}`);
  }
  const { lines, liveEvents, liveRegistrations, liveDocuments, rememberedAnswers, supersededLines } = report;
  return { rows: rowSeqs.length, lines, liveEvents, liveRegistrations, liveDocuments, rememberedAnswers, supersededLines, lastSeq, checkpointSeq: checkpoint.seq, checkpointLines: checkpoint.lines };
}

/** Runs `work` on a new temporary folder, removed after. */
async function inScratch<T>(prefix: string, work: (folder: string) => Promise<T>): Promise<T> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), prefix));
  try {
    return await work(scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * `migrate --from DATA_DIR --to URL`: a consistent copy of the folder's log (taken as `backup` takes one, so a
 * server may still run on it), its keys and its webhooks, into an empty database.
 */
export function migrateFolder(dataDir: string, url: string): Promise<{ records: number; keys: number; webhooks: number; lastSeq: number; leftOut: number }> {
  return inScratch('campus-migrate-', async (scratch) => {
    const copy = await backupLog(dataDir, path.join(scratch, 'events.jsonl'));
    const lines = (await readFile(copy.out, 'utf8')).split('\n').filter((line) => line !== '');
    const keys = await readKeys(dataDir);
    // The webhooks with their secrets and positions (webhooks.json): delivery goes on from the database.
    const webhooks = await fileWebhookState(dataDir).load();
    const done = await withDatabase(url, (db) => importLines(db, lines, keys, webhooks));
    return { ...done, lastSeq: copy.lastSeq, leftOut: copy.leftOut };
  });
}
