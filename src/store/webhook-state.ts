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
  /**
   * Failed attempts at the next message so far, and when the first of them failed (ms), null when none. With the
   * time of the last attempt in `deliveries` they give when the next attempt is due after a restart (savedRetryAt),
   * so no engine keeps a due time of its own.
   */
  attempts: number;
  firstFailureMs: number | null;
  /** The last attempts, newest first. */
  deliveries: DeliveryRecord[];
}

/** A check of a webhook as it is when an admin's change is made (an If-Match): it throws to refuse the change. */
export type Precondition = (current: WebhookState) => void;

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

/** A webhook as a shared table holds it (several instances on one database): its state, and how often an admin changed it. */
export interface SharedWebhook {
  state: WebhookState;
  /** Counts an admin's changes (url, events, description, status): the deliverer applies each once. */
  version: number;
  /** The version of the admin's change that last set `status` (0: none did). */
  statusVersion: number;
}

/** What an admin may change on a webhook; `status: 'active'` also starts its retry schedule afresh. */
export interface WebhookChanges {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | undefined;
  status?: 'active' | 'paused' | undefined;
}

/**
 * Webhooks in a table every instance shares: definitions changed at once for all, and delivery leased to one
 * instance per webhook at a time (`owner`: a name unique to one run of one instance). A lease not renewed within
 * `leaseMs` lapses, and another instance takes the webhook over from its saved state.
 */
export interface SharedWebhookTable {
  /** The name of the log in message ids, made once per database: the one stored, or `candidate` when none was. */
  logId(candidate: string): Promise<string>;
  /** Every webhook, oldest first. */
  list(): Promise<SharedWebhook[]>;
  get(id: string): Promise<SharedWebhook | undefined>;
  /** Adds a webhook leased to `owner`; its cursor is set to the newest committed seq (it hears what comes after). */
  insert(state: WebhookState, owner: string, leaseMs: number): Promise<WebhookState>;
  /** An admin's change: one more version. Undefined for an unknown id, or when `version` is given and not the webhook's. */
  change(id: string, changes: WebhookChanges, version?: number): Promise<SharedWebhook | undefined>;
  /** False for an unknown id, or when `version` is given and not the webhook's. */
  delete(id: string, version?: number): Promise<boolean>;
  /** Whether an instance other than `owner` holds a live lease on the webhook: it delivers it, and learns of changes on its next tick. */
  heldElsewhere(id: string, owner: string): Promise<boolean>;
  /** Renews `owner`'s leases and takes the free or lapsed ones; returns every webhook `owner` holds now. */
  lease(owner: string, leaseMs: number): Promise<SharedWebhook[]>;
  /**
   * Saves the delivery state (cursor, retries, attempts; `failing` unless an admin set a status after `version`, the
   * change last applied) of webhooks `owner` holds; returns the ids it no longer holds.
   */
  saveProgress(owner: string, webhooks: readonly { state: WebhookState; version: number }[]): Promise<string[]>;
  /** Gives up every lease of `owner` (on a graceful stop), so another instance takes over at once. */
  release(owner: string): Promise<void>;
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
