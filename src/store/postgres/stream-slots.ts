// The campus_streams table: the change streams each instance holds open, per key, so the caps of API.md §9.2 hold over all of them.
import { randomUUID } from 'node:crypto';
import { HOLDS_LOCK, withTimeout, type Database } from './client.js';

/** Open streams: of one key, and in all. */
export interface StreamCount {
  key: number;
  all: number;
}

/** pg_advisory_xact_lock key of the stream counts ("stream" in ASCII): opens on every instance take turns. */
const STREAMS_LOCK = 0x73747265616d;

/** How long an instance's counts stand without being written again: an instance killed holds its slots no longer. */
const LAPSE_MS = 10_000;

/** How long a claim may take before this instance decides by its own count (the database may be away). */
const CLAIM_TIMEOUT_MS = 2_000;

/**
 * Each instance's open change streams per key, with a time they lapse at: written again every few seconds while any
 * is open (ChangeStreams), so the rows of an instance that died go within 10 s. A claim reads the others' rows and
 * writes this instance's under one lock, so two instances never both take a key's last stream.
 */
export class StreamSlotTable {
  readonly #db: Database;
  /** This process's name in the table: a new one each start, so a restarted instance never counts its old streams. */
  readonly #instance = `run_${randomUUID()}`;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * The streams other instances hold open (of `keyId`, and in all). When `mine` (this instance's open streams with the
   * new one) fits under `caps` beside them, records it as this instance's count of `keyId`. Rejects when the database
   * did not answer within 2 s.
   */
  claim(keyId: string, mine: StreamCount, caps: StreamCount): Promise<StreamCount> {
    const k = this.#db.literal(keyId);
    const me = this.#db.literal(this.#instance);
    return withTimeout(this.#db.transaction(async (tx) => {
      const row = tx.firstRows[0] as { key: number | null; all: number | null } | undefined;
      const others = { key: Number(row?.key ?? 0), all: Number(row?.all ?? 0) };
      if (others.key + mine.key <= caps.key && others.all + mine.all <= caps.all) {
        await tx.commitWith(`INSERT INTO campus_streams (instance, key_id, open, until) VALUES (${me}, ${k}, ${Math.trunc(mine.key)}, ${lapse()}) ON CONFLICT (instance, key_id) DO UPDATE SET open = EXCLUDED.open, until = EXCLUDED.until`);
      }
      return others;
    }, [
      HOLDS_LOCK,
      `SELECT pg_advisory_xact_lock(${STREAMS_LOCK})`,
      'DELETE FROM campus_streams WHERE until < clock_timestamp()',
      `SELECT sum(open) FILTER (WHERE key_id = ${k})::float8 AS key, sum(open)::float8 AS all FROM campus_streams WHERE instance <> ${me}`,
    ].join('; ')), CLAIM_TIMEOUT_MS, 'claiming a change stream');
  }

  /**
   * Writes this instance's open streams per key as `open()` gives them once the lock is held (so a claim made meanwhile
   * is never overwritten by an older count), their lapse moved on; none removes its rows.
   */
  publish(open: () => ReadonlyMap<string, number>): Promise<void> {
    const me = this.#db.literal(this.#instance);
    return withTimeout(this.#db.transaction(async (tx) => {
      const rows = [...open()].map(([keyId, count]) => `(${me}, ${this.#db.literal(keyId)}, ${Math.trunc(count)}, ${lapse()})`);
      const insert = rows.length === 0 ? '' : `; INSERT INTO campus_streams (instance, key_id, open, until) VALUES ${rows.join(', ')}`;
      await tx.commitWith(`DELETE FROM campus_streams WHERE instance = ${me}${insert}`);
    }, `${HOLDS_LOCK}; SELECT pg_advisory_xact_lock(${STREAMS_LOCK})`), CLAIM_TIMEOUT_MS, 'recording the open change streams');
  }
}

function lapse(): string {
  return `clock_timestamp() + interval '${LAPSE_MS} milliseconds'`;
}
