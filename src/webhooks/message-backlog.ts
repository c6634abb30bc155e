// The messages not yet acknowledged by every webhook, in write order, derived once and shared by all of them.
import { isAfter, type Cursor, type WebhookMessage } from './messages.js';

/** The cursor index meaning "every message of this line": a line's messages never number this many. */
export const LINE_DONE = Number.MAX_SAFE_INTEGER;

/** Whether `cursor` is past every message of line `seq` (and of those before it): one line makes several messages. */
export function doneThrough(cursor: Cursor, seq: number): boolean {
  return !isAfter({ seq, index: LINE_DONE }, cursor);
}

/** Past this many messages the oldest are dropped; a webhook still behind them reports the gap in its delivery log. */
export const MAX_BACKLOG = 500_000;

/** What a webhook finds next: a message, a gap (messages it needed are no longer held), or nothing yet. */
export type NextMessage = { kind: 'message'; message: WebhookMessage; lastOfLine: boolean } | { kind: 'gap'; through: Cursor } | undefined;

/** Messages in position order, from `coveredFrom` on: every message after that position is held. */
export class MessageBacklog {
  #messages: WebhookMessage[] = [];
  /** Index of the first message still held in #messages (the ones before are dropped lazily). */
  #head = 0;
  #coveredFrom: Cursor;
  /** The newest line heard, messages or none (a series' own line makes none): where a webhook with nothing left moves. */
  #heardSeq: number;
  readonly #max: number;
  readonly #end: Cursor | undefined;

  /**
   * @param coveredFrom every message after this position is held.
   * @param options `max` messages held at most (default MAX_BACKLOG); `end`: the backlog holds a stretch of the past
   * that ends there (a webhook's catch-up from the log), so a webhook with nothing selected in it moves to `end`.
   */
  constructor(coveredFrom: Cursor, options: { max?: number; end?: Cursor } = {}) {
    this.#coveredFrom = { ...coveredFrom };
    this.#heardSeq = coveredFrom.seq;
    this.#max = options.max ?? MAX_BACKLOG;
    this.#end = options.end;
  }

  /** Where a stretch of the past ends (undefined for the live backlog, which ends at its last message). */
  get end(): Cursor | undefined {
    return this.#end;
  }

  /** Every message after this position is held. */
  get coveredFrom(): Cursor {
    return this.#coveredFrom;
  }

  get size(): number {
    return this.#messages.length - this.#head;
  }

  /** Appends the messages of a durable line (in position order). */
  push(messages: readonly WebhookMessage[]): void {
    for (const message of messages) this.#messages.push(message);
    if (messages.length > 0) this.heardThrough(messages[messages.length - 1]!.seq);
    if (this.size > this.#max) this.dropThrough(this.#messages[this.#messages.length - this.#max - 1]!);
  }

  /** The first message after `cursor` whose type `wanted` selects (or the gap before it). */
  next(cursor: Cursor, wanted: (type: string) => boolean): NextMessage {
    if (isAfter(this.#coveredFrom, cursor)) return { kind: 'gap', through: { ...this.#coveredFrom } };
    for (let at = this.#firstAfter(cursor); at < this.#messages.length; at++) {
      const message = this.#messages[at]!;
      if (!wanted(message.type)) continue;
      const following = this.#messages[at + 1];
      return { kind: 'message', message, lastOfLine: following === undefined || following.seq !== message.seq };
    }
    return undefined;
  }

  /** Every line through `seq` is durable and heard: those after the last message made none. */
  heardThrough(seq: number): void {
    if (seq > this.#heardSeq) this.#heardSeq = seq;
  }

  /** The newest line heard (see heardThrough). */
  get heardSeq(): number {
    return this.#heardSeq;
  }

  /** Forgets the messages at or before `cursor` (every webhook is past them). */
  dropThrough(cursor: Cursor): void {
    const at = this.#firstAfter(cursor);
    if (at <= this.#head) return;
    const lastDropped = this.#messages[at - 1]!;
    this.#head = at;
    if (isAfter({ seq: lastDropped.seq, index: lastDropped.index }, this.#coveredFrom)) this.#coveredFrom = { seq: lastDropped.seq, index: lastDropped.index };
    if (this.#head > 1024 && this.#head * 2 > this.#messages.length) {
      this.#messages = this.#messages.slice(this.#head);
      this.#head = 0;
    }
  }

  /** The index of the first message after `cursor` (binary search). */
  #firstAfter(cursor: Cursor): number {
    let low = this.#head;
    let high = this.#messages.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (isAfter(this.#messages[mid]!, cursor)) high = mid;
      else low = mid + 1;
    }
    return low;
  }
}
