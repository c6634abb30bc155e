// A throwaway PostgreSQL server for tests: initdb and pg_ctl into a temporary folder, a free port, its socket in that folder.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** A running throwaway server. */
export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** A URL for a new, empty database on this server. */
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl stop -m immediate`: as a crash would stop it. */
  crash(): void;
  /** Starts it again on the same port and folder. */
  start(): void;
  /** Stops it and removes its folder. */
  stop(): void;
  /**
   * The same steps without blocking this process's event loop (a test's clients and proxies go on meanwhile):
   * `pg_ctl restart -m immediate` (a crash and a start), `pg_ctl stop -m immediate`, `pg_ctl start`.
   */
  restartAsync(): Promise<void>;
  crashAsync(): Promise<void>;
  startAsync(): Promise<void>;
  /** SIGKILL to the postmaster and every one of its children (as a lost machine's processes end), without waiting. */
  kill9(): void;
  /** Runs `sql` with psql on database `database` (default postgres); resolves with its unaligned, tuples-only output. */
  psql(sql: string, database?: string): Promise<string>;
  /** The data folder (`dir`/data). */
  readonly dataDir: string;
}

/** Options of startPostgres. */
export interface PostgresOptions {
  /** true (benchmarks): commits are flushed as in production. Default false. */
  fsync?: boolean;
  /** More `-c name=value` server settings (e.g. for a primary of a standby). */
  settings?: Readonly<Record<string, string>>;
}

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/14/bin', '/usr/lib/postgresql/13/bin', '/usr/local/bin', '/usr/bin'];

/** Where initdb and pg_ctl are, or undefined. */
export function postgresBinDir(): string | undefined {
  return BIN_DIRS.find((dir) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl')));
}

/** Why no server can start here, or undefined when one can. Under CI=true a test fails instead of skipping. */
export function postgresMissing(): string | undefined {
  if (postgresBinDir() === undefined) return 'no initdb/pg_ctl found (install Debian\'s postgresql package)';
  if (process.getuid?.() === 0 && spawnSync('id', ['postgres']).status !== 0) return 'running as root and no "postgres" user to run the server as';
  return undefined;
}

/** `{ skip }` for node:test: a reason to skip, or false (and false under CI=true, so the test fails loudly). */
export function skipWithoutPostgres(): string | false {
  const missing = postgresMissing();
  if (missing === undefined || process.env['CI'] === 'true') return false;
  return `PostgreSQL tests skipped: ${missing}`;
}

/** A port free on 127.0.0.1 now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** How a PostgreSQL program runs here: as the `postgres` user when this process is root (the server refuses root). */
export function postgresCommand(command: string, args: readonly string[]): [string, string[]] {
  const full = path.join(postgresBinDir()!, command);
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', full, ...args]] : [full, [...args]];
}

/** Runs a PostgreSQL program in `cwd` without blocking the event loop; rejects with its stderr when it fails. */
export function runPostgresAsync(command: string, args: readonly string[], cwd: string): Promise<string> {
  const [file, argv] = postgresCommand(command, args);
  return new Promise((resolve, reject) => {
    execFile(file, argv, { cwd, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${command} ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
    });
  });
}

/** A new temporary folder the server's user owns. */
export function postgresTempDir(prefix = 'campus-pg-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  if (process.getuid?.() === 0) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  return dir;
}

/**
 * The server's command-line options: its port, its socket in `dir`, 127.0.0.1 only, and `settings`. fsync=off for
 * tests: a test crash stops the server's processes, never the machine, so the page cache survives (and the shared
 * machine is spared the flushes).
 */
export function postgresServerOptions(port: number, dir: string, options: PostgresOptions = {}): string {
  const settings = { fsync: options.fsync === true ? 'on' : 'off', max_connections: '200', shared_buffers: '32MB', ...options.settings };
  return `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 ${Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`).join(' ')}`;
}

/** SIGKILL to the postmaster of `dataDir` and every process it started (read from /proc), as a lost machine's end. */
export function killPostmaster(dataDir: string): void {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  const children = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((name) => {
    try {
      // The field after the parenthesised command name: state, then the parent's pid.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
    } catch {
      return false;
    }
  }).map(Number);
  for (const target of [pid, ...children]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

/** Removes the System V shared memory segment a killed postmaster of `dataDir` left (line 7 of postmaster.pid: key and id). */
export function removeSharedMemory(dataDir: string): void {
  try {
    const id = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[6]?.trim().split(/\s+/)[1];
    if (id !== undefined && /^\d+$/.test(id)) spawnSync('ipcrm', ['-m', id], { stdio: 'ignore' });
  } catch {
    // no pid file: nothing was left
  }
}

/** Starts a fresh server; throws with the reason when it cannot. `fsync: true` (benchmarks) flushes commits as production does. */
export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const missing = postgresMissing();
  if (missing !== undefined) throw new Error(`cannot start PostgreSQL: ${missing}`);
  const dir = postgresTempDir();
  const run = (command: string, args: string[]): void => {
    const [file, argv] = postgresCommand(command, args);
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  };
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const serverOptions = postgresServerOptions(port, dir, options);
  const startArgs = ['-D', data, '-l', path.join(dir, 'log'), '-o', serverOptions, '-w', '-t', '30', 'start'];
  const start = (): void => run('pg_ctl', startArgs);
  start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databases = 0;
  return {
    url,
    port,
    dir,
    dataDir: data,
    async restartAsync() {
      await runPostgresAsync('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-o', serverOptions, '-m', 'immediate', '-w', '-t', '30', 'restart'], dir);
    },
    async crashAsync() {
      await runPostgresAsync('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'], dir);
    },
    async startAsync() {
      await runPostgresAsync('pg_ctl', startArgs, dir);
    },
    kill9() {
      killPostmaster(data);
    },
    psql(sql, database = 'postgres') {
      return runPostgresAsync('psql', ['-h', dir, '-p', String(port), '-U', 'postgres', '-d', database, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql], dir);
    },
    async createDatabase(name: string): Promise<string> {
      const db = `${name.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${++databases}`;
      run('createdb', ['-h', dir, '-p', String(port), '-U', 'postgres', db]);
      return `postgres://postgres@127.0.0.1:${port}/${db}`;
    },
    crash(): void {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    start,
    stop(): void {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped, or killed (kill9): its shared memory segment outlives it
        removeSharedMemory(data);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
