// The campus_rate table: rate-limit slots handed out to instances, per key and sub-window, so the limit holds over all of them.
import { withTimeout, type Database } from './client.js';

/** What a lease gave: slots for this instance, and the key's state over all instances after it. */
export interface Lease {
  /** Slots granted now (0 when the key's window is full). */
  granted: number;
  /** Slots handed out in the key's window, to every instance, this grant included. */
  total: number;
  /** The oldest sub-window still holding slots (its end plus a window is when one frees), or undefined. */
  oldest: number | undefined;
}

/** Slots of every key's window, leased in batches: one round trip per batch, not per request. */
export class RateLeaseTable {
  readonly #db: Database;
  readonly #bucketsPerWindow: number;

  constructor(db: Database, bucketsPerWindow = 60) {
    this.#db = db;
    this.#bucketsPerWindow = bucketsPerWindow;
  }

  /**
   * Grants up to `want` slots of `key` in sub-window `bucket`, never more than `limit` minus what the window
   * holds: the sub-windows from `bucket - 60` on (a slot counts until a whole window after its sub-window ends).
   * Serialized per key by an advisory lock, so two instances never both take the last slot.
   */
  lease(key: string, bucket: number, want: number, limit: number): Promise<Lease> {
    const first = bucket - this.#bucketsPerWindow;
    const k = this.#db.literal(key);
    // Two round trips: BEGIN, the lock, the clean-up and the sum; then the grant with COMMIT. Each statement reads
    // after the one before (READ COMMITTED), so the sum sees every lease committed before the lock was granted.
    return withTimeout(this.#db.transaction(async (tx) => {
      const row = tx.firstRows[0] as { total: number; oldest: number | null } | undefined;
      const total = row?.total ?? 0;
      const granted = Math.max(0, Math.min(want, limit - total));
      if (granted > 0) {
        await tx.commitWith(`INSERT INTO campus_rate (key, bucket, granted) VALUES (${k}, ${Math.trunc(bucket)}, ${Math.trunc(granted)}) ON CONFLICT (key, bucket) DO UPDATE SET granted = campus_rate.granted + EXCLUDED.granted`);
      }
      const oldest = row?.oldest ?? (granted > 0 ? bucket : null);
      return { granted, total: total + granted, oldest: oldest === null ? undefined : Math.min(oldest, bucket) };
    }, [
      `SELECT pg_advisory_xact_lock(hashtextextended('campus_rate:' || ${k}, 0))`,
      `DELETE FROM campus_rate WHERE key = ${k} AND bucket < ${Math.trunc(first)}`,
      `SELECT coalesce(sum(granted), 0)::float8 AS total, min(bucket)::float8 AS oldest FROM campus_rate WHERE key = ${k} AND granted > 0`,
    ].join('; ')), 2_000, 'leasing rate-limit slots');
  }

  /** Gives back `count` slots of `key` in `bucket` that were leased and never used. */
  async giveBack(key: string, bucket: number, count: number): Promise<void> {
    if (count <= 0) return;
    await withTimeout(this.#db.query('UPDATE campus_rate SET granted = greatest(0, granted - $3) WHERE key = $1 AND bucket = $2', [key, bucket, count]), 2_000, 'giving back rate-limit slots');
  }
}
