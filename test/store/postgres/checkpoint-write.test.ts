// writeCheckpoint() through PostgresStore on a real PostgreSQL: one instance writes at a time, the others go on serving
// and writing meanwhile and take it in; the rows at or before it are gone; every instance then answers alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openApp } from '../../../src/app.js';
import { connect } from '../../../src/store/postgres/client.js';
import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.js';
import type { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { checkpointDue, ROW_LINES } from '../../../src/store/postgres/checkpoint-write.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { call } from '../../helpers/harness.js';
import { mulberry32 } from '../../helpers/random.js';
import { eventId, sampleRecord } from '../helpers.js';
import { registrationId } from '../views/roster-helpers.js';
import { storeState, waitUntil } from './checkpoint-helpers.js';

const pg = usePostgres();
const SEED = Number(process.env['CHECKPOINT_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

/** A hook that freezes a checkpoint before step `at` until released, and says when it got there. */
function freezeAt(at: number): { onCheckpointStep: (step: number) => Promise<void>; reached: Promise<void>; release: () => void } {
  let release!: () => void;
  let reach!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return {
    reached,
    release,
    onCheckpointStep: async (step) => {
      if (step !== at) return;
      reach();
      await released;
    },
  };
}

/** Creates, registers on, renames and deletes a few events through `store`. */
async function someWrites(store: PostgresStore, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) {
    await store.write(eventId(n), () => sampleRecord(n, { capacity: 1 }));
    for (let r = 0; r < 2; r++) await store.changeRegistrations(eventId(n), () => ({ op: 'register', registration: { id: registrationId(n * 10 + r), name: `P ${r}`, email: `p${r}@campus.edu` } }));
    if (n % 3 === 0) await store.write(eventId(n), (current) => sampleRecord(n, { title: 'Renamed', created_at: current!.createdAt }));
    if (n % 4 === 0) await store.write(eventId(n), () => null);
  }
}

describe('checkpoints written by PostgresStore', { skip, timeout: 120_000 }, () => {
  it('checkpointDue(): over the threshold and more than half superseded, as §7 compacts a data folder', () => {
    assert.equal(checkpointDue({ lines: 100, bytes: 2000, live: 49 }, 1000), true);
    assert.equal(checkpointDue({ lines: 100, bytes: 2000, live: 50 }, 1000), false, 'half superseded is not more than half');
    assert.equal(checkpointDue({ lines: 100, bytes: 1000, live: 0 }, 1000), false, 'not over the threshold');
  });

  it('counts each member of a group row (a series and its occurrences) as a line, as a data folder counts them', async () => {
    const url = await pg.database('group_lines');
    // A database left with the old string escapes: the regular expressions in the queries must read the same.
    const setup = await connect(url);
    await setup.query(`ALTER DATABASE ${url.slice(url.lastIndexOf('/') + 1)} SET standard_conforming_strings = off`);
    await setup.end();
    const app = await openApp({ store: url, console: false, rateLimit: 1_000_000, compactMinBytes: 16_384 }, {});
    try {
      const key = app.initialAdminKey!;
      const times = { start_time: '2031-05-01T10:00:00Z', end_time: '2031-05-01T11:00:00Z' };
      const series = await call(app, 'POST', '/series', { key, body: { title: 'Daily', category: 'academic', location: 'Hall', capacity: 5, ...times, time_zone: 'UTC', recurrence: 'FREQ=DAILY;COUNT=60' } });
      assert.equal(series.status, 201, series.text ?? '');
      // Twelve edits of 61 lines each, 61 live: far more than half of the log's lines are superseded.
      for (let n = 0; n < 12; n++) assert.equal((await call(app, 'PUT', `/series/${series.json.id}`, { key, body: { title: `Daily ${n}` } })).status, 200);
      const outcome = await (app.store as PostgresStore).checkpoint({ due: true });
      assert.ok('written' in outcome, JSON.stringify(outcome));
      // Both layouts of a group row, and a plain one.
      const db = await connect(url);
      try {
        const lines = ['\t{"seq":1}\t{"seq":2}\t{"seq":3}', '{"seq":7,"op":"group","sizes":[11,12,13,14],"lines":[]}', '{"seq":8,"op":"put"}'];
        const rows = await db.query<{ n: number }>(`SELECT ${ROW_LINES} AS n FROM unnest($1::text[]) AS line`, [lines]);
        assert.deepEqual(rows.map((row) => row.n), [3, 4, 1]);
      } finally {
        await db.end();
      }
    } finally {
      await app.close();
    }
  });

  it('a checkpoint asked for whatever the rule says, while one only due is under way, is written even when that one finds the log not due', async () => {
    const url = await pg.database('forced_after_due');
    const store = await openPostgresStore({ url, pollMs: 50, compactMinBytes: Number.MAX_SAFE_INTEGER });
    try {
      await someWrites(store, 1, 4);
      const [due, forced] = await Promise.all([store.checkpoint({ due: true }), store.checkpoint()]);
      assert.ok('skipped' in due && /not due/.test(due.skipped), JSON.stringify(due));
      assert.ok('written' in forced, JSON.stringify(forced));
      assert.ok(store.checkpointSeen.seq > 0);
    } finally {
      await store.close();
    }
  });

  it('one instance writes while the other, asking at the same time, skips, goes on serving and writing, and takes the checkpoint in', async () => {
    const url = await pg.database('one_writer');
    const freeze = freezeAt(3);
    const a = await openPostgresStore({ url, pollMs: 50, onCheckpointStep: freeze.onCheckpointStep });
    const b = await openPostgresStore({ url, pollMs: 50 });
    const db = await connect(url);
    try {
      await someWrites(a, 1, 12);
      const writing = a.checkpoint();
      await freeze.reached;
      const snapshotSeq = a.lastSeq;
      assert.deepEqual(await b.checkpoint(), { skipped: 'another instance is writing one' });
      // B serves and writes while A writes its parts: nothing waits on the checkpoint.
      await someWrites(b, 100, 5);
      // (A may be reading B's writes meanwhile, part of them so far: the two are compared once both have read them all.)
      assert.match(b.get(eventId(101))?.json ?? '', /"registered_count":1,/, 'B serves its own writes: one confirmed of its two registrations');
      freeze.release();
      const outcome = await writing;
      assert.ok('written' in outcome, JSON.stringify(outcome));
      assert.equal(outcome.written.seq, snapshotSeq, 'the state as of the seq the views stood at');
      assert.ok(outcome.written.gone > 0, 'it forgot the deletions before it');
      const [rows] = await db.query<{ first: number | null; checkpoints: number }>('SELECT (SELECT min(seq)::float8 FROM campus_log) AS first, (SELECT count(*)::int FROM campus_checkpoints) AS checkpoints');
      assert.ok(rows!.first! > snapshotSeq, 'the rows at or before it are gone; the ones B wrote meanwhile stay');
      assert.equal(rows!.checkpoints, 1);
      await waitUntil('B takes the checkpoint in', () => b.checkpointSeen.seq === snapshotSeq && b.lastSeq === a.lastSeq);
      await a.catchUp();
      assert.deepEqual(storeState(b), storeState(a));
      assert.equal(a.changes.horizon, outcome.written.gone, 'deletions up to the newest forgotten answer 410 before it');
      const fresh = await openPostgresStore({ url });
      try {
        assert.equal(fresh.checkpointSeen.seq, snapshotSeq);
        assert.deepEqual(storeState(fresh), storeState(a), 'an instance started later: the checkpoint and the rows after it');
      } finally {
        await fresh.close();
      }
    } finally {
      freeze.release();
      await db.end();
      await Promise.all([a.close(), b.close()]);
    }
  });

  it(`three instances writing with a small --compact-min-bytes: checkpoints come by themselves, never two at once, and all agree (CHECKPOINT_SEED=${SEED})`, async () => {
    const url = await pg.database('concurrent');
    const random = mulberry32(SEED);
    const writing: { instance: number; from: number; to?: number }[] = [];
    const stores = await Promise.all(
      [0, 1, 2].map((instance) =>
        openPostgresStore({
          url,
          pollMs: 30,
          compactMinBytes: 20_000,
          onCheckpointStep: (step) => {
            // Steps 2 to 5 run under the lock: from the snapshot to just before COMMIT.
            if (step === 2) writing.push({ instance, from: performance.now() });
            if (step === 5) writing.findLast((entry) => entry.instance === instance)!.to = performance.now();
          },
        }),
      ),
    );
    try {
      await Promise.all(
        stores.map(async (store, instance) => {
          // 80 rounds each, and on until two checkpoints are written (how many 80 rounds bring depends on timing).
          for (let round = 0; round < 80 || (writing.filter((entry) => entry.to !== undefined).length < 2 && round < 400); round++) {
            const n = 1 + Math.floor(random() * 30);
            const id = eventId(n);
            const roll = random();
            const write =
              roll < 0.6
                ? store.write(id, (current) => sampleRecord(n, { title: `T ${instance}.${round}`, capacity: 2, ...(current === undefined ? {} : { created_at: current.createdAt }) }))
                : roll < 0.75
                  ? store.changeRegistrations(id, (event, roster) => (event === undefined || roster.hasEmail(`i${instance}r${round}@campus.edu`) ? undefined : { op: 'register', registration: { id: registrationId(instance * 1000 + round), name: 'P', email: `i${instance}r${round}@campus.edu` } }))
                  : store.write(id, (current) => {
                      if (current === undefined) throw new Error(`no event ${id} to delete`);
                      return null;
                    });
            await write.catch(() => undefined);
          }
        }),
      );
      const last = Math.max(...stores.map((store) => store.lastSeq));
      await Promise.all(stores.map((store) => waitUntil('every instance reads every write', () => store.lastSeq === last)));
      const written = writing.filter((entry) => entry.to !== undefined).sort((x, y) => x.from - y.from);
      assert.ok(written.length >= 2, `seed ${SEED}: checkpoints were written (${written.length})`);
      for (let i = 1; i < written.length; i++) assert.ok(written[i]!.from > written[i - 1]!.to!, `seed ${SEED}: two checkpoints were written at once: ${JSON.stringify(written)}`);
      // A write's checkpoint may still be under way (written by itself): a due one asked for on each instance joins it,
      // or is skipped while another instance writes one, and resolves once its writer took it in.
      await Promise.all(stores.map((store) => store.checkpoint({ due: true })));
      const newest = Math.max(...stores.map((store) => store.checkpointSeen.seq));
      await Promise.all(stores.map((store) => waitUntil('every instance takes in the newest checkpoint', () => store.checkpointSeen.seq === newest)));
      for (const store of stores.slice(1)) assert.deepEqual(storeState(store), storeState(stores[0]!), `seed ${SEED}`);
      const fresh = await openPostgresStore({ url });
      try {
        assert.deepEqual(storeState(fresh), storeState(stores[0]!), `seed ${SEED}: an instance started later`);
      } finally {
        await fresh.close();
      }
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
