// The remembered first answers of POSTs sent with an Idempotency-Key: rebuilt from the log, forgotten after 24 h and never before.
import type { Registration } from './roster.js';

/** What a write made under an Idempotency-Key carries into its log line. */
export interface IdempotencyTag {
  /** The Idempotency-Key header, 1–255 printable ASCII characters. */
  key: string;
  /** The API key that sent it: keys are scoped per API key. */
  keyId: string;
  /** A hash of method, path and body bytes: a retry must match it. */
  requestHash: string;
}

/** What the first answer was, enough to send it again: the event as created, the registration as made, or the document (a series) as written. */
export type RememberedAnswer =
  | { kind: 'event'; view: string; createdAt: string }
  | { kind: 'registration'; registration: Registration }
  | { kind: 'document'; collection: string; id: string; json: string };

/** One remembered answer. */
export interface IdempotencyEntry extends IdempotencyTag {
  /** When the first answer was written (ms since the epoch). */
  atMs: number;
  /** The seq of the line that wrote it. */
  seq: number;
  answer: RememberedAnswer;
}

/** How long an answer is remembered: 24 hours (API.md §9.3). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Options of an IdempotencyTable. */
export interface IdempotencyTableOptions {
  /** Default 24 h. */
  ttlMs?: number;
}

/** How many answers an API key holds now, and when the oldest of them is forgotten. */
export interface IdempotencyUse {
  live: number;
  /** When the oldest live answer of the key expires (ms since the epoch); undefined when it has none. */
  oldestExpiresMs: number | undefined;
}

/**
 * Answers by (API key, Idempotency-Key), in the order they were written (so the oldest go first).
 * Only the store's commits and replay add to it: an answer is remembered only once it is durable.
 * An answer younger than the TTL is never forgotten: memory is bounded per API key by the quota the
 * Idempotency-Key checks enforce before a write (API.md §9.3; see IdempotencyGuard), not here.
 */
export class IdempotencyTable {
  readonly ttlMs: number;
  readonly #entries = new Map<string, IdempotencyEntry>();
  /** Per API key, its answers in the order they were written: the count and the oldest, for the quota. */
  readonly #byKey = new Map<string, Map<string, IdempotencyEntry>>();

  constructor(options: IdempotencyTableOptions = {}) {
    this.ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Remembers an answer (replacing one under the same keys), then forgets what is too old. */
  remember(entry: IdempotencyEntry, nowMs: number): void {
    const name = entryName(entry.keyId, entry.key);
    this.#replaced(name);
    if (nowMs - entry.atMs >= this.ttlMs) return;
    this.#entries.set(name, entry);
    let mine = this.#byKey.get(entry.keyId);
    if (mine === undefined) this.#byKey.set(entry.keyId, (mine = new Map()));
    mine.set(name, entry);
    this.#prune(nowMs);
  }

  /**
   * For a line under these keys written at `atMs`, whose answer is too old to keep: forgets what the keys held (the
   * line replaces it, as remember would) and returns true; false when the answer is to be remembered.
   */
  forgetIfExpired(keyId: string, key: string, atMs: number, nowMs: number): boolean {
    if (nowMs - atMs < this.ttlMs) return false;
    this.#replaced(entryName(keyId, key));
    return true;
  }

  /** Forgets the answer held under `name`, if any: a later line under the same keys replaces it. */
  #replaced(name: string): void {
    const previous = this.#entries.get(name);
    if (previous !== undefined) this.#forget(name, previous);
  }

  /** The answer remembered for this API key and Idempotency-Key, unless older than the TTL. */
  find(keyId: string, key: string, nowMs: number): IdempotencyEntry | undefined {
    const name = entryName(keyId, key);
    const entry = this.#entries.get(name);
    if (entry === undefined) return undefined;
    if (nowMs - entry.atMs >= this.ttlMs) {
      this.#forget(name, entry);
      return undefined;
    }
    return entry;
  }

  /** How many answers `keyId` holds at `nowMs` (the quota's count), and when its oldest is forgotten. */
  use(keyId: string, nowMs: number): IdempotencyUse {
    this.#prune(nowMs);
    const mine = this.#byKey.get(keyId);
    if (mine === undefined) return { live: 0, oldestExpiresMs: undefined };
    let oldest = Infinity;
    // Written in order, so the first is the oldest unless a clock stepped back: a few are enough to look at.
    let looked = 0;
    for (const entry of mine.values()) {
      oldest = Math.min(oldest, entry.atMs);
      if (++looked === 8) break;
    }
    return { live: mine.size, oldestExpiresMs: oldest + this.ttlMs };
  }

  /** How many answers are still remembered at `nowMs`: the lines a compaction would write for them. */
  liveCount(nowMs: number): number {
    this.#prune(nowMs);
    return this.#entries.size;
  }

  /** Every answer still remembered at `nowMs`, oldest first (compaction writes them). */
  live(nowMs: number): IdempotencyEntry[] {
    this.#prune(nowMs);
    return [...this.#entries.values()];
  }

  #prune(nowMs: number): void {
    for (const [name, entry] of this.#entries) {
      // Written while the wall clock ran ahead (it has been set back since): its 24 h count from now. Left in the
      // future, it would stand young at the front for as long as the clock was ahead, and hold every answer behind it.
      if (entry.atMs > nowMs) {
        entry.atMs = nowMs;
        continue;
      }
      if (nowMs - entry.atMs < this.ttlMs) break;
      this.#forget(name, entry);
    }
  }

  #forget(name: string, entry: IdempotencyEntry): void {
    this.#entries.delete(name);
    const mine = this.#byKey.get(entry.keyId);
    mine?.delete(name);
    if (mine?.size === 0) this.#byKey.delete(entry.keyId);
  }
}

function entryName(keyId: string, key: string): string {
  return `${keyId} ${key}`;
}
