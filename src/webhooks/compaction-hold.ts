// What holds a compaction (a checkpoint on PostgreSQL) back for webhooks (API.md §13: a paused webhook keeps its
// messages; nothing is lost across restarts): messages are derived from the log's lines, so a webhook that may stay
// behind for long keeps the lines after its position until it moves on.
import type { WebhookState } from '../store/webhook-state.js';

/**
 * Why a compaction of the log, now at `lastSeq`, must wait for `webhooks`, or undefined. A webhook holds it while it
 * has not acknowledged every line and is paused, failing, or retrying a message: it may stay behind for hours or
 * days, longer than a running server can be trusted to last. One delivering in good order is a few messages behind
 * at worst, which the running server holds in memory.
 */
export function compactionHoldOf(webhooks: Iterable<WebhookState>, lastSeq: number): string | undefined {
  for (const webhook of webhooks) {
    if (webhook.cursor.seq >= lastSeq) continue;
    const why = webhook.status !== 'active' ? `is ${webhook.status}` : webhook.attempts > 0 ? 'is retrying a message' : undefined;
    if (why !== undefined) return `webhook ${webhook.id} ${why} and has not acknowledged the changes after seq ${webhook.cursor.seq}; set it active once its receiver answers, or delete it`;
  }
  return undefined;
}
