// RateLeaseTable over a real PostgreSQL: a give-back that may have run is never reported as failed, so it is never made twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { connect } from '../../../src/store/postgres/client.js';
import { RateLeaseTable } from '../../../src/store/postgres/rate-leases.js';
import { migrateSchema } from '../../../src/store/postgres/schema.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { createApp } from '../../../src/app.js';
import { call } from '../../helpers/harness.js';

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
      assert.deepEqual((await table.lease('key_a', 1000, [{ bucket: 1000, want: 8 }], 40, [1])).granted, [8]);
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

describe('RateLeaseTable.forget()', { skip, timeout: 30_000 }, () => {
  it('deletes the rows of every key of the prefix before the sub-window given, ranges included, and nothing else', async () => {
    const db = await connect(await postgres.database('rate_forget'));
    try {
      await migrateSchema(db);
      const table = new RateLeaseTable(db);
      await table.lease('key_a', 1000, [{ bucket: 1000, want: 3 }, { bucket: 1001, want: 2, span: 5 }], 40, [1, 5]);
      await table.lease('key_b', 1099, [{ bucket: 1099, want: 1 }], 40, [1]);
      await table.lease('key_c', 1100, [{ bucket: 1100, want: 1 }], 40, [1]);
      await table.lease('auth 192.0.2.1', 1000, [{ bucket: 1000, want: 1 }], 100, [1]);
      await table.forget('key_', 1100);
      const rows = await db.query<{ key: string; bucket: string }>('SELECT key, bucket FROM campus_rate ORDER BY key, bucket');
      assert.deepEqual(rows.map((row) => [row.key, Number(row.bucket)]), [['auth 192.0.2.1', 1000], ['key_c', 1100]]);
    } finally {
      await db.end();
    }
  });
});

describe('campus_rate over time', { skip, timeout: 60_000 }, () => {
  it('an app on PostgreSQL forgets the slots of keys and of addresses that failed once, two windows after they were used, though neither comes back', async (t) => {
    const url = await postgres.database('rate_forget_app');
    let clock = 1_800_000_000_000;
    const app = await createApp({ store: url, keyPollMs: 0, rateLimit: 100, rateWindow: 60, now: () => clock });
    t.after(() => app.close());
    const db = await connect(url);
    t.after(() => db.end());
    const count = async (prefix: string): Promise<number> => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM campus_rate WHERE starts_with(key, $1)', [prefix]))[0]!.n);
    for (let i = 0; i < 3; i++) assert.equal((await call(app, 'GET', '/events', { key: app.initialAdminKey! })).status, 200);
    assert.equal((await call(app, 'GET', '/events', { key: 'cek_' + 'x'.repeat(39), remoteAddress: '192.0.2.7' })).status, 401);
    assert.ok((await count('key_')) > 0 && (await count('auth ')) > 0, 'slots were leased');
    // Two failed-authentication windows (15 min) and more pass; neither the key nor the address is seen again.
    clock += 31 * 60_000;
    for (let waited = 0; ((await count('key_')) > 0 || (await count('auth ')) > 0) && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual([await count('key_'), await count('auth ')], [0, 0]);
  });
});

describe('RateLeaseTable.askBack()', { skip, timeout: 30_000 }, () => {
  it('reaches every instance listening, itself included, and sends at most 20 a second of each kind, whatever the keys', async () => {
    const url = await postgres.database('rate_ask_back');
    const [one, two] = [await connect(url), await connect(url)];
    try {
      await migrateSchema(one);
      const heard: string[][] = [[], []];
      const tables = [new RateLeaseTable(one), new RateLeaseTable(two)];
      const stops = await Promise.all(tables.map((table, i) => table.onAskedBack((key) => heard[i]!.push(key))));
      try {
        const asked = await Promise.allSettled(Array.from({ length: 30 }, (_, n) => tables[0]!.askBack(`auth 10.0.0.${n}`)));
        const sent = asked.filter((outcome) => outcome.status === 'fulfilled').length;
        assert.equal(sent, 20, 'the 30 are asked in one turn of the event loop: 20 of them go');
        // An API key still asks: the addresses' asks spend their own budget.
        await tables[0]!.askBack('key_a');
        const deadline = Date.now() + 5_000;
        while (heard.some((keys) => keys.length < 1 + sent) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        for (const keys of heard) assert.equal(keys.at(-1), 'key_a');
        assert.deepEqual(heard.map((keys) => keys.length), [1 + sent, 1 + sent]);
      } finally {
        await Promise.all(stops.map((stop) => stop()));
      }
    } finally {
      await Promise.all([one.end(), two.end()]);
    }
  });
});
