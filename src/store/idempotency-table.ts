// The remembered first answers of POSTs sent with an Idempotency-Key: rebuilt from the log, forgotten after 24 h, bounded.
import type { Registration } from './roster.js';
import type { LogRecord } from './jsonl-record.js';

/** What a write made under an Idempotency-Key carries into its log line. */
export interface IdempotencyTag {
  /** The Idempotency-Key header, 1–255 printable ASCII characters. */
  key: string;
  /** The API key that sent it: keys are scoped per API key. */
  keyId: string;
  /** A hash of method, path and body bytes: a retry must match it. */
  requestHash: string;
}

/** What the first answer was, enough to send it again: the event as created, or the registration as made. */
export type RememberedAnswer = { kind: 'event'; view: string; createdAt: string } | { kind: 'registration'; registration: Registration };

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
  /** At most this many answers; past it the oldest is forgotten. Default 100,000. */
  maxEntries?: number;
  /** At most this many characters of answers in all; past it the oldest is forgotten. Default 64 Mi. */
  maxChars?: number;
}

/**
 * Answers by (API key, Idempotency-Key), in the order they were written (so the oldest go first).
 * Only the store's commits and replay add to it: an answer is remembered only once it is durable.
 */
export class IdempotencyTable {
  readonly ttlMs: number;
  readonly #maxEntries: number;
  readonly #maxChars: number;
  readonly #entries = new Map<string, IdempotencyEntry>();
  #chars = 0;

  constructor(options: IdempotencyTableOptions = {}) {
    this.ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#maxChars = options.maxChars ?? 64 * 1024 * 1024;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Remembers an answer (replacing one under the same keys), then forgets what is too old or over the bounds. */
  remember(entry: IdempotencyEntry, nowMs: number): void {
    const name = entryName(entry.keyId, entry.key);
    const previous = this.#entries.get(name);
    if (previous !== undefined) this.#forget(name, previous);
    if (nowMs - entry.atMs >= this.ttlMs) return;
    this.#entries.set(name, entry);
    this.#chars += charsOf(entry);
    this.#prune(nowMs);
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

  /** Every answer still remembered at `nowMs`, oldest first (compaction writes them). */
  live(nowMs: number): IdempotencyEntry[] {
    this.#prune(nowMs);
    return [...this.#entries.values()];
  }

  #prune(nowMs: number): void {
    for (const [name, entry] of this.#entries) {
      const tooMany = this.#entries.size > this.#maxEntries || this.#chars > this.#maxChars;
      if (!tooMany && nowMs - entry.atMs < this.ttlMs) break;
      this.#forget(name, entry);
    }
  }

  #forget(name: string, entry: IdempotencyEntry): void {
    this.#entries.delete(name);
    this.#chars -= charsOf(entry);
  }
}

function entryName(keyId: string, key: string): string {
  return `${keyId} ${key}`;
}

function charsOf(entry: IdempotencyEntry): number {
  const answer = entry.answer;
  const payload = answer.kind === 'event' ? answer.view.length : answer.registration.name.length + answer.registration.email.length + 200;
  return payload + entry.key.length + 100;
}

/** Remembers the answer of a line written under an Idempotency-Key (replay does the same from the log). */
export function rememberAnswer(table: IdempotencyTable, record: LogRecord, nowMs: number): void {
  if (record.op === 'put' && record.idem !== undefined) {
    const { stored, idem } = record;
    // Fields named one by one (not spread): every entry then has the same shape.
    table.remember({ key: idem.key, keyId: idem.keyId, requestHash: idem.requestHash, atMs: stored.modifiedMs, seq: record.seq, answer: { kind: 'event', view: stored.json, createdAt: stored.createdAt } }, nowMs);
  } else if (record.op === 'reg' && record.idem !== undefined) {
    const { registration, idem } = record;
    table.remember({ key: idem.key, keyId: idem.keyId, requestHash: idem.requestHash, atMs: Date.parse(registration.createdAt), seq: record.seq, answer: { kind: 'registration', registration } }, nowMs);
  }
}
