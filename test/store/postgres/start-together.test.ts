// Starting on PostgreSQL (API.md §12): instances starting together on an empty database create the schema and the
// first admin key once; a start with the database unreachable is exit 1 with the reason; a stop signal while a start
// waits (another instance holding the schema's lock) ends it within the stop's bound.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from '../../../src/store/postgres/client.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { MIGRATE_LOCK, SCHEMA_VERSION } from '../../../src/store/postgres/schema.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { runCli, runServer, SERVER, spawnServer, waitFor } from '../../helpers/spawn.js';

const pg = usePostgres();

describe('starting instances on PostgreSQL', { skip, timeout: 60_000 }, () => {
  it('three instances started at once on an empty database: all serve, one schema, one first admin key that works on all', async () => {
    const url = await pg.database('together');
    const args = ['--port', '0', '--store', url, '--console', 'off', '--log-level', 'warn'];
    const servers = await Promise.all([0, 1, 2].map(() => spawnServer(args)));
    try {
      const printed = servers.map((server) => /"key":"(cek_[A-Za-z0-9_-]+)"/.exec(server.stderr())?.[1]).filter((key) => key !== undefined);
      assert.equal(printed.length, 1, 'exactly one instance made and printed the first admin key');
      for (const server of servers) {
        const me = await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${printed[0]}` } });
        assert.equal(me.status, 200);
        assert.equal(((await me.json()) as { role: string }).role, 'admin');
      }
      const keys = JSON.parse(runCli(['keys', 'list', '--json', '--store', url]).stdout) as { role: string }[];
      assert.deepEqual(keys.map((key) => key.role), ['admin']);
      const db = await connect(url);
      try {
        assert.deepEqual(await db.query("SELECT name, value FROM campus_meta WHERE name = 'schema_version'"), [{ name: 'schema_version', value: String(SCHEMA_VERSION) }]);
      } finally {
        await db.end();
      }
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });

  it('a start with the database unreachable is exit 1, the reason on stderr', () => {
    // The throwaway server's port, on a database name nobody made: refused by PostgreSQL itself.
    const missing = runServer(['--port', '0', '--store', pg.server().url.replace(/\/postgres$/, '/no_such_database'), '--log-level', 'warn']);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /cannot start: .*no_such_database/);
    const closed = runServer(['--port', '0', '--store', 'postgres://campus@127.0.0.1:1/campus', '--log-level', 'warn']);
    assert.equal(closed.status, 1);
    assert.match(closed.stderr, /cannot start: .*ECONNREFUSED/);
  });

  it('a stop signal while the start waits for the schema\'s lock: a second signal ends it at once, one alone within 16 s; exit 1, saying why', { timeout: 60_000 }, async () => {
    const url = await pg.database('held_start');
    const holder = await connect(url);
    const started: ChildProcess[] = [];
    const start = (): { stderr: () => string; exited: Promise<number | string | null>; kill: (signal: NodeJS.Signals) => void } => {
      const child = spawn(process.execPath, [SERVER, '--port', '0', '--store', url, '--console', 'off'], { stdio: ['ignore', 'ignore', 'pipe'] });
      started.push(child);
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      return { stderr: () => stderr, exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal))), kill: (signal) => child.kill(signal) };
    };
    try {
      // Another instance migrating the schema (or one stuck doing so) holds its lock: a start waits for it, with no time-out.
      await holder.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK]);
        const [twice, once] = [start(), start()];
        const bothWait = async (): Promise<boolean> => {
          const [row] = await holder.query<{ waiting: number }>("SELECT count(*)::float8 AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
          return row?.waiting === 2;
        };
        assert.ok(await waitFor(bothWait, 20_000), 'both starts wait for the lock');
        for (const server of [twice, once]) server.kill('SIGTERM');
        assert.ok(await waitFor(async () => twice.stderr().includes('"when":"once started"'), 5_000), twice.stderr());
        twice.kill('SIGINT');
        const [first, second] = await Promise.all([twice.exited, once.exited]);
        assert.equal(first, 1, twice.stderr());
        assert.match(twice.stderr(), /"level":"error","msg":"stopped before the start was over: a second signal \(SIGINT\) came while it waited/);
        assert.equal(second, 1, once.stderr());
        assert.match(once.stderr(), /"level":"error","msg":"stopped before the start was over: it had not ended 16 s after SIGTERM/);
      });
    } finally {
      for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await holder.end();
    }
  });
});
