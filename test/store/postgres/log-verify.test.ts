// `verify --store postgres://…` (copyCheckedLog, and the CLI around it): the database's log checked as a data folder's is.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from '../../../src/store/postgres/client.js';
import { SCHEMA_VERSION } from '../../../src/store/postgres/schema.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { newEvent, startInstances } from '../../helpers/instances.js';
import { runCli } from '../../helpers/spawn.js';

const pg = usePostgres();

describe('verify --store postgres://', { skip, timeout: 60_000 }, () => {
  it('reports a healthy log with its counts, and names the row of each kind of damage: a flipped byte, a row under another seq, a row missing (exit 1)', async () => {
    const url = await pg.database('verify');
    const one = await startInstances(url, 1);
    try {
      const { id } = (await (await one.call(0, 'POST', '/events', newEvent(1, 2))).json()) as { id: string };
      // Two seats, three registrations: two confirmed, one waitlisted.
      for (let n = 0; n < 3; n++) assert.equal((await one.call(0, 'POST', `/events/${id}/registrations`, { name: `P${n}`, email: `p${n}@campus.example` })).status, 201);
      assert.equal((await one.call(0, 'PUT', `/events/${id}`, { title: 'Renamed' })).status, 200);
      const series = await one.call(0, 'POST', '/series', { ...newEvent(5), recurrence: 'FREQ=WEEKLY;COUNT=3', start_time: '2031-03-04T10:00:00Z', end_time: '2031-03-04T12:00:00Z' });
      assert.equal(series.status, 201);
      const changes = (await (await one.call(0, 'GET', '/changes?since=0&limit=1000')).json()) as { next_since: number };

      // While the instance runs: verify only reads.
      const healthy = runCli(['verify', '--json', '--store', url]);
      assert.equal(healthy.status, 0, healthy.stderr);
      const report = JSON.parse(healthy.stdout) as Record<string, unknown>;
      // The first put of the renamed event is superseded, but a checkpoint would write a mark line in its stead.
      assert.deepEqual(report, { ok: true, store: url, rows: 6, lines: 9, live_events: 4, live_registrations: 3, live_series: 1, remembered_answers: 0, superseded_lines: 0, last_seq: changes.next_since, checkpoint_seq: 0 });
      const text = runCli(['verify'], { STORE: url });
      assert.equal(text.status, 0, text.stderr);
      assert.match(text.stdout, /\(table campus_log\): healthy\n {2}rows: 6 \(9 lines, 0 superseded; 0 Idempotency-Key answers, kept 24 h\)\n {2}live events: 4\n {2}live registrations: 3 /);
    } finally {
      await one.stop();
    }

    const db = await connect(url);
    try {
      const rows = await db.query<{ seq: string; line: string }>('SELECT seq::text AS seq, line FROM campus_log ORDER BY campus_log.seq');
      const second = rows[1]!;
      // A flipped byte inside the second row's JSON: its checksum no longer holds.
      await db.query('UPDATE campus_log SET line = $1 WHERE seq = $2', [second.line.replace('"name":"P0"', '"name":"Q0"'), second.seq]);
      const flipped = runCli(['verify', '--json', '--store', url]);
      assert.equal(flipped.status, 1);
      assert.equal((JSON.parse(flipped.stdout) as { ok: boolean }).ok, false);
      assert.match(flipped.stderr, new RegExp(`^campus-events-cli: campus_log row ${second.seq} is damaged: .*checksum`));
      await db.query('UPDATE campus_log SET line = $1 WHERE seq = $2', [second.line, second.seq]);
      assert.equal(runCli(['verify', '--store', url]).status, 0, 'healthy again once the row is put back');

      // A row kept under another seq than its line's.
      await db.query('UPDATE campus_log SET seq = 1000 WHERE seq = $1', [second.seq]);
      const moved = runCli(['verify', '--store', url]);
      assert.equal(moved.status, 1);
      assert.match(moved.stderr, new RegExp(`campus_log row 1000 holds the line of seq ${second.seq}\\n$`));
      await db.query('UPDATE campus_log SET seq = $1 WHERE seq = 1000', [second.seq]);

      // The first row (the event's creation) gone: its registrations now belong to no event.
      await db.query('DELETE FROM campus_log WHERE seq = $1', [rows[0]!.seq]);
      const missing = runCli(['verify', '--store', url]);
      assert.equal(missing.status, 1);
      assert.match(missing.stderr, new RegExp(`campus_log row ${second.seq} is damaged: .*not in the log before it`));
    } finally {
      await db.end();
    }
  });

  it('an empty database is an empty store and stays untouched (no tables made); a newer schema is refused (exit 1)', async () => {
    const url = await pg.database('verifyempty');
    const empty = runCli(['verify', '--store', url]);
    assert.equal(empty.status, 0, empty.stderr);
    assert.match(empty.stdout, /\(table campus_log\): no events yet \(an empty store\)\n/);
    const db = await connect(url);
    try {
      assert.deepEqual(await db.query("SELECT to_regclass('campus_log') IS NULL AS absent"), [{ absent: true }]);
      await db.query('CREATE TABLE campus_meta (name text PRIMARY KEY, value text NOT NULL)');
      await db.query('CREATE TABLE campus_log (seq bigint PRIMARY KEY, line text NOT NULL)');
      await db.query("INSERT INTO campus_meta VALUES ('schema_version', '99')");
    } finally {
      await db.end();
    }
    const newer = runCli(['verify', '--store', url]);
    assert.equal(newer.status, 1);
    assert.match(newer.stderr, new RegExp(`schema is version 99, newer than this program's ${SCHEMA_VERSION}:`));
  });
});
