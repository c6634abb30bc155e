// What a new webhook starts with: its id, secret and position; and the name of a run of the log its message ids carry.
import { base62 } from '../lib/base62.js';
import { randomId } from '../lib/random-id.js';
import type { WebhookState } from '../store/webhook-state.js';
import { LINE_DONE } from './message-backlog.js';
import { MESSAGE_TYPES } from './messages.js';
import { newSecret } from './signature.js';
import type { WebhookInput } from './webhook-input.js';
import type { WebhookClock } from './delivery-lane.js';

/** A new webhook's state: a fresh id (one `taken` does not hold) and secret, active, hearing what comes after the last durable line. */
export function newWebhookState(input: WebhookInput, deps: { randomBytes: (size: number) => Uint8Array; clock: WebhookClock; lastSeq: () => number }, taken: (id: string) => boolean): WebhookState {
  let id = randomId('whk', deps.randomBytes);
  while (taken(id)) id = randomId('whk', deps.randomBytes);
  return {
    id,
    url: input.url!,
    events: input.events ?? [...MESSAGE_TYPES],
    description: input.description ?? '',
    secret: newSecret(deps.randomBytes),
    created_at: new Date(deps.clock.now()).toISOString(),
    status: 'active',
    cursor: { seq: deps.lastSeq(), index: LINE_DONE },
    attempts: 0,
    firstFailureMs: null,
    deliveries: [],
  };
}

/** A short random name for a run of the log: 8 base62 characters. */
export function newLogId(randomBytes: (size: number) => Uint8Array): string {
  return base62(randomBytes(6), 8);
}
