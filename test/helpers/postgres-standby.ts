// A throwaway primary and its synchronous streaming standby (pg_basebackup -R), for failover tests: the primary can be
// killed and the standby promoted, as a university's PostgreSQL fails over.
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, killPostmaster, removeSharedMemory, postgresServerOptions, postgresTempDir, runPostgresAsync, startPostgres, type PostgresServer } from './postgres-server.js';

/** A running primary and standby. */
export interface PostgresPair {
  readonly primary: PostgresServer;
  /** The standby's port on 127.0.0.1. */
  readonly standbyPort: number;
  /** The standby's data folder. */
  readonly standbyDataDir: string;
  /** A new database (made on the primary, replicated) and its URL naming both hosts, primary first (API.md §12). */
  createDatabase(name: string): Promise<{ url: string; primaryUrl: string; standbyUrl: string }>;
  /** Waits until the standby has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** SIGKILL to the primary's processes, as a lost machine. */
  killPrimary(): void;
  /** `pg_ctl promote -w` of the standby: it leaves recovery and accepts writes. */
  promote(): Promise<void>;
  /** `pg_ctl stop -m fast` of the standby (promoted or not), and its start again, as a restart that takes a while. */
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  /** Runs `sql` with psql on the standby. */
  psqlStandby(sql: string, database?: string): Promise<string>;
  /** Stops both and removes their folders. */
  stop(): Promise<void>;
}

/**
 * Starts a primary, takes a base backup of it for a standby (`-R`: the standby follows it), starts the standby, then
 * makes it synchronous (`synchronous_standby_names = '*'`, `synchronous_commit = on`): from then on a commit is
 * acknowledged only once the standby has it. Set only after the standby streams, or the primary's commits would wait.
 */
export async function startPostgresPair(): Promise<PostgresPair> {
  const primary = await startPostgres({ settings: { wal_level: 'replica', max_wal_senders: '5', synchronous_commit: 'on', wal_keep_size: '64MB' } });
  const dir = postgresTempDir('campus-pg-standby-');
  const data = path.join(dir, 'data');
  const port = await freePort();
  const options = postgresServerOptions(port, dir, { settings: { hot_standby: 'on', cluster_name: 'standby1' } });
  let standbyStarted = false;
  try {
    await runPostgresAsync('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '--no-sync', '-c', 'fast'], dir);
    await runPostgresAsync('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-o', options, '-w', '-t', '30', 'start'], dir);
    standbyStarted = true;
    await waitUntil(async () => (await primary.psql("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")).trim() === '1', 15_000, 'the standby streams from the primary');
    await primary.psql("ALTER SYSTEM SET synchronous_standby_names = '*'");
    await primary.psql('SELECT pg_reload_conf()');
    await waitUntil(async () => (await primary.psql("SELECT sync_state FROM pg_stat_replication")).trim() === 'sync', 15_000, 'the standby is synchronous');
  } catch (error) {
    if (standbyStarted) await runPostgresAsync('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'], dir).catch(() => undefined);
    primary.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const psqlStandby = (sql: string, database = 'postgres'): Promise<string> =>
    runPostgresAsync('psql', ['-h', dir, '-p', String(port), '-U', 'postgres', '-d', database, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql], dir);
  let databases = 0;
  return {
    primary,
    standbyPort: port,
    standbyDataDir: data,
    async createDatabase(name) {
      const db = `${name.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${++databases}`;
      await primary.psql(`CREATE DATABASE ${db}`);
      return {
        url: `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${port}/${db}`,
        primaryUrl: `postgres://postgres@127.0.0.1:${primary.port}/${db}`,
        standbyUrl: `postgres://postgres@127.0.0.1:${port}/${db}`,
      };
    },
    async caughtUp(timeoutMs = 15_000) {
      const lsn = (await primary.psql('SELECT pg_current_wal_lsn()')).trim();
      await waitUntil(async () => (await psqlStandby(`SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn`)).trim() === 't', timeoutMs, `the standby replays up to ${lsn}`);
    },
    killPrimary() {
      killPostmaster(primary.dataDir);
    },
    async promote() {
      await runPostgresAsync('pg_ctl', ['-D', data, '-w', '-t', '30', 'promote'], dir);
    },
    async stopStandby() {
      await runPostgresAsync('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop'], dir);
    },
    async startStandby() {
      await runPostgresAsync('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-o', options, '-w', '-t', '30', 'start'], dir);
    },
    psqlStandby,
    async stop() {
      await runPostgresAsync('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'], dir).catch(() => removeSharedMemory(data));
        rmSync(dir, { recursive: true, force: true });
      primary.stop();
    },
  };
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await sleep(100);
  }
}
