// The Idempotency-Keys of writes whose outcome stayed unknown while the database is away: a retry is told so again.
import { OutcomeUnknown, StoreUnavailable } from '../store-errors.js';
import type { IdempotencyTag } from '../views/idempotency-table.js';

/** Keys remembered at most; past it the oldest are forgotten first. */
const MAX_UNCERTAIN = 10_000;

/**
 * Writes sent to be committed whose answer never came (API.md §12): until the database answers again, a retry with
 * the same Idempotency-Key must not hear that nothing was saved, since the first may have been. Once the instance has
 * caught up, its views hold every write that committed, and the retry is answered from them (clear).
 */
export class UncertainWrites {
  readonly #keys = new Set<string>();

  /** Notes writes whose outcome stayed unknown. */
  remember(tags: readonly IdempotencyTag[]): void {
    for (const tag of tags) {
      this.#keys.add(keyOf(tag));
      if (this.#keys.size > MAX_UNCERTAIN) this.#keys.delete(this.#keys.values().next().value!);
    }
  }

  /** The 503 for a retry of a write of unknown outcome while the database is away (`down`: why), or undefined. */
  retry(tag: IdempotencyTag | undefined, down: string): OutcomeUnknown | undefined {
    if (tag === undefined || !this.#keys.has(keyOf(tag))) return undefined;
    return new OutcomeUnknown(`an earlier request with this Idempotency-Key was sent to be committed and the database has not answered since (${down})`);
  }

  /** The instance caught up with the database: every outcome is in its views. */
  clear(): void {
    this.#keys.clear();
  }
}

/**
 * The 503 of a write the database never got (`down`: why it cannot be reached). One with an Idempotency-Key may retry
 * a request another instance sent to be committed, whose outcome is unknown there: so it is not told that nothing was
 * saved (API.md §12), only that this request was not sent, and that its retry gets the answer of one that was saved.
 */
export function notSent(down: string | undefined, idem: IdempotencyTag | undefined): StoreUnavailable {
  const why = `The database cannot be reached${down === undefined ? '' : ` (${down})`}`;
  if (idem === undefined) return new StoreUnavailable(`${why}; nothing of this request was saved. Retry in a moment.`, { retryAfterSeconds: 1 });
  return new StoreUnavailable(
    `${why}, so this request was not sent to it. An earlier request with this Idempotency-Key may have been saved (here or on another instance): retry in a moment with the same key, and if one was, you get its answer.`,
    { retryAfterSeconds: 1 },
  );
}

function keyOf(tag: IdempotencyTag): string {
  return `${tag.keyId} ${tag.key}`;
}
