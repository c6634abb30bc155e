// A schema made newer while an instance runs (a newer build started beside it, against the README's upgrade steps):
// the instance refuses every write from then on, saying why, and goes on serving reads. Spawned instances on a
// throwaway PostgreSQL; the newer build is played by raising campus_meta's schema_version by hand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodePut } from '../../../src/store/records/encode-record.js';
import { connect } from '../../../src/store/postgres/client.js';
import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.js';
import { LOG_CHANNEL } from '../../../src/store/postgres/log-table.js';
import { SCHEMA_VERSION } from '../../../src/store/postgres/schema.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { newEvent, startInstances } from '../../helpers/instances.js';
import { eventId, sampleRecord } from '../helpers.js';

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
      assert.equal(body.message, `The database's schema is version ${SCHEMA_VERSION + 1}, newer than this program's ${SCHEMA_VERSION}: a newer build migrated it while this instance ran, so this instance writes nothing more; stop it. Nothing of this request was saved.`);
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

  it('an instance that writes nothing learns it within 10 s, and its checkpoints drop none of the newer build\'s rows', async () => {
    const url = await pg.database('schema_newer_idle');
    // Every catch-up makes the log due for a checkpoint.
    const one = await startInstances(url, 1, ['--compact-min-bytes', '1']);
    const db = await connect(url);
    try {
      assert.equal((await one.call(0, 'POST', '/events', newEvent(1))).status, 201);
      await db.query("UPDATE campus_meta SET value = $1 WHERE name = 'schema_version'", [String(SCHEMA_VERSION + 1)]);
      // The newer build writes on: rows this instance follows (lines it can read, as a newer build's may not be), one
      // event edited 50 times, so the log is mostly superseded and due for a checkpoint.
      const [last] = await db.query<{ seq: string }>('SELECT coalesce(max(seq), 0)::text AS seq FROM campus_log');
      const first = Number(last!.seq) + 1;
      for (let n = 0; n < 50; n++) await db.query('INSERT INTO campus_log (seq, line) VALUES ($1, $2)', [first + n, encodePut(first + n, sampleRecord(100, { title: `Edit ${n}` }))]);
      await db.query(`SELECT pg_notify('${LOG_CHANNEL}', $1)`, [String(first + 49)]);
      let health = 200;
      const deadline = Date.now() + 15_000;
      while (health !== 503 && Date.now() < deadline) {
        health = (await one.call(0, 'GET', '/health')).status;
        if (health !== 503) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(health, 503, '/health says so without a write');
      const changes = (await (await one.call(0, 'GET', `/changes?since=${first - 1}&limit=100`)).json()) as { changes: unknown[] };
      assert.deepEqual(changes.changes.map((change) => (change as { seq: number }).seq), [first + 49], 'the newer rows are followed and served');
      const [kept] = await db.query<{ rows: string }>('SELECT count(*)::text AS rows FROM campus_log WHERE seq >= $1', [first]);
      assert.equal(kept!.rows, '50', 'no checkpoint dropped the newer build\'s rows');
    } finally {
      await db.end();
      await one.stop();
    }
  });

  it('a checkpoint asked for by hand is skipped, saying why, and drops no row', async () => {
    const url = await pg.database('schema_newer_checkpoint');
    const store = await openPostgresStore({ url, compactMinBytes: Number.MAX_SAFE_INTEGER });
    const db = await connect(url);
    try {
      for (let n = 0; n < 5; n++) await store.write(eventId(1), () => sampleRecord(1, { title: `Edit ${n}` }));
      await db.query("UPDATE campus_meta SET value = $1 WHERE name = 'schema_version'", [String(SCHEMA_VERSION + 1)]);
      const outcome = await store.checkpoint();
      assert.deepEqual(outcome, { skipped: `the database's schema is version ${SCHEMA_VERSION + 1}, newer than this program's ${SCHEMA_VERSION}: a newer build migrated it while this instance ran, so this instance writes nothing more; stop it` });
      const [rows] = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM campus_log');
      assert.equal(rows!.n, '5');
    } finally {
      await db.end();
      await store.close();
    }
  });
});
