// PostgresStore and checkpoints across processes: an instance paused while another checkpointed reads the checkpoint
// again; a kill -9 while writing one leaves the database as it was; a database of version 2 migrates in place, once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { connect } from '../../../src/store/postgres/client.js';
import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.js';
import type { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { SCHEMA_VERSION } from '../../../src/store/postgres/schema.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { newEvent, startInstances } from '../../helpers/instances.js';
import { runCli } from '../../helpers/spawn.js';
import { eventId, sampleRecord } from '../helpers.js';
import { registrationId } from '../views/roster-helpers.js';
import { storeState, waitUntil } from './checkpoint-helpers.js';

const pg = usePostgres();
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'checkpoint-child.ts');

/** Events created, renamed, registered on and some deleted through `store`. */
async function history(store: PostgresStore, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) {
    await store.write(eventId(n), () => sampleRecord(n, { capacity: 1 }));
    for (let r = 0; r < 2; r++) await store.changeRegistrations(eventId(n), () => ({ op: 'register', registration: { id: registrationId(n * 10 + r), name: `P ${r}`, email: `p${r}@campus.edu` } }));
    await store.write(eventId(n), (current) => sampleRecord(n, { title: `Renamed ${n}`, capacity: 1, created_at: current!.createdAt }));
    if (n % 3 === 0) await store.write(eventId(n), () => null);
  }
}

