// What holds a compaction (a checkpoint on PostgreSQL) back for webhooks (API.md §13: a paused webhook keeps its
// messages; nothing is lost across restarts): messages are derived from the log's lines, so the lines after a
// webhook's position stay until it has acknowledged them.
import type { CompactionHold } from '../store/views/change-history.js';
import type { WebhookState } from '../store/webhook-state.js';
import { doneThrough } from './message-backlog.js';

/**
 * What holds a compaction of the log, now at `lastSeq`, back for `webhooks`, or undefined: any webhook that has not
 * acknowledged every line. A paused, failing or retrying one holds it for long (`lasting`, named first); one
 * delivering in good order for the seconds it takes to catch up.
 */
export function compactionHoldOf(webhooks: Iterable<WebhookState>, lastSeq: number): CompactionHold | undefined {
  let brief: CompactionHold | undefined;
  for (const webhook of webhooks) {
    // Caught up only past every message of the last line (a registration's line makes its event's message too).
    if (doneThrough(webhook.cursor, lastSeq)) continue;
    const why = webhook.status !== 'active' ? `is ${webhook.status}` : webhook.attempts > 0 ? 'is retrying a message' : undefined;
    if (why !== undefined) {
      return { reason: `webhook ${webhook.id} ${why} and has not acknowledged the changes after seq ${webhook.cursor.seq}; set it active once its receiver answers, or delete it`, lasting: true };
    }
    brief ??= { reason: `webhook ${webhook.id} is delivering the changes after seq ${webhook.cursor.seq}`, lasting: false };
  }
  return brief;
}
