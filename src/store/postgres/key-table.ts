// The campus_keys table: API keys (their hashes, never secrets) shared by every instance on the database.
import type { Sql } from './client.js';

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

/** pg_advisory_xact_lock key of "create the first admin key only when there is none". */
const FIRST_KEY_LOCK = 0x63616d70_6b6579;

/** Keys in the database: read by the servers' registries (polled), changed by the CLI and a first start. */
export class KeyTable {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** Every key, revoked ones included, in creation order. */
  async read(): Promise<KeyRow[]> {
    const rows = await this.#sql<KeyRow[]>`SELECT id, name, email, role, hash, created_at, revoked_at FROM campus_keys ORDER BY created_at, id`;
    return rows.map((row) => ({ id: row.id, name: row.name, email: row.email, role: row.role, hash: row.hash, created_at: row.created_at, revoked_at: row.revoked_at }));
  }

  async add(row: KeyRow): Promise<void> {
    await this.#sql`INSERT INTO campus_keys ${this.#sql(row)}`;
  }

  /** Adds `row` only when the table holds no key at all (several instances starting together add one). True when added. */
  async addIfNone(row: KeyRow): Promise<boolean> {
    return this.#sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${FIRST_KEY_LOCK})`;
      const [present] = await tx`SELECT 1 FROM campus_keys LIMIT 1`;
      if (present !== undefined) return false;
      await tx`INSERT INTO campus_keys ${tx(row)}`;
      return true;
    }) as Promise<boolean>;
  }

  /** Revokes key `id` at `at`; false when there is no such key. A key revoked already keeps its first time. */
  async revoke(id: string, at: string): Promise<boolean> {
    const rows = await this.#sql`UPDATE campus_keys SET revoked_at = coalesce(revoked_at, ${at}) WHERE id = ${id} RETURNING id`;
    return rows.length > 0;
  }
}