describe('PostgresStore with checkpoints, across processes', { skip, timeout: 120_000 }, () => {
  it('an instance paused (SIGSTOP) while another wrote a checkpoint and dropped the rows it had not read reads the checkpoint again, and answers as the other', async () => {
    const url = await pg.database('paused');
    const instances = await startInstances(url, 2, ['--compact-min-bytes', '20000']);
    const db = await connect(url);
    try {
      const json = async (i: number, target: string): Promise<string> => (await instances.call(i, 'GET', target)).text();
      for (let n = 0; n < 3; n++) assert.equal((await instances.call(0, 'POST', '/events', newEvent(n))).status, 201);
      await waitUntil('the second instance reads the first writes', async () => (await json(1, '/changes?since=0&limit=1000')) === (await json(0, '/changes?since=0&limit=1000')));
      instances.servers[1]!.child.kill('SIGSTOP');
      let checkpoint = 0;
      try {
        // Writes on the first instance until it checkpointed by itself (the log is due at 20 kB, mostly superseded).
        for (let n = 3; checkpoint === 0; n++) {
          assert.ok(n < 500, 'a checkpoint came');
          const created = (await (await instances.call(0, 'POST', '/events', newEvent(n))).json()) as { id: string };
          for (let k = 0; k < 3; k++) assert.equal((await instances.call(0, 'PUT', `/events/${created.id}`, { title: `Renamed ${k}` })).status, 200);
          if (n % 2 === 0) assert.equal((await instances.call(0, 'DELETE', `/events/${created.id}`)).status, 204);
          const [row] = await db.query<{ seq: number | null }>('SELECT max(seq)::float8 AS seq FROM campus_checkpoints');
          checkpoint = row?.seq ?? 0;
        }
      } finally {
        instances.servers[1]!.child.kill('SIGCONT');
      }
      const [{ first }] = (await db.query<{ first: number }>('SELECT min(seq)::float8 AS first FROM campus_log')) as [{ first: number }];
      assert.ok(first > checkpoint, 'the rows the paused instance had not read are gone');
      await waitUntil('the paused instance answers as the other', async () => (await json(1, '/changes?since=0&limit=1000')) === (await json(0, '/changes?since=0&limit=1000')), 20_000);
      // The log line is written by the paused instance's logger a moment after the reload it reports.
      await waitUntil('the paused instance says it fell behind', () => /fell behind a checkpoint/.test(instances.servers[1]!.stderr()));
      assert.equal(await json(1, '/events?limit=100'), await json(0, '/events?limit=100'));
      // And it writes again, seen by the other.
      const made = (await (await instances.call(1, 'POST', '/events', newEvent(999))).json()) as { id: string };
      await waitUntil('the first instance sees the write', async () => (await instances.call(0, 'GET', `/events/${made.id}`)).status === 200);
    } finally {
      await db.end();
      await instances.stop();
    }
  });

  for (const step of [4, 5]) {
    it(`a kill -9 while a checkpoint is written (frozen before step ${step}) leaves the database as it was: it starts, verifies and checkpoints again`, async () => {
      const url = await pg.database(`killed_${step}`);
      const store = await openPostgresStore({ url, compactMinBytes: Number.MAX_SAFE_INTEGER });
      await history(store, 1, 40);
      const before = storeState(store);
      await store.close();
      const db = await connect(url);
      try {
        const count = async (): Promise<number[]> => (await db.query<{ rows: number; checkpoints: number; parts: number }>('SELECT (SELECT count(*)::int FROM campus_log) AS rows, (SELECT count(*)::int FROM campus_checkpoints) AS checkpoints, (SELECT count(*)::int FROM campus_checkpoint_parts) AS parts')).map((row) => [row.rows, row.checkpoints, row.parts])[0]!;
        const counted = await count();
        const child = spawn(process.execPath, ['--import', 'tsx', CHILD, url, String(step)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
        const exited = new Promise((resolve) => child.on('exit', resolve));
        await waitUntil(`the child freezes before step ${step}`, () => out.includes(`frozen ${step}`) || child.exitCode !== null, 30_000);
        assert.match(out, new RegExp(`frozen ${step}`));
        child.kill('SIGKILL');
        await exited;
        // PostgreSQL rolls the transaction back once it sees the connection gone.
        await waitUntil('the killed transaction is rolled back', async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`))[0]!.n === 0);
        assert.deepEqual(await count(), counted, 'every row is still there, and no checkpoint nor part');
        const verified = runCli(['verify', '--json', '--store', url]);
        assert.equal(verified.status, 0, verified.stderr);
        const restarted = await openPostgresStore({ url, compactMinBytes: Number.MAX_SAFE_INTEGER });
        try {
          assert.deepEqual(storeState(restarted), before);
          const outcome = await restarted.checkpoint();
          assert.ok('written' in outcome, JSON.stringify(outcome));
          await history(restarted, 100, 3);
        } finally {
          await restarted.close();
        }
        assert.equal(runCli(['verify', '--store', url]).status, 0);
      } finally {
        await db.end();
      }
    });
  }

  it('a database of version 2 migrates in place once, with two instances starting together, and keeps every write', async () => {
    const url = await pg.database('from_v2');
    const writer = await openPostgresStore({ url, compactMinBytes: Number.MAX_SAFE_INTEGER });
    await history(writer, 1, 30);
    const before = storeState(writer);
    await writer.close();
    const db = await connect(url);
    try {
      // As version 2 left it: version 3 only added the checkpoint tables, and version 5 the open change streams.
      await db.query('DROP TABLE campus_checkpoints, campus_checkpoint_parts, campus_streams');
      await db.query("UPDATE campus_meta SET value = '2' WHERE name = 'schema_version'");
      const migrated: unknown[] = [];
      const logger = { info: (message: string, fields?: Record<string, unknown>) => void (message.includes('migrated') && migrated.push(fields)), warn: () => undefined };
      const [a, b] = await Promise.all([0, 1].map(() => openPostgresStore({ url, logger, compactMinBytes: Number.MAX_SAFE_INTEGER })));
      try {
        assert.equal(migrated.length, 1, 'one instance migrated; the other found it done');
        assert.deepEqual((migrated[0] as { from: number; to: number }).from, 2);
        assert.equal((await db.query<{ value: string }>("SELECT value FROM campus_meta WHERE name = 'schema_version'"))[0]!.value, String(SCHEMA_VERSION));
        assert.deepEqual(storeState(a!), before);
        assert.deepEqual(storeState(b!), before);
        assert.ok('written' in (await a!.checkpoint()));
        await history(b!, 100, 3);
        await waitUntil('both read every write', () => a!.lastSeq === b!.lastSeq && b!.checkpointSeen.seq > 0);
        const fresh = await openPostgresStore({ url });
        try {
          assert.deepEqual(storeState(fresh), storeState(b!));
        } finally {
          await fresh.close();
        }
      } finally {
        await Promise.all([a!.close(), b!.close()]);
      }
    } finally {
      await db.end();
    }
  });

  it('a checkpoint whose answers share seqs with the events they created (one group line each) is healthy to verify, and after a restart every key replays its first answer', async () => {
    const url = await pg.database('idem_grouped');
    const one = await startInstances(url, 1, ['--compact-min-bytes', '20000', '--log-level', 'info']);
    const written = (): number => one.servers[0]!.stderr().split('\n').filter((line) => line.includes('checkpoint written')).length;
    try {
      const first: string[] = [];
      for (let n = 0; n < 10; n++) first.push(await (await one.call(0, 'POST', '/events', newEvent(n), { 'Idempotency-Key': `grouped-${n}` })).text());
      const churn = ((await (await one.call(0, 'POST', '/events', newEvent(99))).json()) as { id: string }).id;
      for (let n = 0; written() === 0; n++) {
        assert.ok(n < 400, 'a checkpoint was written');
        assert.equal((await one.call(0, 'PUT', `/events/${churn}`, { title: `Churn ${n}` })).status, 200);
      }
      const verified = runCli(['verify', '--json', '--store', url]);
      assert.equal(verified.status, 0, verified.stdout + verified.stderr);
      assert.ok((JSON.parse(verified.stdout) as { checkpoint_seq: number }).checkpoint_seq > 0);
      await one.killAndRestart(0);
      for (let n = 0; n < 10; n++) {
        const again = await one.call(0, 'POST', '/events', newEvent(n), { 'Idempotency-Key': `grouped-${n}` });
        assert.equal(again.headers.get('idempotent-replayed'), 'true', `key ${n}`);
        assert.equal(await again.text(), first[n], `key ${n}: its first answer`);
      }
    } finally {
      await one.stop();
    }
  });

  it('counts remembered Idempotency-Key answers as kept: a database of mostly such answers is not checkpointed after every write', async () => {
    const url = await pg.database('idem_kept');
    const one = await startInstances(url, 1, ['--compact-min-bytes', '20000', '--log-level', 'info']);
    const written = (): number => one.servers[0]!.stderr().split('\n').filter((line) => line.includes('checkpoint written')).length;
    try {
      // 300 events, each created with its own Idempotency-Key, two of three deleted: 500 rows, of which a checkpoint
      // keeps 400 (100 events and the 300 answers, remembered for 24 hours). Then 30 more events without a key.
      for (let n = 0; n < 300; n++) {
        const created = (await (await one.call(0, 'POST', '/events', newEvent(n), { 'Idempotency-Key': `create-${n}` })).json()) as { id: string };
        if (n % 3 !== 0) assert.equal((await one.call(0, 'DELETE', `/events/${created.id}`)).status, 204);
      }
      for (let n = 0; n < 30; n++) assert.equal((await one.call(0, 'POST', '/events', newEvent(1000 + n))).status, 201);
      // The keeper looks after each batch; give its last look time to write, had it wanted to.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.ok(written() <= 1, `${written()} checkpoints of a log that is mostly kept lines:\n${one.servers[0]!.stderr().slice(-2000)}`);
    } finally {
      await one.stop();
    }
  });
});
