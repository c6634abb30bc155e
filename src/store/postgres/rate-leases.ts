// The campus_rate table: rate-limit slots handed out to instances, per key and sub-window, so the limit holds over all of them.
import { HOLDS_LOCK, mayHaveRun, refusedConnection, withTimeout, type Database } from './client.js';

/** What a lease gave: slots for this instance, and the key's state over all instances after it. */
export interface Lease {
  /** Slots granted now, one count per sub-window asked for, in the order asked (0 when the key's window is full). */
  granted: number[];
  /** Slots handed out in the key's window, to every instance, this grant included. */
  total: number;
  /** The oldest sub-window still holding slots (its end plus a window is when one frees), or undefined. */
  oldest: number | undefined;
  /** The key's slots, over all instances, of sub-windows (and ranges) that ended in the last window but the last: what it used there. */
  used: number;
  /** The sub-windows those cover, from the first of them to the end of the one before the last (0: none): with `used`, its pace. */
  usedOver: number;
}

/** Slots asked for in one sub-window, or in a range of `span` sub-windows from `bucket` (usable in any of them). */
export interface Want {
  bucket: number;
  want: number;
  /** Sub-windows the slots may be used in, from `bucket` on. Default 1. */
  span?: number | undefined;
}

/** Slots handed out to a key: in sub-window `bucket`, or in a range of `span` from it. */
export interface Held {
  bucket: number;
  span: number;
  count: number;
}

/** The NOTIFY channel on which an instance asks the others for a key's slots they hold unused. */
const ASK_BACK = 'campus_rate_back';
const ASK_BACK_PER_SECOND = 20;
/** A range's slots are kept under the key, a unit separator and the range's length (keys hold no control character). */
const RANGE = '\u001f';

/** Slots of every key's window, leased in batches: one round trip per batch, not per request. */
export class RateLeaseTable {
  readonly #db: Database;
  readonly #bucketsPerWindow: number;
  #failed: (error: unknown) => void = () => undefined;
  /** The asks back sent in the current second, by kind of key. */
  readonly #asked = new Map<string, { second: number; count: number }>();

  constructor(db: Database, bucketsPerWindow = 60) {
    this.#db = db;
    this.#bucketsPerWindow = bucketsPerWindow;
  }

  /** See LeaseSource.refusedAtOnce: a refused connection, however long its refusal took to come back. */
  refusedAtOnce(error: unknown): boolean {
    return refusedConnection(error);
  }

  /** Tells `listener` of each lease that failed: a lease writes, so its failure may be the database's (see WriteHealth). */
  onFailure(listener: (error: unknown) => void): void {
    this.#failed = listener;
  }

