// A schema made newer while an instance runs (a newer build started beside it, against the README's upgrade steps):
// the instance refuses every write from then on, saying why, and goes on serving reads. Spawned instances on a
// throwaway PostgreSQL; the newer build is played by raising campus_meta's schema_version by hand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from '../../../src/store/postgres/client.js';
import { SCHEMA_VERSION } from '../../../src/store/postgres/schema.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { newEvent, startInstances } from '../../helpers/instances.js';

const pg = usePostgres();

describe('a schema made newer while an instance runs', { skip, timeout: 60_000 }, () => {
  it('refuses writes with 503 naming both versions, /health says so, reads go on; writes resume once the version is back', async () => {
    const url = await pg.database('schema_newer');
    const one = await startInstances(url, 1);
    const db = await connect(url);
    try {
      const created = await one.call(0, 'POST', '/events', newEvent(1));
      assert.equal(created.status, 201);
      const { id } = (await created.json()) as { id: string };

      await db.query("UPDATE campus_meta SET value = $1 WHERE name = 'schema_version'", [String(SCHEMA_VERSION + 1)]);
      const refused = await one.call(0, 'POST', '/events', newEvent(2));
      assert.equal(refused.status, 503);
      const body = (await refused.json()) as { error: string; message: string };
      assert.equal(body.error, 'unavailable');
      assert.match(body.message, new RegExp(`schema is version ${SCHEMA_VERSION + 1}, newer than this program's ${SCHEMA_VERSION}.*nothing of this request was saved`));
      assert.equal((await one.call(0, 'PUT', `/events/${id}`, { title: 'Renamed' })).status, 503);
      const rows = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM campus_log');
      assert.equal(rows[0]!.n, '1', 'nothing written after the schema moved on');
      const health = await one.call(0, 'GET', '/health');
      assert.equal(health.status, 503);
      assert.match(((await health.json()) as { message: string }).message, new RegExp(`newer than this program's ${SCHEMA_VERSION}`));
      const read = await one.call(0, 'GET', `/events/${id}`);
      assert.equal(read.status, 200);
      assert.equal(((await read.json()) as { title: string }).title, 'Event 1');

      // The newer build was a mistake and the database is put back: writes commit again.
      await db.query("UPDATE campus_meta SET value = $1 WHERE name = 'schema_version'", [String(SCHEMA_VERSION)]);
      let status = 0;
      for (let tries = 0; tries < 50 && status !== 201; tries++) {
        status = (await one.call(0, 'POST', '/events', newEvent(3))).status;
        if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(status, 201);
      assert.equal((await one.call(0, 'GET', '/health')).status, 200);
    } finally {
      await db.end();
      await one.stop();
    }
  });
});
