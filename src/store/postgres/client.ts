// Loads the optional PostgreSQL client (the `pg` package) only when a postgres:// store is asked for, behind a small interface.
import type pgType from 'pg';
import { isStatementError, PrimaryPool, type SessionClient, type FoundPrimary } from './primary.js';
import { errorCode } from '../../lib/error-code.js';

export { isStatementError };
export { redactUrl } from './hosts.js';

/** The package to install for `--store postgres://`: an optional peer dependency, never a runtime one. */
export const CLIENT_PACKAGE = 'pg';

/** The client package is not installed: the program says which package to add, and exits 2. */
export class MissingClientError extends Error {
  override readonly name = 'MissingClientError';
}

/** Queries on one connection (inside a transaction) or on the pool. Rows come back as plain objects. */
export interface Queryable {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

/** Queries inside a transaction, and the way to end it in the same round trip as its last statements. */
export interface Transaction extends Queryable {
  /** The rows of the last statement of `first` (see Database.transaction); none without it. */
  readonly firstRows: readonly Record<string, unknown>[];
  /** The rows of each statement of `first`, in order. */
  readonly firstResults: readonly (readonly Record<string, unknown>[])[];
  /** Which server this transaction runs on (its postmaster's start time): a restarted or promoted server has another. */
  readonly server: string;
  /**
   * Sends `statements` (without parameters: values go in with `literal`) and COMMIT in one round trip; resolves once
   * COMMIT answered. Rejects with the server's error when a statement failed (then none took effect), and with
   * CommitUnknown when the answer was lost after COMMIT was sent (the connection failed, or `timeoutMs` passed).
   */
  commitWith(statements: string, timeoutMs?: number): Promise<void>;
  /** `value` as an SQL string literal, escaped by the client. */
  literal(value: string): string;
}

/** What the store needs of a database: queries, transactions on one connection, notifications. */
export interface Database extends Queryable {
  /**
   * BEGIN, `work`, COMMIT on one pooled connection (ROLLBACK when `work` throws); resolves once COMMIT answered.
   * `first`, statements without parameters, go in the same round trip as BEGIN. COMMIT is not sent again when
   * `work` ended the transaction with `commitWith`. `onBegin` runs once a connection came, just before BEGIN goes
   * out: from then on the first round trip's own deadline (the lock time-out and a margin) bounds the wait.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>, first?: string, onBegin?: () => void): Promise<T>;
  /**
   * LISTENs on `channel` on a connection of its own, reconnecting after a failure (and to a new primary); `onConnect`
   * runs after each (re)connect, since notifications sent meanwhile were missed. Returns the way to stop.
   */
  listen(channel: string, onNotify: (payload: string) => void, onConnect: () => void): Promise<() => Promise<void>>;
  /** `value` as an SQL string literal, escaped by the client (for statements sent without parameters). */
  literal(value: string): string;
  /** A primary not moved to because its log is behind this instance's (see PrimaryPool), while the one written to is away. */
  stalePrimary?(): FoundPrimary | undefined;
  /**
   * `query` on the standby found promoted since the server written to, which the pool never hands out (the instance
   * starts over there), else on the pool: whether a COMMIT lost with the old primary committed, only it can tell now.
   */
  queryNewest<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  end(): Promise<void>;
}

/** Options of connect. */
export interface ConnectOptions {
  /** Connections in the pool. Default 4. */
  max?: number;
  /** Milliseconds to wait for a connection before the request gets 503. Default 3000. */
  connectTimeoutMs?: number;
  /** Milliseconds between reconnect attempts of the LISTEN connection. Default 500. */
  retryMs?: number;
  /** Told when the instance moves to another host of the URL (a standby promoted). */
  onSwitch?: (from: string, to: string) => void;
  /** The newest seq the instance has applied: a primary whose log ends before it is never moved to. */
  appliedSeq?: () => number;
  /** Told when a primary is not moved to (see PrimaryPoolOptions.onStalePrimary). */
  onStalePrimary?: (stale: FoundPrimary) => void;
  /** Told when a primary was promoted since the server written to (see PrimaryPoolOptions.onPromoted). */
  onPromoted?: (promoted: FoundPrimary) => void;
  /** Told when another host of the URL takes writes too (see PrimaryPoolOptions.onSecondPrimary); a server sets it, the CLI does not. */
  onSecondPrimary?: (writing: string, other: string) => void;
}

/**
 * What every session asks of the server, and why. The time-outs above TCP are what free the others when one instance
 * is cut off (a partition, a paused VM, a frozen process) in the middle of a transaction, since the cut side's kernel
 * or a middlebox may go on acknowledging bytes and PostgreSQL then keeps the session, and its locks, for hours:
 *
 * - `idle_in_transaction_session_timeout` 2 s in a transaction that holds a lock others wait for (a write batch: the
 *   log's; a rate lease: its key's; see HOLDS_LOCK), 30 s in any other: a session waiting inside a transaction for
 *   its client's next command is ended and its transaction rolled back, releasing its locks. A write batch never
 *   waits between its statements longer than a turn of the event loop (its decisions are made in memory), so 2 s is
 *   far from a healthy instance and leaves 3 s of the 5 s promise for the others' next attempt. Reading transactions
 *   (a checkpoint, a backup, a start-up) work on what they read between statements and block no one: 30 s only ends
 *   one forgotten, which would hold back VACUUM.
 * - `lock_timeout` 3 s: a wait for the log's (or a rate key's) lock ends with an error instead of queueing forever
 *   behind a holder that is stuck in a way the idle time-out does not see (blocked sending, a commit waiting for a
 *   synchronous standby). Longer than the idle time-out, so a waiter outlives a frozen holder and then succeeds.
 *   The schema migration waits as long as it takes (SET LOCAL in schema.ts).
 * - `tcp_user_timeout` 4 s (server side): a backend blocked sending to a client that acknowledges nothing (a real
 *   partition, or a stopped process whose receive window stays shut) drops the connection, rolling back.
 * - `tcp_keepalives_idle/interval/count` 5 s/1 s/3 (server side) and TCP keepalive after 5 s on our sockets: a dead
 *   peer of an idle connection is noticed in about 8 s on either side, so no slot or LISTEN stays bound to it.
 * - `statement_timeout` is left unset on purpose: cancelling a COMMIT that waits for a synchronous standby makes
 *   PostgreSQL report it committed though it was never replicated, which would break "nothing acknowledged is lost
 *   by a failover". Our own per-round-trip deadlines (see runTransaction, and the callers') bound how long we wait.
 */
export const SESSION_SETTINGS = {
  idle_in_transaction_session_timeout: 30_000,
  lock_timeout: 3_000,
  /**
   * Sent in the startup packet's `options` (the client has no field for them). standard_conforming_strings: the
   * queries' regular expressions are written with plain backslashes, which a database set to the old escapes misreads.
   */
  options: '-c tcp_user_timeout=4000 -c tcp_keepalives_idle=5 -c tcp_keepalives_interval=1 -c tcp_keepalives_count=3 -c standard_conforming_strings=on',
  keepAlive: true,
  keepAliveInitialDelayMillis: 5_000,
  application_name: 'campus-events',
} as const;

/** The first statement of a transaction that holds a lock others wait for: a client that stops talking loses it in 2 s. */
export const HOLDS_LOCK = "SET LOCAL idle_in_transaction_session_timeout = '2s'";

/** How long the first round trip of a transaction (BEGIN, a lock, a read) may take: the lock time-out and a margin. */
const FIRST_ROUND_TRIP_MS = SESSION_SETTINGS.lock_timeout + 1_000;
/** How long a ROLLBACK may take before the connection counts as lost. */
const ROUND_TRIP_MS = 2_000;
/** How long a write batch's COMMIT may take by default before its outcome counts as unknown. */
const COMMIT_MS = 5_000;
/**
 * How long a query outside a transaction may take before its connection is closed (callers give up sooner with their
 * own deadlines; this frees the connection, which a frozen link would otherwise hold until TCP gives up).
 */
const QUERY_MS = 30_000;

/**
 * Opens a pool to the first primary among `url`'s hosts with the `pg` package, imported now (never at start-up of a
 * file store). Throws when no host is a reachable primary.
 */
export async function connect(url: string, options: ConnectOptions = {}): Promise<Database> {
  const pg = await loadClient();
  const primary = new PrimaryPool(pg, url, { max: options.max ?? 4, connectTimeoutMs: options.connectTimeoutMs ?? 3000, session: SESSION_SETTINGS, onSwitch: options.onSwitch, appliedSeq: options.appliedSeq, onStalePrimary: options.onStalePrimary, onPromoted: options.onPromoted, onSecondPrimary: options.onSecondPrimary });
  await primary.start();
  const rowsOf = <Row>(result: pgType.QueryResult): Row[] => result.rows as Row[];
  const retryMs = options.retryMs ?? 500;
  const query = async <Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> => {
    const client = (await primary.watch(primary.connect())) as SessionClient;
    let broken: Error | undefined;
    try {
      return rowsOf<Row>(await withTimeout(client.query(text, params as unknown[]), QUERY_MS, 'a query'));
    } catch (error) {
      // As in a transaction: a connection whose answer is lost is closed, never given to the next query still waiting.
      if (!isStatementError(error)) {
        broken = error instanceof Error ? error : new Error(String(error));
        client.connection?.stream.destroy();
        primary.suspect(error);
      }
      throw error;
    } finally {
      client.release(broken);
    }
  };
  return {
    query,
    async transaction<T>(work: (tx: Transaction) => Promise<T>, first?: string, onBegin?: () => void): Promise<T> {
      const client = (await primary.watch(primary.connect())) as SessionClient;
      onBegin?.();
      return runTransaction(client, primary.serverOf(client), work, first, (error) => primary.suspect(error));
    },
    async listen(channel, onNotify, onConnect) {
      let stopped = false;
      let client: pgType.Client | undefined;
      let timer: NodeJS.Timeout | undefined;
      const retry = (): void => {
        client = undefined;
        if (!stopped) timer = setTimeout(() => void open(), retryMs);
      };
      // Notifications come from the primary's commits: on a switch, the connection to the old one is closed and reopened.
      const unwatch = primary.onSwitch(() => void client?.end().catch(() => undefined));
      const open = async (): Promise<void> => {
        const next = primary.newClient();
        next.on('error', () => undefined);
        next.on('end', () => {
          if (client === next) retry();
        });
        next.on('notification', (message) => onNotify(message.payload ?? ''));
        try {
          await next.connect();
          await next.query(`LISTEN ${quoteIdentifier(channel)}`);
        } catch (error) {
          primary.suspect(error);
          await next.end().catch(() => undefined);
          retry();
          return;
        }
        if (stopped) return void (await next.end().catch(() => undefined));
        client = next;
        onConnect();
      };
      await open();
      return async () => {
        stopped = true;
        unwatch();
        clearTimeout(timer);
        await client?.end().catch(() => undefined);
      };
    },
    literal: (value) => pg.escapeLiteral(value),
    stalePrimary: () => primary.stalePrimary,
    queryNewest<Row>(text: string, params: readonly unknown[] = []) {
      return primary.onPromotedServer(async (client) => rowsOf<Row>(await client.query(text, params as unknown[]))) ?? query<Row>(text, params);
    },
    async end() {
      await primary.end();
    },
  };
}

/** One transaction on `client` (see Database.transaction): every round trip has a deadline, after which the connection is dropped. */
async function runTransaction<T>(client: SessionClient, server: string, work: (tx: Transaction) => Promise<T>, first: string | undefined, suspect: (error: unknown) => void): Promise<T> {
  let broken: Error | undefined;
  const onError = (error: Error): void => void (broken = error);
  client.on('error', onError);
  const roundTrip = async (text: string, ms: number, params?: readonly unknown[]): Promise<pgType.QueryResult | pgType.QueryResult[]> => {
    try {
      const sent = params === undefined ? client.query(text) : client.query(text, params as unknown[]);
      return await (ms === Infinity ? sent : withTimeout(sent as Promise<pgType.QueryResult | pgType.QueryResult[]>, ms, 'a statement of a transaction'));
    } catch (error) {
      // A statement's own error leaves the connection usable (ROLLBACK follows); anything else leaves it unknown.
      if (!isStatementError(error)) {
        broken ??= error instanceof Error ? error : new Error(String(error));
        // The socket is destroyed at once (as pg-pool does on a connect time-out): a frozen peer would keep it half open.
        client.connection?.stream.destroy();
        suspect(error);
      }
      throw error;
    }
  };
  try {
    // Several statements in one simple query answer with one result each.
    const begun = await roundTrip(first === undefined ? 'BEGIN' : `BEGIN; ${first}`, FIRST_ROUND_TRIP_MS);
    const results = (Array.isArray(begun) ? begun.slice(1) : []).map((result) => result.rows as Record<string, unknown>[]);
    let committed = false;
    const result = await work({
      firstRows: results[results.length - 1] ?? [],
      firstResults: results,
      server,
      // No deadline of its own: a checkpoint's statements may take minutes; callers that hold a lock set theirs.
      query: async <Row>(text: string, params: readonly unknown[] = []) => ((await roundTrip(text, Infinity, params)) as pgType.QueryResult).rows as Row[],
      async commitWith(statements, timeoutMs = COMMIT_MS) {
        committed = true;
        await roundTrip(`${statements}; COMMIT`, timeoutMs).catch((error: unknown) => {
          throw isStatementError(error) ? error : new CommitUnknown(error);
        });
      },
      literal: (value) => client.escapeLiteral(value),
    });
    if (!committed) {
      committed = true;
      await roundTrip('COMMIT', QUERY_MS).catch((error: unknown) => {
        throw isStatementError(error) ? error : new CommitUnknown(error);
      });
    }
    return result;
  } catch (error) {
    // A connection in an unknown state is closed, never asked for a ROLLBACK that could wait behind a lost answer.
    if (broken === undefined) await roundTrip('ROLLBACK', ROUND_TRIP_MS).catch(() => undefined);
    throw error;
  } finally {
    // A connection that failed is closed rather than given back, so no one inherits its state; a pooled one
    // keeps no listener of this transaction (they added up, one per write, on every connection of the pool).
    client.off('error', onError);
    client.release(broken);
  }
}

/**
 * COMMIT was sent and its answer never came (the connection failed, or a deadline passed): the transaction may have
 * committed or not. Only the database, asked again, can tell (see commit-outcome.ts).
 */
export class CommitUnknown extends Error {
  override readonly name = 'CommitUnknown';
  readonly code: string | undefined;

