// `make bench`, PostgreSQL's rate-limit leases (API.md §6, §12): the time of one lease (as LeasedWindowLimiter asks for
// it) in a database whose campus_rate holds BENCH_RATE_ROWS rows of other keys (default 200,000: addresses that failed
// once, within the two windows kept), against the same lease in an empty table, measured in the same run. The database
// is made with the C.utf8 collation, as initdb makes one on a machine whose locale is C.UTF-8: a prefix match on the
// key is served from the index only under C, an equality on it under any collation.
import { connect } from '../../src/store/postgres/client.js';
import { RateLeaseTable } from '../../src/store/postgres/rate-leases.js';
import { migrateSchema } from '../../src/store/postgres/schema.js';
import { postgresMissing, startPostgres } from '../helpers/postgres-server.js';
import { median } from './load-plan.js';

const ROWS = Number(process.env['BENCH_RATE_ROWS'] ?? 200_000);
const LEASES = 200;

const missing = postgresMissing();
if (missing !== undefined) {
  process.stdout.write(`rate-lease bench skipped: ${missing}\n`);
  process.exit(0);
}
const server = await startPostgres();
try {
  const admin = await connect(await server.createDatabase('rate_bench_admin'));
  await admin.query(`CREATE DATABASE rate_bench_empty TEMPLATE template0 LC_COLLATE 'C.utf8' LC_CTYPE 'C.utf8'`);
  await admin.query(`CREATE DATABASE rate_bench_full TEMPLATE template0 LC_COLLATE 'C.utf8' LC_CTYPE 'C.utf8'`);
  await admin.end();
  const urlOf = (name: string): string => server.url.replace(/\/[^/]*$/, `/${name}`);
  const tables = [];
  for (const [name, rows] of [['rate_bench_empty', 0], ['rate_bench_full', ROWS]] as const) {
    const db = await connect(urlOf(name));
    await migrateSchema(db);
    if (rows > 0) await db.query(`INSERT INTO campus_rate (key, bucket, granted) SELECT 'auth 10.' || g, 1000, 1 FROM generate_series(1, ${rows}) g`);
    await db.query('ANALYZE campus_rate');
    tables.push({ name, rows, db, table: new RateLeaseTable(db), times: [] as number[] });
  }
  // Alternated, a lease of a new address in each, as a failed authentication from an address not seen before asks.
  for (let i = 0; i < LEASES; i++) {
    for (const each of tables) {
      const started = performance.now();
      await each.table.lease(`auth 192.0.2.${i}`, 2000, [{ bucket: 2000, want: 1 }], 100, [1]);
      each.times.push(performance.now() - started);
    }
  }
  const [empty, full] = tables.map((each) => median(each.times));
  process.stdout.write(`rate lease, ${LEASES} leases each, medians: empty campus_rate ${empty!.toFixed(2)} ms; ${ROWS.toLocaleString('en')} rows of other keys ${full!.toFixed(2)} ms (${(full! / empty!).toFixed(2)}× the empty table)\n`);
  for (const each of tables) await each.db.end();
} finally {
  server.stop();
}
