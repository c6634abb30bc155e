// PrimaryPool on a real PostgreSQL, named by two hosts: a proxy to the server first, the server itself second. Dropping
// the proxy makes the pool look for the primary again and move to the second host, as it follows a promoted standby.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { SESSION_SETTINGS } from '../../../src/store/postgres/client.js';
import { PrimaryPool } from '../../../src/store/postgres/primary.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';

const server = usePostgres();

describe('PrimaryPool moving to another host', { skip, timeout: 60_000 }, () => {
  it('a connection still awaited when the pool moves is given by the new pool, not left to the old pool\'s connect time-out', async () => {
    const url = new URL(await server.database('pool_move'));
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(url.port) });
    const twoHosts = `postgres://${url.username}@127.0.0.1:${proxy.port},127.0.0.1:${url.port}${url.pathname}`;
    const switches: string[] = [];
    const primary = new PrimaryPool(pg, twoHosts, { max: 1, connectTimeoutMs: 3_000, session: SESSION_SETTINGS, onSwitch: (from, to) => switches.push(`${from} -> ${to}`) });
    try {
      await primary.start();
      const first = primary.pool;
      // The pool's one connection is in use: the next ask waits in its queue.
      const held = await primary.connect();
      const waiting = primary.connect().then((client) => ({ client }), (error: unknown) => ({ error }));
      proxy.drop({ then: 'refuse' });
      primary.suspect(new Error('the connection to the first host was lost'));
      const outcome = await waiting;
      assert.ok('client' in outcome, `the waiting ask got a connection: ${'error' in outcome ? String(outcome.error) : ''}`);
      assert.deepEqual(switches, [`127.0.0.1:${proxy.port} -> 127.0.0.1:${url.port}`]);
      assert.notEqual(primary.pool, first);
      const [row] = (await outcome.client.query('SELECT 1 AS one')).rows as { one: number }[];
      assert.equal(row?.one, 1, 'the connection is to the server, by its second name');
      outcome.client.release();
      held.release(new Error('its host was left'));
    } finally {
      await primary.end();
      await proxy.close();
    }
  });
});
