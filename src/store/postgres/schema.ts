// The database's tables, created or migrated on start under an advisory lock; a newer schema than ours is refused.
import type { Database, Queryable } from './client.js';

/** The schema this program writes. A database at a higher version was made by a newer program. */
export const SCHEMA_VERSION = 6;

/** pg_advisory_xact_lock key of schema changes (any number unlikely to clash: "campus" in ASCII). */
export const MIGRATE_LOCK = 0x63616d707573;

/** The database was made by a newer version of the program: starting would risk misreading it. */
export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
}

/**
 * The refusal of a write by an instance whose database a newer program migrated while it ran (write batches and
 * checkpoints read the version as they take their lock; WriteHealth looks every 10 s), or undefined when `found` is not newer.
 */
export function newerSchemaSince(found: string | null | undefined): SchemaTooNewError | undefined {
  const version = Number(found);
  if (!(version > SCHEMA_VERSION)) return undefined;
  return new SchemaTooNewError(`the database's schema is version ${version}, newer than this program's ${SCHEMA_VERSION}: a newer build migrated it while this instance ran, so this instance writes nothing more; stop it`);
}

/** The schema's version as one value, for a statement that reads it beside something else (a lock taken). */
export const SCHEMA_VERSION_SQL = "(SELECT value FROM campus_meta WHERE name = 'schema_version')";

/** Each step moves the schema from version i to i + 1. */
const STEPS: readonly string[][] = [
  [
    'CREATE TABLE campus_meta (name text PRIMARY KEY, value text NOT NULL)',
    // One row per log record, in the line format of the file store's events.jsonl: one decoder for both engines.
    'CREATE TABLE campus_log (seq bigint PRIMARY KEY, line text NOT NULL)',
    'CREATE TABLE campus_keys (id text PRIMARY KEY, name text NOT NULL, email text NOT NULL, role text NOT NULL, hash text NOT NULL UNIQUE, created_at text NOT NULL, revoked_at text)',
    // Rate-limit slots leased to instances: per key and sub-window (1/60 of a window), how many were handed out.
    'CREATE TABLE campus_rate (key text NOT NULL, bucket bigint NOT NULL, granted integer NOT NULL, PRIMARY KEY (key, bucket))',
  ],
  [
    // Webhooks (API.md §13): definition, delivery state (cursor, retries, the last 100 attempts as JSON), and the
    // lease of the one instance delivering it; `version` counts an admin's changes, `status_version` is the one
    // that last set a status (see webhook-table.ts).
    'CREATE TABLE campus_webhooks (id text PRIMARY KEY, url text NOT NULL, events text NOT NULL, description text NOT NULL, secret text NOT NULL, created_at text NOT NULL, status text NOT NULL, version bigint NOT NULL DEFAULT 0, status_version bigint NOT NULL DEFAULT 0, cursor_seq bigint NOT NULL, cursor_index bigint NOT NULL, attempts integer NOT NULL DEFAULT 0, first_failure_ms float8, deliveries text NOT NULL DEFAULT \'[]\', lease_owner text, lease_until timestamptz)',
  ],
  [
    // Checkpoints (API.md §12, "History is bounded"; see checkpoint-write.ts): the state as of `seq` in the lines of a
    // compacted events.jsonl, in parts of about a MiB. The newest one and the rows after it are the whole log: rows at
    // or before its seq are deleted in the transaction that adds it. `gone`: the newest deletion it forgot (§9.2's 410).
    'CREATE TABLE campus_checkpoints (seq bigint PRIMARY KEY, gone bigint NOT NULL, lines bigint NOT NULL, bytes bigint NOT NULL, parts integer NOT NULL, written_at timestamptz NOT NULL DEFAULT now())',
    'CREATE TABLE campus_checkpoint_parts (checkpoint bigint NOT NULL, part integer NOT NULL, lines text NOT NULL, PRIMARY KEY (checkpoint, part))',
  ],
  // No table changes: a series' row is now one JSON object (see lib/group-line.ts), which programs of version 3 cannot
  // read; the version makes them refuse the database by name rather than call its rows damaged.
  [],
  [
    // The change streams each instance holds open, per key, until `until` (see stream-slots.ts): API.md §9.2's caps
    // count over all instances.
    'CREATE TABLE campus_streams (instance text NOT NULL, key_id text NOT NULL, open integer NOT NULL, until timestamptz NOT NULL, PRIMARY KEY (instance, key_id))',
  ],
  // No table changes: a series' row may carry an Idempotency-Key, and a checkpoint remember a series as its answer,
  // which programs of version 5 would call damaged (or, the row, not remember); the version makes them refuse by name.
  [],
];

/**
 * Brings the schema to SCHEMA_VERSION in one transaction under an advisory lock, so instances starting
 * together migrate once. Throws SchemaTooNewError for a database of a newer program.
 */
export async function migrateSchema(db: Database): Promise<{ from: number; to: number }> {
  return db.transaction(async (tx) => {
    // Instances starting together wait for the one migrating, however long it takes: no session lock time-out here.
    await tx.query('SET LOCAL lock_timeout = 0');
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK]);
    const version = await versionOf(tx);
    for (let step = version; step < SCHEMA_VERSION; step++) for (const statement of STEPS[step]!) await tx.query(statement);
    if (version < SCHEMA_VERSION) {
      await tx.query("INSERT INTO campus_meta (name, value) VALUES ('schema_version', $1) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value", [String(SCHEMA_VERSION)]);
    }
    return { from: version, to: SCHEMA_VERSION };
  });
}

/** For a command that only reads, and reads every schema as it is: throws SchemaTooNewError for a database of a newer program. */
export async function refuseNewerSchema(db: Database): Promise<void> {
  await versionOf(db);
}

/** The schema's version (0: no table yet); a newer one than this program's is refused. */
async function versionOf(db: Queryable): Promise<number> {
  const [exists] = await db.query<{ present: boolean }>("SELECT to_regclass('campus_meta') IS NOT NULL AS present");
  let version = 0;
  if (exists?.present === true) {
    const [row] = await db.query<{ value: string }>("SELECT value FROM campus_meta WHERE name = 'schema_version'");
    version = row === undefined ? 0 : Number(row.value);
  }
  if (version > SCHEMA_VERSION) {
    throw new SchemaTooNewError(`the database's schema is version ${version}, newer than this program's ${SCHEMA_VERSION}: upgrade campus-events (the database was left as it was)`);
  }
  return version;
}
