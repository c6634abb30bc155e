// PostgresWebhookTable on a real PostgreSQL: one lease holder per webhook, lapsed leases taken over, progress saved only by the holder.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { connect, type Database } from '../../../src/store/postgres/client.js';
import { migrateSchema, SCHEMA_VERSION } from '../../../src/store/postgres/schema.js';
import { PostgresWebhookTable } from '../../../src/store/postgres/webhook-table.js';
import type { WebhookState } from '../../../src/store/webhook-state.js';

const pg = usePostgres();
const LONG = 60_000;

function webhook(n: number): WebhookState {
  return {
    id: `whk_test${String(n).padStart(12, '0')}`,
    url: `http://127.0.0.1:9/${n}`,
    events: ['event.created'],
    description: '',
    secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
    created_at: `2026-11-25T10:00:0${n}.000Z`,
    status: 'active',
    cursor: { seq: 0, index: Number.MAX_SAFE_INTEGER },
    attempts: 0,
    firstFailureMs: null,
    deliveries: [],
  };
}

describe('PostgresWebhookTable', { skip }, () => {
  let db: Database;
  let table: PostgresWebhookTable;
  before(async () => {
    db = await connect(await pg.database('webhook_table'));
    await migrateSchema(db);
    table = new PostgresWebhookTable(db);
  });
  after(() => db?.end());

  it('insert() leases the webhook to its maker and sets its cursor to the newest committed seq', async () => {
    await db.query("INSERT INTO campus_log (seq, line) VALUES (41, 'x'), (42, 'y')");
    const made = await table.insert(webhook(1), 'run_a', LONG);
    assert.deepEqual(made.cursor, { seq: 42, index: Number.MAX_SAFE_INTEGER });
    assert.deepEqual((await table.lease('run_b', LONG)).map((held) => held.state.id), [], 'held by run_a');
    assert.deepEqual((await table.lease('run_a', LONG)).map((held) => held.state.id), [made.id]);
    assert.deepEqual((await table.get(made.id))!.state, made);
  });

  it('insert() right after a checkpoint dropped every row starts the cursor at the checkpoint, not at 0 (a gap it was never owed)', async () => {
    const other = await connect(await pg.database('webhook_table_checkpoint'));
    try {
      await migrateSchema(other);
      await other.query('INSERT INTO campus_checkpoints (seq, gone, lines, bytes, parts) VALUES (3076, 0, 0, 0, 0)');
      const made = await new PostgresWebhookTable(other).insert(webhook(9), 'run_a', LONG);
      assert.deepEqual(made.cursor, { seq: 3076, index: Number.MAX_SAFE_INTEGER });
    } finally {
      await other.end();
    }
  });

  it('lease() from several instances at once hands each webhook to exactly one of them', async () => {
    for (let n = 2; n < 8; n++) await table.insert(webhook(n), 'run_gone', 0);
    const owners = ['run_p', 'run_q', 'run_r', 'run_s'];
    const held = await Promise.all(owners.map((owner) => table.lease(owner, LONG)));
    const ids = held.flat().map((entry) => entry.state.id).sort();
    assert.deepEqual(ids, [2, 3, 4, 5, 6, 7].map((n) => webhook(n).id), 'every lapsed lease taken once');
    // Renewing keeps them where they are.
    const again = await Promise.all(owners.map((owner) => table.lease(owner, LONG)));
    assert.deepEqual(again.map((entries) => entries.map((entry) => entry.state.id)), held.map((entries) => entries.map((entry) => entry.state.id)));
  });

  it('saveProgress() saves only what its owner holds, and names the rest as lost', async () => {
    const [mine] = await table.lease('run_a', LONG);
    const state = { ...mine!.state, cursor: { seq: 42, index: 1 }, attempts: 2, firstFailureMs: 1_700_000_000_000, deliveries: [{ message_id: 'msg_x_42_1', type: 'event.created', attempt: 2, status: 'failed' as const, response_status: 500, error: 'HTTP 500', at: '2026-11-25T10:00:00.000Z' }] };
    assert.deepEqual(await table.saveProgress('run_a', [{ state, version: mine!.version }]), []);
    assert.deepEqual((await table.get(state.id))!.state, state);
    assert.deepEqual(await table.saveProgress('run_b', [{ state: { ...state, attempts: 9 }, version: mine!.version }]), [state.id]);
    assert.equal((await table.get(state.id))!.state.attempts, 2, 'the other instance wrote nothing');
  });

  it('a webhook that became failing is saved so unless an admin set a status after the change its deliverer last applied', async () => {
    const [mine] = await table.lease('run_a', LONG);
    const failing = { ...mine!.state, status: 'failing' as const };
    const described = (await table.change(failing.id, { description: 'Signage' }))!;
    assert.deepEqual([described.version, described.statusVersion], [mine!.version + 1, mine!.statusVersion], 'a description sets no status');
    await table.saveProgress('run_a', [{ state: failing, version: mine!.version }]);
    assert.equal((await table.get(failing.id))!.state.status, 'failing', 'a change of description does not undo failing');
    const paused = (await table.change(failing.id, { status: 'paused' }))!;
    assert.equal(paused.statusVersion, paused.version);
    await table.saveProgress('run_a', [{ state: failing, version: described.version }]);
    assert.equal((await table.get(failing.id))!.state.status, 'paused', "the admin's status is newer than what the deliverer applied");
    await table.saveProgress('run_a', [{ state: failing, version: paused.version }]);
    assert.equal((await table.get(failing.id))!.state.status, 'failing', 'failing after the deliverer applied it');
    const revived = (await table.change(failing.id, { status: 'active' }))!;
    assert.deepEqual([revived.state.status, revived.state.attempts, revived.state.firstFailureMs], ['active', 0, null], 'active starts the schedule afresh');
  });

  it('a new url on an active webhook starts its schedule afresh in the table too (an instance taking it over does not wait out the old one); the same url, or a paused webhook, keeps it', async () => {
    const [mine] = await table.lease('run_a', LONG);
    const retrying = { ...mine!.state, attempts: 2, firstFailureMs: 1_700_000_000_000 };
    const scheduleOf = async (): Promise<[number, number | null]> => {
      const { state } = (await table.get(retrying.id))!;
      return [state.attempts, state.firstFailureMs];
    };
    await table.saveProgress('run_a', [{ state: retrying, version: mine!.version }]);
    await table.change(retrying.id, { url: retrying.url });
    assert.deepEqual(await scheduleOf(), [2, 1_700_000_000_000], 'the url sent back as read');
    await table.change(retrying.id, { status: 'paused' });
    await table.saveProgress('run_a', [{ state: { ...retrying, status: 'paused' }, version: (await table.get(retrying.id))!.version }]);
    await table.change(retrying.id, { url: 'http://127.0.0.1:9/paused' });
    assert.deepEqual(await scheduleOf(), [2, 1_700_000_000_000], 'paused: set active later, it starts afresh then');
    await table.change(retrying.id, { url: 'http://127.0.0.1:9/elsewhere', status: 'active' });
    assert.deepEqual(await scheduleOf(), [0, null]);
    await table.saveProgress('run_a', [{ state: { ...retrying, url: 'http://127.0.0.1:9/elsewhere' }, version: (await table.get(retrying.id))!.version }]);
    assert.deepEqual(await scheduleOf(), [2, 1_700_000_000_000]);
    await table.change(retrying.id, { url: 'http://127.0.0.1:9/fixed' });
    assert.deepEqual(await scheduleOf(), [0, null], 'a new url while active');
  });

  it('release() lets another instance take the webhooks at once; logId() is made once', async () => {
    await table.release('run_a');
    assert.deepEqual((await table.lease('run_b', LONG)).map((held) => held.state.id), [webhook(1).id]);
    assert.equal(await table.logId('first'), 'first');
    assert.equal(await table.logId('second'), 'first');
    assert.equal(await table.delete(webhook(1).id), true);
    assert.equal(await table.delete(webhook(1).id), false);
  });
});

describe('schema version 2', { skip }, () => {
  it('migrateSchema() brings a database of version 1 (made before webhooks were shared) to the newest, adding campus_webhooks', async () => {
    const db = await connect(await pg.database('schema_v1'));
    try {
      await db.query('CREATE TABLE campus_meta (name text PRIMARY KEY, value text NOT NULL)');
      await db.query('CREATE TABLE campus_log (seq bigint PRIMARY KEY, line text NOT NULL)');
      await db.query("INSERT INTO campus_meta VALUES ('schema_version', '1')");
      assert.deepEqual(await migrateSchema(db), { from: 1, to: SCHEMA_VERSION });
      assert.deepEqual(await db.query('SELECT count(*)::int AS n FROM campus_webhooks'), [{ n: 0 }]);
      assert.deepEqual(await migrateSchema(db), { from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    } finally {
      await db.end();
    }
  });
});
