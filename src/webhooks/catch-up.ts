// Webhooks behind the messages held in memory: each reads its next stretch back from the log into a backlog of its own.
import type { ChangeHistorySource } from '../store/views/change-history.js';
import type { Logger } from '../log/logger.js';
import type { DeliveryLane } from './delivery-lane.js';
import { LINE_DONE, MessageBacklog } from './message-backlog.js';
import { isAfter, messagesOf, type Cursor } from './messages.js';

/**
 * Changes read back from the log at a time (about 20 MB held): each read walks the log from its start, so a webhook
 * far behind makes as many walks as pieces.
 */
const CATCH_UP_CHANGES = 50_000;

/** Changes a start reads back into the shared backlog at most (about 40 MB): a webhook behind them catches up. */
export const START_READ_BACK = 100_000;

/** A webhook's own stretch of the past: undefined while the read runs. */
interface CatchUp {
  backlog: MessageBacklog | undefined;
  /** Where the stretch ends: from there the shared backlog takes over. */
  until: Cursor;
}

export interface CatchUpDeps {
  history: ChangeHistorySource | undefined;
  /** The shared backlog of live messages. */
  shared(): MessageBacklog | undefined;
  /** The newest seq a compaction rewrote while a webhook was behind it (from this run and the saved state). */
  compactedThrough(): number;
  lane(id: string): DeliveryLane | undefined;
  logger: Logger;
}

/** The catch-ups under way, by webhook id. */
export class CatchUps {
  readonly #deps: CatchUpDeps;
  readonly #entries = new Map<string, CatchUp>();
  /** Webhooks whose read back from the log failed: their next gap is reported instead. */
  readonly #unreadable = new Set<string>();

  constructor(deps: CatchUpDeps) {
    this.#deps = deps;
  }

  /** The backlog a webhook reads now: its catch-up while it is behind the shared one, else the shared one (undefined: wait). */
  backlogFor(id: string): MessageBacklog | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return this.#deps.shared();
    if (entry.backlog === undefined) return undefined;
    const cursor = this.#deps.lane(id)?.state.cursor;
    if (cursor !== undefined && isAfter(entry.until, cursor)) return entry.backlog;
    this.#entries.delete(id);
    return this.#deps.shared();
  }

  /**
   * A webhook is behind the messages held in memory (the oldest were dropped past the limit): reads the next stretch
   * back from the log. What compaction rewrote meanwhile shows there as a gap, which the lane reports (this returns
   * false for it). True while the read runs; the lane is poked when it is done.
   */
  recover(id: string): boolean {
    const lane = this.#deps.lane(id);
    const { history } = this.#deps;
    const shared = this.#deps.shared();
    if (lane === undefined || history === undefined || shared === undefined || this.#entries.has(id)) return false;
    if (this.#unreadable.delete(id)) return false;
    const cursor = { ...lane.state.cursor };
    const entry: CatchUp = { backlog: undefined, until: { ...shared.coveredFrom } };
    this.#entries.set(id, entry);
    history.readAfter(Math.max(0, cursor.seq - 1), CATCH_UP_CHANGES).then(
      (read) => {
        if (this.#entries.get(id) !== entry) return;
        const compacted = Math.max(read.compactedThrough, this.#deps.compactedThrough());
        const from = compacted > cursor.seq ? { seq: compacted, index: LINE_DONE } : cursor;
        const last = read.changes.at(-1);
        if (read.changes.length >= CATCH_UP_CHANGES && last !== undefined && isAfter(entry.until, { seq: last.record.seq, index: LINE_DONE })) entry.until = { seq: last.record.seq, index: LINE_DONE };
        const backlog = new MessageBacklog(from, { end: entry.until, max: Infinity });
        for (const change of read.changes) backlog.push(messagesOf(change).filter((message) => isAfter(message, from) && !isAfter(message, entry.until)));
        entry.backlog = backlog;
        lane.poke();
      },
      (error: unknown) => {
        this.#deps.logger.warn('could not read the event log back for a webhook behind the messages held in memory; it reports a gap', { webhook: id, reason: (error as Error).message });
        this.#entries.delete(id);
        this.#unreadable.add(id);
        lane.poke();
      },
    );
    return true;
  }

  /** A webhook was deleted. */
  forget(id: string): void {
    this.#entries.delete(id);
    this.#unreadable.delete(id);
  }
}
