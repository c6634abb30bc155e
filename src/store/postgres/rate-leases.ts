// The campus_rate table: rate-limit slots handed out to instances, per key and sub-window, so the limit holds over all of them.
import { HOLDS_LOCK, withTimeout, type Database } from './client.js';

/** What a lease gave: slots for this instance, and the key's state over all instances after it. */
export interface Lease {
  /** Slots granted now, one count per sub-window asked for, in the order asked (0 when the key's window is full). */
  granted: number[];
  /** Slots handed out in the key's window, to every instance, this grant included. */
  total: number;
  /** The oldest sub-window still holding slots (its end plus a window is when one frees), or undefined. */
  oldest: number | undefined;
}

/** Slots asked for in one sub-window. */
export interface Want {
  bucket: number;
  want: number;
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
   * Grants slots of `key` in the sub-windows of `wants` (the current one, `now`, and later ones leased ahead), in
   * order, never more than `limit` minus every slot handed out from the sub-window `now - 60` on, later ones included
   * (a slot counts until a whole window after its sub-window ends, and one leased ahead counts from now on: a sum
   * over more than one window, which errs on the safe side). Serialized per key by an advisory lock, so two instances
   * never both take the last slot.
   */
  lease(key: string, now: number, wants: readonly Want[], limit: number): Promise<Lease> {
    const first = now - this.#bucketsPerWindow;
    const k = this.#db.literal(key);
    // Two round trips: BEGIN, the lock, the clean-up and the sum; then the grants with COMMIT. Each statement reads
    // after the one before (READ COMMITTED), so the sum sees every lease committed before the lock was granted.
    return withTimeout(this.#db.transaction(async (tx) => {
      const row = tx.firstRows[0] as { total: number; oldest: number | null } | undefined;
      let total = row?.total ?? 0;
      const granted = wants.map(({ want }) => {
        const given = Math.max(0, Math.min(Math.trunc(want), limit - total));
        total += given;
        return given;
      });
      const rows = wants.flatMap(({ bucket }, i) => (granted[i]! > 0 ? [`(${k}, ${Math.trunc(bucket)}, ${granted[i]!})`] : []));
      if (rows.length > 0) {
        await tx.commitWith(`INSERT INTO campus_rate (key, bucket, granted) VALUES ${rows.join(', ')} ON CONFLICT (key, bucket) DO UPDATE SET granted = campus_rate.granted + EXCLUDED.granted`);
      }
      const buckets = wants.filter((_, i) => granted[i]! > 0).map(({ bucket }) => bucket);
      const oldest = Math.min(row?.oldest ?? Infinity, ...buckets);
      return { granted, total, oldest: oldest === Infinity ? undefined : oldest };
    }, [
      HOLDS_LOCK,
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
