// The change streams' caps over every instance on one database (PostgreSQL): opens claimed in batches, one database
// transaction at a time, this instance's counts kept written, and streams past the caps (admitted while the database
// could not say, or kept through a pause) ended.
import { ApiError } from '../http/errors.js';
import type { OthersOpen, SharedStreamCounts } from '../store/stream-counts.js';

/** A stream as admission sees it: its key, and how to end it. */
export interface Claimant {
  readonly keyId: string;
  end(): void;
}

/** A stream refused for a cap: 429, to retry in a few seconds. */
export function streamsFull(message: string): ApiError {
  return new ApiError('rate_limited', message, { headers: { 'Retry-After': '5' } });
}

interface Waiting {
  stream: Claimant;
  settle: (refused?: ApiError) => void;
}

/**
 * Admits streams against the caps over all instances. Opens that come together are claimed in one transaction, and
 * one transaction runs at a time (a burst of reconnecting dashboards takes one connection, not the writes' pool), in
 * arrival order. A database that does not answer leaves the decision to the others' counts as it last told them.
 */
export class StreamAdmission {
  readonly #shared: SharedStreamCounts;
  readonly #perKey: number;
  readonly #total: number;
  /** Streams admitted and still open, oldest first. */
  readonly #admitted = new Set<Claimant>();
  #waiting: Waiting[] = [];
  /** The streams of the claim under way that have not ended meanwhile: only those are admitted when it returns. */
  readonly #claiming = new Set<Claimant>();
  #busy: Promise<void> | undefined;
  #publishWanted = false;
  /** The others' open streams as the database last told. */
  readonly #seen = { byKey: new Map<string, number>(), all: 0 };

  constructor(shared: SharedStreamCounts, caps: { perKey: number; total: number }) {
    this.#shared = shared;
    this.#perKey = caps.perKey;
    this.#total = caps.total;
  }

  /** Resolves once `stream` is admitted; rejects with the 429 when the caps over all instances have no room. */
  admit(stream: Claimant): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ stream, settle: (refused) => (refused === undefined ? resolve() : reject(refused)) });
      this.#work();
    });
  }

  /** `stream` ended: its slot is free, on every instance once the counts are written (at once). */
  release(stream: Claimant): void {
    const waiting = this.#waiting.findIndex((entry) => entry.stream === stream);
    if (waiting >= 0) this.#waiting.splice(waiting, 1)[0]!.settle(endedBeforeOpen());
    // One whose claim is under way may be counted by it: the counts are written again after it.
    if (this.#admitted.delete(stream) || this.#claiming.delete(stream)) this.publishSoon();
  }

  /** Writes this instance's counts again (they lapse unless written every few seconds). */
  publishSoon(): void {
    this.#publishWanted = true;
    this.#work();
  }

  /** Resolves once nothing is being claimed or written. */
  async idle(): Promise<void> {
    while (this.#busy !== undefined) await this.#busy;
  }

  /** Claims what waits, then writes the counts if asked, one transaction at a time, until nothing is left. */
  #work(): void {
    if (this.#busy !== undefined) return;
    this.#busy = (async () => {
      while (this.#waiting.length > 0 || this.#publishWanted) {
        // A write of the counts goes before the next claim: opens coming without a pause must not keep them from being
        // written until they lapse.
        if (this.#publishWanted) {
          this.#publishWanted = false;
          await this.#publish();
        } else await this.#claim(this.#waiting.splice(0));
      }
    })().finally(() => {
      this.#busy = undefined;
      // Asked for between the loop's last look and now.
      if (this.#waiting.length > 0 || this.#publishWanted) this.#work();
    });
  }

  async #claim(batch: Waiting[]): Promise<void> {
    for (const entry of batch) this.#claiming.add(entry.stream);
    const keyIds = [...new Set(batch.map((entry) => entry.stream.keyId))];
    let decision: Decision | undefined;
    try {
      this.#remember(keyIds, await this.#shared.claim(keyIds, (others) => (decision = this.#decide(batch, others)).rows));
    } catch {
      decision = this.#decide(batch, this.#seen);
    }
    for (const entry of batch) {
      const refused = this.#claiming.delete(entry.stream) ? decision!.refused.get(entry.stream) : endedBeforeOpen();
      if (refused === undefined) this.#admitted.add(entry.stream);
      entry.settle(refused);
    }
  }

  /** Which of `batch` fit beside `others`, in order, and this instance's counts of their keys with them. */
  #decide(batch: readonly Waiting[], others: OthersOpen): Decision {
    const mine = countByKey(this.#admitted);
    let mineAll = this.#admitted.size;
    const rows = new Map<string, number>();
    const refused = new Map<Claimant, ApiError>();
    for (const { stream } of batch) {
      const key = stream.keyId;
      const theirs = others.byKey.get(key) ?? 0;
      const have = mine.get(key) ?? 0;
      if (theirs + have >= this.#perKey) {
        refused.set(stream, streamsFull(`This key already has ${theirs + have} open change streams over all instances, its limit; close one before opening another.`));
      } else if (others.all + mineAll >= this.#total) {
        refused.set(stream, streamsFull(`The instances already hold ${others.all + mineAll} open change streams, their limit; retry in a moment.`));
      } else {
        mine.set(key, have + 1);
        mineAll += 1;
        rows.set(key, have + 1);
      }
    }
    return { rows, refused };
  }

  async #publish(): Promise<void> {
    const keyIds = [...countByKey(this.#admitted).keys()];
    try {
      await this.#shared.publish(keyIds, (others) => {
        this.#remember(keyIds, others);
        // Streams past the caps end now, before the write commits: they are over the caps whether it does or not.
        this.#endPastCaps(others);
        return countByKey(this.#admitted);
      });
    } catch {
      // Written again at the next tick; until then the others count these streams as they last read them.
    }
  }

  /**
   * Streams admitted on counts the database could not confirm (it was away or slow), or kept through a pause long enough
   * for this instance's counts to lapse while the others admitted streams in their place, may be past the caps: the
   * newest here go, down to what the others' streams leave. The instances write their counts one at a time, each
   * seeing what the one before kept, so between them they end just what is past the caps.
   */
  #endPastCaps(others: OthersOpen): void {
    const newestFirst = [...this.#admitted].reverse();
    if (newestFirst.length === 0) return;
    const mine = countByKey(this.#admitted);
    let mineAll = this.#admitted.size;
    for (const stream of newestFirst) {
      const key = stream.keyId;
      const have = mine.get(key)!;
      if ((others.byKey.get(key) ?? 0) + have <= this.#perKey && others.all + mineAll <= this.#total) continue;
      mine.set(key, have - 1);
      mineAll -= 1;
      stream.end();
    }
  }

  /** The others' counts of `keyIds` as just read (a key left out: they hold none). */
  #remember(keyIds: readonly string[], others: OthersOpen): void {
    for (const key of keyIds) {
      const open = others.byKey.get(key) ?? 0;
      if (open === 0) this.#seen.byKey.delete(key);
      else this.#seen.byKey.set(key, open);
    }
    this.#seen.all = others.all;
  }
}

interface Decision {
  rows: ReadonlyMap<string, number>;
  refused: ReadonlyMap<Claimant, ApiError>;
}

function endedBeforeOpen(): ApiError {
  return new ApiError('unavailable', 'The stream ended before it opened; reconnect.');
}

function countByKey(streams: Iterable<Claimant>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const stream of streams) counts.set(stream.keyId, (counts.get(stream.keyId) ?? 0) + 1);
  return counts;
}
