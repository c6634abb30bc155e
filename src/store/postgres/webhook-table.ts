// The campus_webhooks table: webhooks shared by every instance on the database, each delivered by the one instance holding its lease.
import type { SharedWebhook, SharedWebhookTable, WebhookChanges, WebhookState, WebhookStateSnapshot } from '../webhook-state.js';
import { StoreUnavailable } from '../store-errors.js';
import { mayHaveRun, withTimeout, type Database, type Queryable } from './client.js';
import { errorCode } from '../../lib/error-code.js';

/** How long an admin's read or change may take before the database counts as unreachable (503). */
const QUERY_TIMEOUT_MS = 2_000;
/** In change(): the webhook's schedule starts afresh (set active, or a new url $2 while it stays active). */
const AFRESH = `($5::text = 'active' OR ($2::text IS NOT NULL AND $2::text <> url AND coalesce($5::text, status) = 'active'))`;

const COLUMNS =
  'id, url, events, description, secret, created_at, status, version::float8 AS version, status_version::float8 AS status_version, cursor_seq::float8 AS cursor_seq, cursor_index::float8 AS cursor_index, attempts, first_failure_ms, deliveries';

interface Row {
  id: string;
  url: string;
  events: string;
  description: string;
  secret: string;
  created_at: string;
  status: WebhookState['status'];
  version: number;
  status_version: number;
  cursor_seq: number;
  cursor_index: number;
  attempts: number;
  first_failure_ms: number | null;
  deliveries: string;
}

function webhookOf(row: Row): SharedWebhook {
  return {
    version: row.version,
    statusVersion: row.status_version,
    state: {
      id: row.id,
      url: row.url,
      events: JSON.parse(row.events) as string[],
      description: row.description,
      secret: row.secret,
      created_at: row.created_at,
      status: row.status,
      cursor: { seq: row.cursor_seq, index: row.cursor_index },
      attempts: row.attempts,
      firstFailureMs: row.first_failure_ms,
      deliveries: JSON.parse(row.deliveries) as WebhookState['deliveries'],
    },
  };
}

function byAge(a: SharedWebhook, b: SharedWebhook): number {
  return a.state.created_at < b.state.created_at ? -1 : a.state.created_at > b.state.created_at ? 1 : a.state.id < b.state.id ? -1 : a.state.id > b.state.id ? 1 : 0;
}

/**
 * An admin's request met a database it cannot use: a 503 that says nothing was kept only when that is known (the
 * statement failed, or never reached the server); a change whose answer was lost may have been kept.
 */
function unavailable(error: unknown, change: boolean): StoreUnavailable {
  const code = errorCode(error);
  const why = code === undefined ? '' : ` (${code})`;
  if (!change) return new StoreUnavailable(`The database cannot be reached${why}; retry in a moment.`, { retryAfterSeconds: 1 });
  if (!mayHaveRun(error)) return new StoreUnavailable(`The database cannot be reached${why}; nothing of this change to webhooks was kept. Retry in a moment.`, { retryAfterSeconds: 1 });
  return new StoreUnavailable(`The database stopped answering after this change to webhooks was sent${why}, so it may have been kept: read the webhooks back (GET /webhooks) once the database answers, before sending it again.`, {
    retryAfterSeconds: 1,
    details: [{ field: 'outcome', message: 'unknown: the database did not say whether the change was saved' }],
  });
}

/** Webhooks in PostgreSQL (see SharedWebhookTable). Lease times are the database's clock, so instances' clocks never disagree about them. */
export class PostgresWebhookTable implements SharedWebhookTable {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async logId(candidate: string): Promise<string> {
    await this.#db.query("INSERT INTO campus_meta (name, value) VALUES ('webhook_log_id', $1) ON CONFLICT (name) DO NOTHING", [candidate]);
    const [row] = await this.#db.query<{ value: string }>("SELECT value FROM campus_meta WHERE name = 'webhook_log_id'");
    return row?.value ?? candidate;
  }

  async list(): Promise<SharedWebhook[]> {
    const rows = await this.#admin(this.#db.query<Row>(`SELECT ${COLUMNS} FROM campus_webhooks`), false);
    return rows.map(webhookOf).sort(byAge);
  }

  async get(id: string): Promise<SharedWebhook | undefined> {
    const [row] = await this.#admin(this.#db.query<Row>(`SELECT ${COLUMNS} FROM campus_webhooks WHERE id = $1`, [id]), false);
    return row === undefined ? undefined : webhookOf(row);
  }