  /**
   * Grants slots of `key` in the sub-windows of `wants` (the current one, `now`, and later ones leased ahead), in
   * order, each as many as fit (see grantsWithin). Serialized per key by an advisory lock, so two instances never
   * both take the last slot.
   */
  lease(key: string, now: number, wants: readonly Want[], limit: number, spans: readonly number[], reserve?: number): Promise<Lease> {
    const first = now - this.#bucketsPerWindow;
    const k = this.#db.literal(key);
    const { cleanUp, rowsOf } = rowsOfKey(this.#db, key, first, [...spans, ...wants.map((want) => want.span ?? 1)]);
    // Two round trips: BEGIN, the lock, the clean-up and the key's rows; then the grants with COMMIT. Each statement
    // reads after the one before (READ COMMITTED), so the rows are every lease committed before the lock was granted.
    return withTimeout(this.#db.transaction(async (tx) => {
      const row = tx.firstRows[0] as { buckets: number[] | null; spans: number[] | null; granted: number[] | null } | undefined;
      const held: Held[] = (row?.buckets ?? []).map((bucket, i) => ({ bucket, span: row!.spans![i]!, count: row!.granted![i]! }));
      const { granted, total, used, usedOver } = grantsWithin(held, now, wants, limit, this.#bucketsPerWindow, reserve);
      const rows = wants.flatMap(({ bucket, span = 1 }, i) => (granted[i]! > 0 ? [`(${this.#db.literal(keyOf(key, span))}, ${Math.trunc(bucket)}, ${granted[i]!})`] : []));
      if (rows.length > 0) {
        await tx.commitWith(`INSERT INTO campus_rate (key, bucket, granted) VALUES ${rows.join(', ')} ON CONFLICT (key, bucket) DO UPDATE SET granted = campus_rate.granted + EXCLUDED.granted`);
      }
      // The sub-window whose slots free first: a range's slots count until its last sub-window has left the window.
      const oldest = Math.min(...held.filter((slot) => slot.count > 0).map((slot) => slot.bucket + slot.span - 1));
      return { granted, total, oldest: oldest === Infinity ? undefined : oldest, used, usedOver };
    }, [
      HOLDS_LOCK,
      `SELECT pg_advisory_xact_lock(hashtextextended('campus_rate:' || ${k}, 0))`,
      `DELETE FROM campus_rate WHERE ${cleanUp}`,
      `SELECT array_agg(bucket::float8) AS buckets, array_agg(CASE WHEN key = ${k} THEN 1 ELSE split_part(key, ${this.#db.literal(RANGE)}, 2)::integer END) AS spans, array_agg(granted) AS granted FROM campus_rate WHERE ${rowsOf} AND granted > 0`,
    ].join('; ')), 2_000, 'leasing rate-limit slots').catch((error: unknown) => {
      this.#failed(error);
      throw error;
    });
  }

