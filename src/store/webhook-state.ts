// Where webhooks keep their definitions, secrets, cursors and delivery logs: behind one small interface, so any engine can carry them.

/** One attempt to deliver a message, as the delivery log shows it (API.md §13). */
export interface DeliveryRecord {
  message_id: string | null;
  type: string | null;
  attempt: number;
  status: 'succeeded' | 'failed';
  response_status: number | null;
  error: string | null;
  at: string;
}

/** A webhook's whole durable state. */
export interface WebhookState {
  id: string;
  url: string;
  events: string[];
  description: string;
  secret: string;
  created_at: string;
  status: 'active' | 'paused' | 'failing';
  /** The last message acknowledged (or passed over by the filter): its line's seq and its place in that line. */
  cursor: { seq: number; index: number };
  /** Failed attempts at the next message so far, and when the first of them failed (ms), null when none. */
  attempts: number;
  firstFailureMs: number | null;
  /** The last attempts, newest first. */
  deliveries: DeliveryRecord[];
}

/** Everything kept: the webhooks, and the last seq a compaction rewrote while one of them was behind it. */
export interface WebhookStateSnapshot {
  webhooks: WebhookState[];
  compactedThrough: number;
  /** Names this run of the log in message ids; a new one when the log is found older than the cursors (restored from a backup). */
  logId?: string;
}

/** Loads and saves the whole state; a save replaces it atomically (all of it or none). */
export interface WebhookStateStore {
  load(): Promise<WebhookStateSnapshot>;
  save(snapshot: WebhookStateSnapshot): Promise<void>;
}

/** The state before any webhook was made. */
export const EMPTY_WEBHOOK_STATE: WebhookStateSnapshot = { webhooks: [], compactedThrough: 0 };

/** The state in memory only (the memory store, tests). */
export function memoryWebhookState(): WebhookStateStore {
  let saved = JSON.stringify(EMPTY_WEBHOOK_STATE);
  return {
    load: () => Promise.resolve(JSON.parse(saved) as WebhookStateSnapshot),
    save(snapshot) {
      saved = JSON.stringify(snapshot);
      return Promise.resolve();
    },
  };
}
