// The webhooks' shared backlog of live messages: fed by the store's durable changes, and read back from the log at a start.
import type { ChangeHistorySource, CommittedChange } from '../store/views/change-history.js';
import { LINE_DONE, MessageBacklog } from './message-backlog.js';
import { messagesOf, type Cursor } from './messages.js';
import { START_READ_BACK } from './catch-up.js';

export interface MessageFeedDeps {
  /** The store's durable changes; without it (an engine that has none) the feed hears nothing. */
  history: ChangeHistorySource | undefined;
  /** The seq of the last durable line. */
  lastSeq: () => number;
  /** Messages held in memory at most (default MAX_BACKLOG); a webhook behind them reads them back from the log. */
  maxBacklog?: number | undefined;
  /** Changes read back into the backlog at a start at most (default START_READ_BACK), for tests. */
  startReadBack?: number | undefined;
  /** The oldest position of a webhook (undefined: none): where a start reads back from. */
  oldestCursor: () => Cursor | undefined;
  /** The newest seq a compaction rewrote while a webhook was behind it (from this run and the saved state). */
  compactedThrough: () => number;
  /** A durable batch joined the backlog: every webhook may have a message to send. */
  heard: () => void;
}

/** The subscription to the store's durable changes, and the backlog of messages it builds while it runs. */
export class MessageFeed {
  readonly #deps: MessageFeedDeps;
  #backlog: MessageBacklog | undefined;
  #unsubscribe: (() => void) | undefined;
  #starting: Promise<void> | undefined;
  /** Counts the feed's stops, so a start that read the log meanwhile knows it was stopped. */
  #generation = 0;

  constructor(deps: MessageFeedDeps) {
    this.#deps = deps;
  }

  /** The backlog of live messages, while the feed runs. */
  get backlog(): MessageBacklog | undefined {
    return this.#backlog;
  }

  /** Starts the feed, or waits for the start under way; `readBack` (on open) reads back what the webhooks had not acknowledged. */
  start(readBack: boolean): Promise<void> {
    this.#starting ??= this.#start(readBack).finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  /** Stops hearing changes and drops the backlog (a start reading the log meanwhile ends without one). */
  stop(): void {
    this.#generation++;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#backlog = undefined;
  }

  /**
   * The store is taking in history past the changes it applied (a PostgreSQL instance that fell behind a checkpoint,
   * whose rows were dropped): the changes between were never heard. The backlog starts again after `throughSeq`; a
   * webhook behind it reads back from the log, which reports the gap, as after a compaction. True when it did.
   */
  skipTo(throughSeq: number): boolean {
    if (this.#backlog === undefined || throughSeq <= this.#deps.lastSeq()) return false;
    this.#backlog = new MessageBacklog({ seq: throughSeq, index: LINE_DONE }, { max: this.#deps.maxBacklog });
    return true;
  }

  /**
   * Subscribes to durable changes and builds the backlog: on open, from the log after the oldest cursor (reporting
   * what compaction took as a gap in the delivery logs of the webhooks behind it), but no more than the last
   * START_READ_BACK changes; on a first webhook, empty. A webhook behind what was read back reads the rest in pieces of
   * its own (CatchUps): read back whole, a long log behind a webhook paused for years needed about twice its size in
   * memory, and the start ran out of it.
   */
  async #start(readBack: boolean): Promise<void> {
    const buffered: CommittedChange[] = [];
    let ready = false;
    this.#unsubscribe = this.#deps.history?.subscribe((changes) => {
      if (ready) this.#heard(changes);
      else buffered.push(...changes);
    });
    const lastSeq = this.#deps.lastSeq();
    const oldest = this.#deps.oldestCursor() ?? { seq: lastSeq, index: LINE_DONE };
    if (readBack && oldest.seq < lastSeq && this.#deps.history !== undefined) {
      const generation = this.#generation;
      const since = Math.max(0, oldest.seq - 1, lastSeq - (this.#deps.startReadBack ?? START_READ_BACK));
      const read = await this.#deps.history.readAfter(since).catch((error: unknown) => {
        if (this.#generation === generation) this.stop();
        throw error;
      });
      // Every webhook went (released) while the log was read: the feed was stopped meanwhile.
      if (this.#generation !== generation) return;
      const through = Math.max(read.compactedThrough, this.#deps.compactedThrough());
      const coveredFrom: Cursor = { seq: through >= oldest.seq ? Math.max(through, since) : since, index: LINE_DONE };
      this.#backlog = new MessageBacklog(coveredFrom, { max: this.#deps.maxBacklog });
      for (const change of read.changes) if (change.record.seq > coveredFrom.seq) this.#backlog.push(messagesOf(change));
      this.#backlog.heardThrough(lastSeq);
    } else this.#backlog = new MessageBacklog({ seq: lastSeq, index: LINE_DONE }, { max: this.#deps.maxBacklog });
    ready = true;
    this.#heard(buffered.filter((change) => change.record.seq > lastSeq));
  }

  /** A durable batch: its messages join the backlog. */
  #heard(changes: readonly CommittedChange[]): void {
    if (this.#backlog === undefined) return;
    for (const change of changes) this.#backlog.push(messagesOf(change));
    // Lines that make no message (a series' own) count as heard: a webhook past every message is past them too.
    this.#backlog.heardThrough(this.#deps.lastSeq());
    this.#deps.heard();
  }
}
