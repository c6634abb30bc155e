// logPageSql(): the statement that reads campus_log a page at a time (verify, backup, webhooks reading the log back)
// takes its rows in the primary key's order. Ordered by its own float8 `seq` column instead, every page sorted the
// whole rest of the log: verify of 300,000 rows took 7.6 s, most of it PostgreSQL sorting to disk.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from '../../../src/store/postgres/client.js';
import { migrateSchema } from '../../../src/store/postgres/schema.js';
import { logPageSql } from '../../../src/store/postgres/log-table.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';

const pg = usePostgres();

/** Every node type of a plan from EXPLAIN (FORMAT JSON). */
function nodeTypes(plan: { 'Node Type': string; Plans?: unknown[] }): string[] {
  return [plan['Node Type'], ...((plan.Plans ?? []) as (typeof plan)[]).flatMap(nodeTypes)];
}

describe('logPageSql()', { skip, timeout: 60_000 }, () => {
  it('reads a page of campus_log by the primary key, in order, with no sort of the rows after it', async () => {
    const db = await connect(await pg.database('log_pages'));
    try {
      await migrateSchema(db);
      await db.query(`INSERT INTO campus_log (seq, line) SELECT n, '{"seq":' || n || ',"op":"mark"}' FROM generate_series(1, 20000) AS n`);
      await db.query('ANALYZE campus_log');
      for (const [where, params] of [['seq > $1', [100]], ['seq > $1 AND seq <= $2', [100, 15000]]] as const) {
        const sql = logPageSql(where, 5000);
        const rows = await db.query<{ seq: number; line: string }>(sql, [...params]);
        assert.deepEqual(rows.map((row) => row.seq), Array.from({ length: 5000 }, (_, index) => 101 + index), where);
        assert.equal(typeof rows[0]!.seq, 'number');
        // Sorting switched off costs a plan that must sort dearly, so it shows whether the order needs a sort at all.
        const [explained] = await db.transaction(async (tx) => {
          await tx.query('SET LOCAL enable_sort = off');
          return tx.query<{ 'QUERY PLAN': [{ Plan: { 'Node Type': string } }] }>(`EXPLAIN (FORMAT JSON) ${sql}`, [...params]);
        });
        const types = nodeTypes(explained!['QUERY PLAN'][0].Plan);
        assert.ok(!types.includes('Sort') && !types.includes('Incremental Sort'), `${where}: ${types.join(' > ')}`);
      }
    } finally {
      await db.end();
    }
  });
});
