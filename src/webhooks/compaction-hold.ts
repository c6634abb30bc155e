// What holds a compaction (a checkpoint on PostgreSQL) back for webhooks (API.md §13: a paused webhook keeps its
// messages; nothing is lost across restarts): messages are derived from the log's lines, so the lines after a
// webhook's position stay until it has acknowledged them.
import type { CompactionHold } from '../store/views/change-history.js';
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
