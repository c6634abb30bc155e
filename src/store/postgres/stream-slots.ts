// The campus_streams table: the change streams each instance holds open, per key, so the caps of API.md §9.2 hold over all of them.
import { randomUUID } from 'node:crypto';
import type { OthersOpen, SharedStreamCounts } from '../stream-counts.js';
import { HOLDS_LOCK, withTimeout, type Database } from './client.js';

/** pg_advisory_xact_lock key of the stream counts ("stream" in ASCII): opens on every instance take turns. */
export const STREAMS_LOCK = 0x73747265616d;

/** How long an instance's counts stand without being written again: an instance killed holds its slots no longer. */
const LAPSE_MS = 10_000;

/** How long a claim or a write of the counts may take: a claim then decides by the others' counts as last read. */
const TURN_TIMEOUT_MS = 2_000;

/**
 * Each instance's open change streams per key, with a time they lapse at: written again every few seconds while any
 * is open (see feeds/stream-admission.ts), so the rows of an instance that died go within 10 s. A claim reads the
 * others' rows and writes this instance's under one lock, so two instances never both take a key's last stream.
 */
export class StreamSlotTable implements SharedStreamCounts {
  readonly #db: Database;
  /** This process's name in the table: a new one each start, so a restarted instance never counts its old streams. */
  readonly #instance = `run_${randomUUID()}`;
  /** The transaction before, settled: one at a time, also after one was given up for taking too long. */
  #previous: Promise<unknown> = Promise.resolve();

  constructor(db: Database) {
    this.#db = db;
  }

  /** The others' open streams (of `keyIds`, and in all); records `decide`'s counts of this instance's keys. */
  claim(keyIds: readonly string[], decide: (others: OthersOpen) => ReadonlyMap<string, number>): Promise<OthersOpen> {
    return this.#turn(keyIds, 'claiming change streams', (others) => {
      const rows = this.#rows(decide(others));
      return rows === '' ? 'SELECT 1' : `INSERT INTO campus_streams (instance, key_id, open, until) VALUES ${rows} ON CONFLICT (instance, key_id) DO UPDATE SET open = EXCLUDED.open, until = EXCLUDED.until`;
    });
  }

  /** Replaces this instance's counts with `write`'s, given the others' (of `keyIds`, and in all). */
  async publish(keyIds: readonly string[], write: (others: OthersOpen) => ReadonlyMap<string, number>): Promise<void> {
    await this.#turn(keyIds, 'recording the open change streams', (others) => {
      const rows = this.#rows(write(others));
      return `DELETE FROM campus_streams WHERE instance = ${this.#db.literal(this.#instance)}${rows === '' ? '' : `; INSERT INTO campus_streams (instance, key_id, open, until) VALUES ${rows}`}`;
    });
  }

  /**
   * One transaction under the lock: lapsed rows cleared, the others' counts (of `keyIds`, and in all) read, then
   * `statements(others)` and COMMIT. Rejects after 2 s without an answer.
   */
  #turn(keyIds: readonly string[], what: string, statements: (others: OthersOpen) => string): Promise<OthersOpen> {
    const me = this.#db.literal(this.#instance);
    const keys = keyIds.length === 0 ? 'NULL' : keyIds.map((key) => this.#db.literal(key)).join(', ');
    let givenUp = false;
    const turn = this.#previous.then(() => this.#db.transaction(async (tx) => {
      // Given up meanwhile: the caller decided without it, so it records nothing (its counts would be stale).
      if (givenUp) throw new Error(`${what}: given up`);
      const [allRow] = tx.firstResults[3] as { all: number }[];
      const byKey = new Map((tx.firstResults[4] as { key_id: string; open: number }[]).map((row) => [row.key_id, Number(row.open)] as const));
      const others = { byKey, all: Number(allRow?.all ?? 0) };
      await tx.commitWith(statements(others));
      return others;
    }, [
      HOLDS_LOCK,
      `SELECT pg_advisory_xact_lock(${STREAMS_LOCK})`,
      'DELETE FROM campus_streams WHERE until < clock_timestamp()',
      `SELECT coalesce(sum(open), 0)::float8 AS all FROM campus_streams WHERE instance <> ${me}`,
      `SELECT key_id, sum(open)::float8 AS open FROM campus_streams WHERE instance <> ${me} AND key_id IN (${keys}) GROUP BY key_id`,
    ].join('; ')));
    this.#previous = turn.catch(() => undefined);
    return withTimeout(turn, TURN_TIMEOUT_MS, what).catch((error: unknown) => {
      givenUp = true;
      throw error;
    });
  }

  #rows(counts: ReadonlyMap<string, number>): string {
    const me = this.#db.literal(this.#instance);
    return [...counts].map(([keyId, count]) => `(${me}, ${this.#db.literal(keyId)}, ${Math.trunc(count)}, ${lapse()})`).join(', ');
  }
}

function lapse(): string {
  return `clock_timestamp() + interval '${LAPSE_MS} milliseconds'`;
}
