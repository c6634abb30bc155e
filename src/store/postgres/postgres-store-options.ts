// The options of openPostgresStore (open-postgres-store.ts), and where the store reports.

/** One log call: a message and its fields. */
type LogCall = (message: string, fields?: Record<string, string | number | boolean | null | undefined>) => void;

/** Where the store reports what it did (the database lost and back, the schema migrated); the app's Logger fits. */
export type PostgresStoreLogger = Readonly<Record<'info' | 'warn', LogCall>>;

/** Options of openPostgresStore. */
export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  logger?: PostgresStoreLogger;
  /** The clock, ms since the epoch. Default Date.now. */
  now?: () => number;
  /** How often an instance reads what others wrote when no notification came, and retries an unreachable database, in ms. Default 500. */
  pollMs?: number;
  /**
   * A checkpoint is written once the newest one and the rows after it are over this many bytes and more than half
   * superseded (§7's rule for a data folder's log, see checkpoint-write.ts). Default 64 MiB, as the file store's.
   */
  compactMinBytes?: number;
  /** Test only: runs before each step of a checkpoint this instance writes (see CHECKPOINT_STEPS). */
  onCheckpointStep?: (step: number) => void | Promise<void>;
  /** No checkpoint until releaseStart(): the service opens its webhooks first, which hold back what they need. */
  holdAtStart?: boolean;
  /**
   * Told, each time it is found, that a standby was promoted since the server written to: the app starts over on its
   * log (see following-app.ts). Without it, the store moves to it when its log holds as many writes as the views, and
   * refuses writes until a restart when not.
   */
  onPromoted?: () => void;
}

/** The default of `compactMinBytes`: the file store's (a store knows no other engine, so the number is written twice). */
export const DEFAULT_CHECKPOINT_MIN_BYTES = 64 * 1024 * 1024;
