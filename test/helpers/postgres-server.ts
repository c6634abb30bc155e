// A throwaway PostgreSQL server for tests: initdb and pg_ctl into a temporary folder, a free port, its socket in that folder.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Starts a fresh server; throws with the reason when it cannot. `fsync: true` (benchmarks) flushes commits as production does. */
export async function startPostgres(options: { fsync?: boolean } = {}): Promise<PostgresServer> {
  const missing = postgresMissing();
  if (missing !== undefined) throw new Error(`cannot start PostgreSQL: ${missing}`);
  const bin = postgresBinDir()!;
  const dir = mkdtempSync(path.join(tmpdir(), 'campus-pg-'));
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]): void => {
    const full = path.join(bin, command);
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', full, ...args]] : [full, args];
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  };
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  // fsync=off for tests: a test crash stops the server's processes, never the machine, so the page cache survives (and the shared machine is spared the flushes).
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.fsync === true ? 'on' : 'off'} -c max_connections=200 -c shared_buffers=32MB`;
  const start = (): void => run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-o', serverOptions, '-w', '-t', '30', 'start']);
  start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databases = 0;
  return {
    url,
    port,
    dir,
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
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
