// What holds a compaction (a checkpoint on PostgreSQL) back for webhooks (API.md §13: a paused webhook keeps its
// messages; nothing is lost across restarts): messages are derived from the log's lines, so the lines after a
// webhook's position stay until it has acknowledged them; and the wait for them before a compaction goes ahead.
import { ReaderBehind, type CompactionHold } from '../store/views/change-history.js';
import type { WebhookState } from '../store/webhook-state.js';
import { doneThrough } from './message-backlog.js';

/**
 * What holds a compaction of the log, now at `lastSeq`, back for `webhooks`, or undefined: any webhook that has not
 * acknowledged every line. A paused or failing one, or one retrying a message after its first retry, holds it for long
 * (`lasting`, named first); one delivering in good order, or waiting 5 s for its first retry, for seconds.
 */
export function compactionHoldOf(webhooks: Iterable<WebhookState>, lastSeq: number): CompactionHold | undefined {
  let brief: CompactionHold | undefined;
  for (const webhook of webhooks) {
    // Caught up only past every message of the last line (a registration's line makes its event's message too).
    if (doneThrough(webhook.cursor, lastSeq)) continue;
    if (webhook.status !== 'active') {
      return { reason: `webhook ${webhook.id} is ${webhook.status} and has not acknowledged the changes after seq ${webhook.cursor.seq}; set it active once its receiver answers, or delete it`, lasting: true };
    }
    // The first retry comes 5 s after a failure, within a compaction's wait: a receiver failing now and then holds
    // nothing back for long (each failure would have begun a hold, and its warning). Later ones are hours apart.
    if (webhook.attempts > 1) {
      return { reason: `webhook ${webhook.id} is retrying a message its receiver has not acknowledged (after seq ${webhook.cursor.seq}); it goes on by itself once the receiver answers, or delete it`, lasting: true };
    }
    brief ??= { reason: `webhook ${webhook.id} is delivering the changes after seq ${webhook.cursor.seq}`, lasting: false };
  }
  return brief;
}

/** How long a compaction waits for webhooks to acknowledge the lines it rewrote, in ms. */
export const SETTLE_MS = 10_000;

/** What settleForCompaction waits for: the compaction's last seq, whether it was forced by hand, and for how long. */
export interface SettleOptions {
  throughSeq: number;
  forced: boolean;
  settleMs: number;
  /** True once the webhooks are stopping: the wait ends, and the compaction with it. */
  stopping: () => boolean;
}

/**
 * Before a compaction through `throughSeq` makes its log durable: waits (at most settleMs) until every webhook has
 * acknowledged every message of the lines through it; the caller then saves the positions. A restart then goes on from
 * past the lines the compaction rewrote; from a position before them it would read a rewritten line (a registration's
 * event state) as another message under the id of the one already sent, and miss the rest of that line's messages.
 * A compaction the store started by itself (none is while a webhook is paused, failing or retrying) is called off by
 * one still behind at the deadline (its receiver slower than the writes). One forced by hand waits only for
 * the webhooks delivering in good order, and goes ahead past the others, which report what they miss as a gap.
 */
export async function settleForCompaction(webhooks: () => readonly WebhookState[], options: SettleOptions): Promise<void> {
  const { throughSeq, forced } = options;
  const deadline = performance.now() + options.settleMs;
  const behind = (): WebhookState | undefined =>
    webhooks().find((state) => !doneThrough(state.cursor, throughSeq) && (!forced || (state.status === 'active' && state.attempts === 0)));
  for (let waiting = behind(); waiting !== undefined; waiting = behind()) {
    if (options.stopping()) throw new ReaderBehind('the webhooks are stopping', true);
    if (performance.now() >= deadline) {
      if (forced) break;
      throw new ReaderBehind(`webhook ${waiting.id} has not acknowledged the changes through seq ${throughSeq}; the compaction is tried again later`);
    }
    // A timer that keeps the process alive: the wait is short and bounded, and a stop must not end the process under it.
    await new Promise<void>((resolve) => setTimeout(resolve, 10));
  }
}