  async insert(state: WebhookState, owner: string, leaseMs: number): Promise<WebhookState> {
    // Its position: the newest committed seq, the last row's, or the newest checkpoint's when that dropped every row.
    const [row] = await this.#admin(this.#db.query<{ cursor_seq: number }>(
      `INSERT INTO campus_webhooks (id, url, events, description, secret, created_at, status, cursor_seq, cursor_index, lease_owner, lease_until)
       VALUES ($1, $2, $3, $4, $5, $6, $7, (SELECT greatest(coalesce(max(seq), 0), (SELECT coalesce(max(seq), 0) FROM campus_checkpoints)) FROM campus_log), $8, $9, clock_timestamp() + $10 * interval '1 millisecond')
       RETURNING cursor_seq::float8 AS cursor_seq`,
      [state.id, state.url, JSON.stringify(state.events), state.description, state.secret, state.created_at, state.status, state.cursor.index, owner, leaseMs],
    ), true);
    return { ...state, cursor: { seq: row!.cursor_seq, index: state.cursor.index } };
  }

  /**
   * Changes a webhook as an admin asked. Set `active`, or given a new url while active, its schedule starts afresh here
   * too, so an instance taking it over before the one delivering it has followed and saved does not wait out the old one.
   */
  async change(id: string, changes: WebhookChanges, version?: number): Promise<SharedWebhook | undefined> {
    const [row] = await this.#admin(this.#db.query<Row>(
      `UPDATE campus_webhooks SET url = coalesce($2, url), events = coalesce($3, events), description = coalesce($4, description), status = coalesce($5::text, status),
         attempts = CASE WHEN ${AFRESH} THEN 0 ELSE attempts END, first_failure_ms = CASE WHEN ${AFRESH} THEN NULL ELSE first_failure_ms END,
         status_version = CASE WHEN $5::text IS NULL THEN status_version ELSE version + 1 END, version = version + 1
       WHERE id = $1 AND ($6::bigint IS NULL OR version = $6::bigint) RETURNING ${COLUMNS}`,
      [id, changes.url ?? null, changes.events === undefined ? null : JSON.stringify(changes.events), changes.description ?? null, changes.status ?? null, version ?? null],
    ), true);
    return row === undefined ? undefined : webhookOf(row);
  }

  async delete(id: string, version?: number): Promise<boolean> {
    const deleted = this.#db.query('DELETE FROM campus_webhooks WHERE id = $1 AND ($2::bigint IS NULL OR version = $2::bigint) RETURNING id', [id, version ?? null]);
    return (await this.#admin(deleted, true)).length > 0;
  }

  async heldElsewhere(id: string, owner: string): Promise<boolean> {
    const rows = await this.#admin(
      this.#db.query<{ id: string }>('SELECT id FROM campus_webhooks WHERE id = $1 AND lease_owner IS NOT NULL AND lease_owner <> $2 AND lease_until > clock_timestamp()', [id, owner]),
      false,
    );
    return rows.length > 0;
  }

  async lease(owner: string, leaseMs: number): Promise<SharedWebhook[]> {
    // Row locks make two instances' leases exclusive: the second re-checks the WHERE against the first's commit.
    const rows = await withTimeout(this.#db.query<Row>(
      `UPDATE campus_webhooks SET lease_owner = $1, lease_until = clock_timestamp() + $2 * interval '1 millisecond'
       WHERE lease_owner = $1 OR lease_owner IS NULL OR lease_until < clock_timestamp() RETURNING ${COLUMNS}`,
      [owner, leaseMs],
    ), QUERY_TIMEOUT_MS, 'leasing webhooks');
    return rows.map(webhookOf).sort(byAge);
  }

  async saveProgress(owner: string, webhooks: readonly { state: WebhookState; version: number }[]): Promise<string[]> {
    if (webhooks.length === 0) return [];
    const states = webhooks.map((webhook) => webhook.state);
    const rows = await withTimeout(this.#db.query<{ id: string }>(
      `UPDATE campus_webhooks AS w SET cursor_seq = s.cursor_seq, cursor_index = s.cursor_index, attempts = s.attempts, first_failure_ms = s.first_failure_ms,
         deliveries = s.deliveries, status = CASE WHEN s.failing AND w.status_version <= s.version THEN 'failing' ELSE w.status END
       FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::int[], $6::float8[], $7::text[], $8::bool[], $9::bigint[])
         AS s(id, cursor_seq, cursor_index, attempts, first_failure_ms, deliveries, failing, version)
       WHERE w.id = s.id AND w.lease_owner = $1 RETURNING w.id`,
      [
        owner,
        states.map((state) => state.id),
        states.map((state) => state.cursor.seq),
        states.map((state) => state.cursor.index),
        states.map((state) => state.attempts),
        states.map((state) => state.firstFailureMs),
        states.map((state) => JSON.stringify(state.deliveries)),
        states.map((state) => state.status === 'failing'),
        webhooks.map((webhook) => webhook.version),
      ],
    ), QUERY_TIMEOUT_MS, 'saving the delivery state of webhooks');
    const saved = new Set(rows.map((row) => row.id));
    return states.filter((state) => !saved.has(state.id)).map((state) => state.id);
  }

  async release(owner: string): Promise<void> {
    await withTimeout(this.#db.query('UPDATE campus_webhooks SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1', [owner]), QUERY_TIMEOUT_MS, 'releasing webhooks');
  }

  /** An admin's query (`change`: one that writes): a database that fails or does not answer in time is a 503. */
  async #admin<T>(query: Promise<T>, change: boolean): Promise<T> {
    try {
      return await withTimeout(query, QUERY_TIMEOUT_MS, 'a webhook query');
    } catch (error) {
      throw unavailable(error, change);
    }
  }
}

/**
 * Copies a data folder's webhooks (webhooks.json) into the table, leased to no one, their log's name with them (so
 * message ids go on as before). A cursor past `lastSeq`, the end of the copied log, is brought back to it: the
 * database's next writes take the sequence numbers after it, and none of their messages is passed over.
 */
export async function importWebhooks(tx: Queryable, snapshot: WebhookStateSnapshot, lastSeq: number): Promise<number> {
  if (snapshot.logId !== undefined) await tx.query("INSERT INTO campus_meta (name, value) VALUES ('webhook_log_id', $1)", [snapshot.logId]);
  for (const state of snapshot.webhooks) {
    const cursor = state.cursor.seq > lastSeq ? { seq: lastSeq, index: Number.MAX_SAFE_INTEGER } : state.cursor;
    await tx.query(
      `INSERT INTO campus_webhooks (id, url, events, description, secret, created_at, status, cursor_seq, cursor_index, attempts, first_failure_ms, deliveries)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [state.id, state.url, JSON.stringify(state.events), state.description, state.secret, state.created_at, state.status, cursor.seq, cursor.index, state.attempts, state.firstFailureMs, JSON.stringify(state.deliveries)],
    );
  }
  return snapshot.webhooks.length;
}
