// Loads the optional PostgreSQL client (the `postgres` package) only when a postgres:// store is asked for.
import type postgresType from 'postgres';

/** The client's connection pool and query function (the `postgres` package's Sql). */
export type Sql = postgresType.Sql;
/** A connection reserved for one transaction spanning several awaits. */
export type ReservedSql = postgresType.ReservedSql;

/** The package to install for `--store postgres://`: an optional peer dependency, never a runtime one. */
export const CLIENT_PACKAGE = 'postgres';

/** The client package is not installed: the program says which package to add, and exits 2. */
export class MissingClientError extends Error {
  override readonly name = 'MissingClientError';
}

/** Options every connection of ours uses. */
export interface ConnectOptions {
  /** Connections in the pool. Default 4. */
  max?: number;
  /** Seconds to wait for a connection before the request gets 503. Default 3. */
  connectTimeoutSeconds?: number;
}

/** Opens a pool to `url` with the `postgres` package, imported now (never at start-up of a file store). */
export async function connect(url: string, options: ConnectOptions = {}): Promise<Sql> {
  let factory: typeof postgresType;
  try {
    // A variable specifier keeps bundlers and tsc from resolving it at build time of a file-store-only install.
    const specifier: string = CLIENT_PACKAGE;
    const loaded = (await import(specifier)) as { default: typeof postgresType };
    factory = loaded.default;
  } catch {
    throw new MissingClientError(`--store postgres:// needs the PostgreSQL client: run \`npm install ${CLIENT_PACKAGE}\` beside campus-events`);
  }
  return factory(url, {
    max: options.max ?? 4,
    connect_timeout: options.connectTimeoutSeconds ?? 3,
    onnotice: () => undefined,
    // seq and counts are bigint in SQL; ours stay far below 2^53, so they come back as numbers.
    types: { bigint: { to: 20, from: [20], serialize: (value: number) => String(value), parse: (value: string) => Number(value) } },
    idle_timeout: 0,
    max_lifetime: null,
  });
}

/** True when `store` names a PostgreSQL database (`postgres://…` or `postgresql://…`). */
export function isPostgresUrl(store: string): boolean {
  return /^postgres(ql)?:\/\//.test(store);
}

/** The URL with its password replaced by `***`, for logs and messages. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}
