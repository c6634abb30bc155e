// The campus_keys table: API keys (their hashes, never secrets) shared by every instance on the database.
import { withTimeout, type Database } from './client.js';

/** One key as stored; the same fields as keys.json holds. */
export interface KeyRow {
  id: string;
  name: string;
  email: string;
  role: 'admin' | 'organizer' | 'reader' | 'feed';
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

const INSERT_KEY = 'INSERT INTO campus_keys (id, name, email, role, hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)';

function valuesOf(row: KeyRow): unknown[] {
  return [row.id, row.name, row.email, row.role, row.hash, row.created_at, row.revoked_at];
}

/** pg_advisory_xact_lock key of "create the first admin key only when there is none". */
const FIRST_KEY_LOCK = 0x63616d70_6b6579;

/** Keys in the database: read by the servers' registries (polled), changed by the CLI and a first start. */
export class KeyTable {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Every key, revoked ones included, in creation order. */
  async read(): Promise<KeyRow[]> {
    const rows = await withTimeout(this.#db.query<KeyRow>('SELECT id, name, email, role, hash, created_at, revoked_at FROM campus_keys ORDER BY created_at, id'), 2_000, 'reading the keys');
    return rows.map((row) => ({ id: row.id, name: row.name, email: row.email, role: row.role, hash: row.hash, created_at: row.created_at, revoked_at: row.revoked_at }));
  }

  async add(row: KeyRow): Promise<void> {
    await this.#db.query(INSERT_KEY, valuesOf(row));
  }

  /** Adds `row` only when the table holds no key at all (several instances starting together add one). True when added. */
  async addIfNone(row: KeyRow): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [FIRST_KEY_LOCK]);
      const [present] = await tx.query('SELECT 1 FROM campus_keys LIMIT 1');
      if (present !== undefined) return false;
      await tx.query(INSERT_KEY, valuesOf(row));
      return true;
    });
  }

  /** Deletes the key with this hash (one a start made and never showed: its listen failed). */
  async forget(hash: string): Promise<void> {
    await this.#db.query('DELETE FROM campus_keys WHERE hash = $1', [hash]);
  }

  /** Revokes key `id` at `at`; false when there is no such key. A key revoked already keeps its first time. */
  async revoke(id: string, at: string): Promise<boolean> {
    const rows = await this.#db.query('UPDATE campus_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING id', [at, id]);
    return rows.length > 0;
  }
}
