// Opening the PostgreSQL store: connect, create or migrate the schema, then read the log into memory.
import { connect, redactUrl } from './client.js';
import type { FoundPrimary } from './primary.js';
import { migrateSchema } from './schema.js';
import { PostgresStore } from './postgres-store.js';
import type { PostgresStoreOptions } from './postgres-store-options.js';

/** Connects, creates or migrates the schema, reads the newest checkpoint and the rows after it into memory, and starts following the log. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  let store: PostgresStore | undefined;
  const onPromoted = options.onPromoted;
  let told = '';
  const tellPromoted = ({ host, logEnd, applied }: FoundPrimary): void => {
    // A log end of -1: found on a new connection to the server, which is refused rather than asked more.
    if (logEnd < 0 || logEnd >= applied) options.logger?.warn('a standby was promoted: this instance starts over on its log', { host, ...(logEnd < 0 ? {} : { log_end: logEnd }), applied });
    else options.logger?.warn('a standby was promoted before it had every write (asynchronous replication): this instance starts over on its log, and the writes after its end are lost; have the front-ends that follow the change feed copy again from since=0', { host, log_end: logEnd, applied });
  };
  const db = await connect(options.url, {
    retryMs: options.pollMs,
    onSwitch: (from, to) => options.logger?.warn('the primary moved: writing to another host of the URL', { from, to }),
    appliedSeq: () => store?.lastSeq ?? 0,
    onStalePrimary: ({ host, logEnd, applied }) =>
      options.logger?.warn(
        'a primary among the hosts of the URL holds an older log than this instance has read, or is a former primary started again as one: not writing to it; writes get 503 until the server written to answers again, or until this instance is restarted on a URL naming the right one',
        { host, log_end: logEnd, applied },
      ),
    onPromoted: onPromoted === undefined ? undefined : (promoted) => {
      // Told at every probe until the app has started over: said once per host and log end.
      const seen = `${promoted.host}:${promoted.logEnd}`;
      if (seen !== told) tellPromoted(promoted);
      told = seen;
      onPromoted();
    },
    onSecondPrimary: (writing, other) =>
      options.logger?.warn(
        'another host of the URL is a primary too: two servers take writes (a split brain), and what is written to the other is never seen here; stop it and rebuild it as a standby of the one written to (pg_rewind, or pg_basebackup -R), after saving any writes it took that are not on this one',
        { writing_to: writing, other_primary: other },
      ),
  });
  try {
    const migrated = await migrateSchema(db);
    if (migrated.from !== migrated.to) options.logger?.info('database schema created or migrated', { from: migrated.from, to: migrated.to, database: redactUrl(options.url) });
    store = new PostgresStore(db, options);
    await store.start();
    options.logger?.info('event log read from the database', { live_events: store.size, last_seq: store.lastSeq, checkpoint_seq: store.checkpointSeen.seq });
    return store;
  } catch (error) {
    await db.end().catch(() => undefined);
    throw error;
  }
}
