// Starting on PostgreSQL (API.md §12): instances starting together on an empty database create the schema and the
// first admin key once; a start with the database unreachable is exit 1 with the reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from '../../../src/store/postgres/client.js';
import { SCHEMA_VERSION } from '../../../src/store/postgres/schema.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { runCli, runServer, spawnServer } from '../../helpers/spawn.js';

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
});
