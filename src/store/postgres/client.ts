// Loads the optional PostgreSQL client (the `pg` package) only when a postgres:// store is asked for, behind a small interface.
import type pgType from 'pg';

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
  /**
   * Sends `statements` (without parameters: values go in with `literal`) and COMMIT in one round trip; resolves once
   * COMMIT answered, rejects when any of them failed (then none took effect, unless COMMIT itself was lost).
   */
  commitWith(statements: string): Promise<void>;
  /** `value` as an SQL string literal, escaped by the client. */
  literal(value: string): string;
}

/** What the store needs of a database: queries, transactions on one connection, notifications. */
export interface Database extends Queryable {
  /**
   * BEGIN, `work`, COMMIT on one pooled connection (ROLLBACK when `work` throws); resolves once COMMIT answered.
   * `first`, statements without parameters, go in the same round trip as BEGIN. COMMIT is not sent again when
   * `work` ended the transaction with `commitWith`.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>, first?: string): Promise<T>;
  /**
   * LISTENs on `channel` on a connection of its own, reconnecting after a failure; `onConnect` runs after each
   * (re)connect, since notifications sent meanwhile were missed. Returns the way to stop.
   */
  listen(channel: string, onNotify: (payload: string) => void, onConnect: () => void): Promise<() => Promise<void>>;
  /** `value` as an SQL string literal, escaped by the client (for statements sent without parameters). */
  literal(value: string): string;
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
}

/** Opens a pool to `url` with the `pg` package, imported now (never at start-up of a file store). */
export async function connect(url: string, options: ConnectOptions = {}): Promise<Database> {
  const pg = await loadClient();
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 4, connectionTimeoutMillis: options.connectTimeoutMs ?? 3000 });
  // An idle connection the server closed (a restart): the pool drops it; the next query reconnects.
  pool.on('error', () => undefined);
  const rowsOf = <Row>(result: pgType.QueryResult): Row[] => result.rows as Row[];
  const retryMs = options.retryMs ?? 500;
  return {
    async query<Row>(text: string, params: readonly unknown[] = []) {
      return rowsOf<Row>(await pool.query(text, params as unknown[]));
    },
    async transaction<T>(work: (tx: Transaction) => Promise<T>, first?: string): Promise<T> {
      const client = await pool.connect();
      let broken: Error | undefined;
      const onError = (error: Error): void => void (broken = error);
      client.on('error', onError);
      try {
        // Several statements in one simple query answer with one result each.
        const begun = (await client.query(first === undefined ? 'BEGIN' : `BEGIN; ${first}`)) as pgType.QueryResult | pgType.QueryResult[];
        let committed = false;
        const result = await work({
          firstRows: rowsOf(Array.isArray(begun) ? begun[begun.length - 1]! : begun),
          query: async <Row>(text: string, params: readonly unknown[] = []) => rowsOf<Row>(await client.query(text, params as unknown[])),
          async commitWith(statements) {
            committed = true;
            await client.query(`${statements}; COMMIT`);
          },
          literal: (value) => client.escapeLiteral(value),
        });
        if (!committed) await client.query('COMMIT');
        return result;
      } catch (error) {
        broken ??= error instanceof Error ? error : new Error(String(error));
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        // A connection that failed is closed rather than given back, so no one inherits its state; a pooled one
        // keeps no listener of this transaction (they added up, one per write, on every connection of the pool).
        client.off('error', onError);
        client.release(broken);
      }
    },
    async listen(channel, onNotify, onConnect) {
      let stopped = false;
      let client: pgType.Client | undefined;
      let timer: NodeJS.Timeout | undefined;
      const retry = (): void => {
        client = undefined;
        if (!stopped) timer = setTimeout(() => void open(), retryMs);
      };
      const open = async (): Promise<void> => {
        const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: options.connectTimeoutMs ?? 3000 });
        next.on('error', () => undefined);
        next.on('end', () => {
          if (client === next) retry();
        });
        next.on('notification', (message) => onNotify(message.payload ?? ''));
        try {
          await next.connect();
          await next.query(`LISTEN ${quoteIdentifier(channel)}`);
        } catch {
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
        clearTimeout(timer);
        await client?.end().catch(() => undefined);
      };
    },
    literal: (value) => pg.escapeLiteral(value),
    async end() {
      await pool.end();
    },
  };
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

/** The URL with its password replaced by `***`, for logs and messages. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
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
