// RateLeaseTable over a real PostgreSQL: a give-back that may have run is never reported as failed, so it is never made twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { connect } from '../../../src/store/postgres/client.js';
import { RateLeaseTable } from '../../../src/store/postgres/rate-leases.js';
import { migrateSchema } from '../../../src/store/postgres/schema.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';

const postgres = usePostgres();

describe('RateLeaseTable.giveBack()', { skip, timeout: 30_000 }, () => {
  it('resolves when its statement outlives the 2 s time-out, and takes effect once: a caller that gave back again would have freed slots others used', async () => {
    const url = await postgres.database('rate_give_back');
    const db = await connect(url);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await migrateSchema(db);
      const table = new RateLeaseTable(db);
      assert.deepEqual((await table.lease('key_a', 1000, [{ bucket: 1000, want: 8 }], 40)).granted, [8]);
      // Another session holds the row: the give-back's UPDATE waits past its time-out, then runs once the lock goes.
      await holder.query('BEGIN');
      await holder.query("SELECT * FROM campus_rate WHERE key = 'key_a' FOR UPDATE");
      const started = performance.now();
      await table.giveBack('key_a', 1000, 3);
      assert.ok(performance.now() - started >= 1_900, 'it waited for the time-out');
      await holder.query('COMMIT');
      const granted = async (): Promise<number> => (await db.query<{ granted: number }>("SELECT granted FROM campus_rate WHERE key = 'key_a' AND bucket = 1000"))[0]!.granted;
      for (let tries = 0; (await granted()) !== 5 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(await granted(), 5, 'given back once');
    } finally {
      await holder.end();
      await db.end();
    }
  });
});