  /**
   * Gives back `count` slots of `key` in `bucket` (a range of `span` from it) that were leased and never used. Rejects
   * only when the statement never reached the database, so a caller may give them back again later. One that may
   * have run (a time-out, a connection lost after sending) counts as given back: done twice, it would take slots off
   * what other instances were granted and used, and the key could be admitted more than its limit; not done, its
   * slots count for nobody until they leave the window.
   */
  async giveBack(key: string, bucket: number, count: number, span = 1): Promise<void> {
    if (count <= 0) return;
    try {
      await withTimeout(this.#db.query('UPDATE campus_rate SET granted = greatest(0, granted - $3) WHERE key = $1 AND bucket = $2', [keyOf(key, span), bucket, count]), 2_000, 'giving back rate-limit slots');
    } catch (error) {
      if (!mayHaveRun(error)) throw error;
    }
  }

  /**
   * Asks every instance for the slots of `key` it holds unused (a NOTIFY on ASK_BACK): a request found the window full.
   * At most ASK_BACK_PER_SECOND from this instance for each kind of key (its first four characters: `key_` for an API
   * key, `auth` for an address's failures), whatever the keys: past them it rejects, and the request is refused without
   * asking. Many addresses failing at once so never spend what API keys at their limit ask with.
   */
  async askBack(key: string): Promise<void> {
    const second = Math.floor(performance.now() / 1000);
    const kind = key.slice(0, 4);
    const asked = this.#asked.get(kind);
    if (asked === undefined || asked.second !== second) this.#asked.set(kind, { second, count: 1 });
    else if (++asked.count > ASK_BACK_PER_SECOND) throw new Error('slots asked back too often this second');
    await withTimeout(this.#db.query('SELECT pg_notify($1, $2)', [ASK_BACK, key]), 2_000, 'asking back rate-limit slots');
  }

  /** Calls `handler` with each key asked back by any instance, this one included, until the returned stop is called. */
  onAskedBack(handler: (key: string) => void): Promise<() => Promise<void>> {
    return this.#db.listen(ASK_BACK, handler, () => undefined);
  }

  /**
   * Deletes the rows of every key starting with `prefix` in sub-windows before `before`: a key's own lease clears its
   * old rows, but a key never seen again (an address that failed once, a key revoked) would keep its rows for good,
   * and every lease reads past them. Rejects when the database was not reached or took over 2 s.
   */
  async forget(prefix: string, before: number): Promise<void> {
    await withTimeout(this.#db.query('DELETE FROM campus_rate WHERE starts_with(key, $1) AND bucket < $2', [prefix, Math.trunc(before)]), 2_000, 'forgetting old rate-limit slots');
  }
}

/**
 * The lease's conditions for the rows of `key` in the range lengths `spans` (a limiter uses one besides a single
 * sub-window, the same on every instance: they share --rate-window): those that have left the window (`cleanUp`) and
 * all of them (`rowsOf`). Equalities on the primary key, so a lease reads the key's rows alone in any collation
 * (a prefix match is served from the index only under `C`).
 */
function rowsOfKey(db: Database, key: string, first: number, spans: readonly number[]): { cleanUp: string; rowsOf: string } {
  const lengths = [...new Set([1, ...spans.map((span) => Math.trunc(span))])].filter((span) => span >= 1);
  return {
    cleanUp: lengths.map((span) => `(key = ${db.literal(keyOf(key, span))} AND bucket <= ${Math.trunc(first) - span})`).join(' OR '),
    rowsOf: `key IN (${lengths.map((span) => db.literal(keyOf(key, span))).join(', ')})`,
  };
}

function keyOf(key: string, span: number): string {
  return span === 1 ? key : `${key}${RANGE}${span}`;
}

/**
 * The grants of `wants`, in order, added to `held` (the key's slots handed out so far). A slot counts in every span
 * of 61 sub-windows that holds its sub-window, or meets its range (a whole window after its last sub-window ends, so
 * no window of requests ever sees more: a request, and one in any window with it, lie in one such span). Each want
 * gets what fits under `limit` in every span it meets (a batch of the sub-window under way a quarter of it at most). A
 * slot leased ahead thus holds back only the spans it meets, not the window before it; and slots of later sub-windows
 * (held ahead for an outage, by whichever instance) leave `reserve` slots free in every span they meet, for the
 * requests the key makes now on any instance. `total`: the fullest span holding `now` after the grants, what the key's
 * window holds. `used`, `usedOver`: the slots of sub-windows that ended in the last window, but the last (their unused
 * slots are given back within a sub-window of their end, so nearly what the key used, over all instances), and how many
 * sub-windows they cover, from the first of them to the end of `now - 2`.
 */
export function grantsWithin(held: Held[], now: number, wants: readonly Want[], limit: number, bucketsPerWindow = 60, reserve = 0): { granted: number[]; total: number; used: number; usedOver: number } {
  let used = 0;
  let usedFrom = Infinity;
  for (const slot of held) {
    const end = slot.bucket + slot.span - 1;
    // Not the sub-window that ended last: its unused slots may not be given back yet (a limiter sweeps once a sub-window).
    if (slot.count <= 0 || end >= now - 1 || end < now - bucketsPerWindow) continue;
    used += slot.count;
    usedFrom = Math.min(usedFrom, slot.bucket);
  }
  const spanSum = (from: number): number => {
    let sum = 0;
    for (const slot of held) if (slot.bucket <= from + bucketsPerWindow && slot.bucket + slot.span - 1 >= from) sum += slot.count;
    return sum;
  };
  const fullest = (bucket: number, span: number): number => {
    let most = 0;
    for (let from = bucket - bucketsPerWindow; from <= bucket + span - 1; from++) most = Math.max(most, spanSum(from));
    return most;
  };
  const granted = wants.map(({ bucket, want, span = 1 }) => {
    const room = limit - fullest(bucket, span) - (bucket > now ? reserve : 0);
    // A batch of the sub-window under way takes at most a quarter of what is left (one at least): an instance sizes it by
    // the total it last heard of, which others' leases may have made stale, and slots it holds and does not use before
    // the sub-window ends are the last requests of the key refused on another instance.
    const given = Math.max(0, Math.min(Math.trunc(want), room, bucket === now && span === 1 ? Math.max(1, Math.floor(room / 4)) : room));
    if (given > 0) held.push({ bucket, span, count: given });
    return given;
  });
  return { granted, total: fullest(now, 1), used, usedOver: used === 0 ? 0 : now - 1 - usedFrom };
}