  constructor(cause: unknown) {
    super(`the answer to COMMIT was lost (${describeDatabaseError(cause)})`, { cause });
    this.code = errorCode(cause);
  }
}

/**
 * True when a failed query may still have taken effect: it reached the server (or may have) and no answer says it
 * failed. False for a statement's own error and for a connection that was never made (refused, unknown host, no
 * free connection in time), so a caller may then say that nothing was saved.
 */
export function mayHaveRun(error: unknown): boolean {
  if (isStatementError(error)) return false;
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', '57P03', '08001', '08004', '28P01', '28000', '3D000'].includes(code)) return false;
  // pg-pool's own words for "no connection in time": the query was never sent.
  return !(typeof message === 'string' && /timeout exceeded when trying to connect|Connection terminated due to connection timeout/.test(message));
}

/**
 * True when a connection was refused without waiting on anything: nothing listens on the host's port, or the server
 * answered that it is starting, shutting down, or a standby (the pool's check of a new connection).
 */
export function refusedConnection(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ECONNREFUSED' || code === '57P03' || code === '25006';
}

async function loadClient(): Promise<typeof pgType> {
  try {
    // A variable specifier: nothing resolves `pg` at build time or at start-up of a file store.
    const specifier: string = CLIENT_PACKAGE;
    const loaded = (await import(specifier)) as { default: typeof pgType };
    return loaded.default;
  } catch {
    throw new MissingClientError(`--store postgres:// needs the PostgreSQL client: run \`npm install ${CLIENT_PACKAGE}\` beside campus-events`);
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** True when `store` names a PostgreSQL database (`postgres://…` or `postgresql://…`). */
export function isPostgresUrl(store: string): boolean {
  return /^postgres(ql)?:\/\//.test(store);
}

/** A query that did not answer in time; what it would have returned is dropped. */
export class QueryTimeout extends Error {
  override readonly name = 'QueryTimeout';
  readonly code = 'QUERY_TIMEOUT';
}

/** `promise`, or a QueryTimeout after `ms`: a read never waits forever on a database that went away. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueryTimeout(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}


/** A short description of a database error without secrets, e.g. `ECONNREFUSED` or `57P01: terminating connection`. */
export function describeDatabaseError(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'an unexpected error';
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message.split('\n')[0]!.slice(0, 120) : '';
  return typeof code === 'string' ? `${code}${text === '' || text === code ? '' : `: ${text}`}` : text || 'an unexpected error';
}
