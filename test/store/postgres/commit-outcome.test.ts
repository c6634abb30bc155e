// A write batch whose COMMIT answer was lost: what a look at the database says, and resolveCommit against a real server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect, type Database } from '../../../src/store/postgres/client.js';
import { resolveCommit, verdictOf } from '../../../src/store/postgres/commit-outcome.js';
import { migrateSchema } from '../../../src/store/postgres/schema.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';

describe('verdictOf', () => {
  const ours = { firstSeq: 7, firstLine: '{"seq":7,"op":"put"}\n' };
  const none = { checkpoint: null };
  it('is committed only when the batch\'s first row is there, its own line', () => {
    assert.equal(verdictOf({ sameServer: true, status: 'committed', line: ours.firstLine, ...none }, ours), 'committed');
    assert.equal(verdictOf({ sameServer: false, status: null, line: ours.firstLine, ...none }, ours), 'committed');
  });
  it('is aborted when another line took the seq, when the transaction aborted, or when another server answers without the row', () => {
    assert.equal(verdictOf({ sameServer: true, status: 'in progress', line: '{"seq":7,"op":"del"}\n', ...none }, ours), 'aborted');
    assert.equal(verdictOf({ sameServer: true, status: 'aborted', line: null, ...none }, ours), 'aborted');
    assert.equal(verdictOf({ sameServer: false, status: null, line: null, ...none }, ours), 'aborted');
  });
  it('after a checkpoint dropped the seq\'s row: committed or aborted as txid_status says on the same server, pending on another', () => {
    assert.equal(verdictOf({ sameServer: true, status: 'committed', line: null, checkpoint: 7 }, ours), 'committed');
    assert.equal(verdictOf({ sameServer: true, status: 'aborted', line: null, checkpoint: 9 }, ours), 'aborted');
    assert.equal(verdictOf({ sameServer: true, status: 'in progress', line: null, checkpoint: 9 }, ours), 'pending');
    assert.equal(verdictOf({ sameServer: false, status: null, line: null, checkpoint: 9 }, ours), 'pending');
    // An older checkpoint says nothing of this seq.
    assert.equal(verdictOf({ sameServer: false, status: null, line: null, checkpoint: 6 }, ours), 'aborted');
  });
  it('is pending while the transaction runs, or says committed before its row is visible (a commit waiting for a synchronous standby)', () => {
    assert.equal(verdictOf({ sameServer: true, status: 'in progress', line: null, ...none }, ours), 'pending');
    assert.equal(verdictOf({ sameServer: true, status: 'committed', line: null, ...none }, ours), 'pending');
    assert.equal(verdictOf({ sameServer: true, status: null, line: null, ...none }, ours), 'pending');
  });
});

const pg = usePostgres();

describe('resolveCommit on one database', { skip, timeout: 60_000 }, () => {
  /** Opens a transaction that writes `line` at `seq` and stops before COMMIT; returns its id, its server, and the way to end it. */
  async function openBatch(db: Database, seq: number, line: string): Promise<{ xid: number; server: string; end(commit: boolean): Promise<void> }> {
    let end!: (commit: boolean) => void;
    const decided = new Promise<boolean>((resolve) => (end = resolve));
    let ready!: (value: { xid: number; server: string }) => void;
    const opened = new Promise<{ xid: number; server: string }>((resolve) => (ready = resolve));
    const done = db.transaction(async (tx) => {
      const xid = (tx.firstRows[0] as { xid: number }).xid;
      await tx.query('INSERT INTO campus_log (seq, line) VALUES ($1, $2)', [seq, line]);
      ready({ xid, server: tx.server });
      if (!(await decided)) throw new Error('rolled back on purpose');
    }, 'SELECT txid_current()::float8 AS xid').catch(() => undefined);
    return { ...(await opened), end: async (commit) => { end(commit); await done; } };
  }

  it('answers committed for a batch that committed, aborted for one rolled back, and unknown for one still open at the deadline', async () => {
    const db = await connect(await pg.database('outcome'));
    try {
      await migrateSchema(db);
      const line = (seq: number): string => `{"seq":${seq},"op":"put"}\n`;
      const committed = await openBatch(db, 1, line(1));
      await committed.end(true);
      assert.equal(await resolveCommit(db, { ...committed, firstSeq: 1, firstLine: line(1) }, Date.now() + 5_000), 'committed');
      const aborted = await openBatch(db, 2, line(2));
      await aborted.end(false);
      assert.equal(await resolveCommit(db, { ...aborted, firstSeq: 2, firstLine: line(2) }, Date.now() + 5_000), 'aborted');
      // Still open: in progress until the deadline, then unknown; the clock is injected, so no real wait.
      const open = await openBatch(db, 3, line(3));
      let clock = 0;
      const verdict = await resolveCommit(db, { ...open, firstSeq: 3, firstLine: line(3) }, 1_000, { now: () => clock, sleep: async (ms) => void (clock += ms) });
      assert.equal(verdict, 'unknown');
      // Committed meanwhile: the next look finds its row.
      const resolving = resolveCommit(db, { ...open, firstSeq: 3, firstLine: line(3) }, Date.now() + 5_000);
      await open.end(true);
      assert.equal(await resolving, 'committed');
      // A server that is not the one the batch ran on (restarted, or a promoted standby), and no row: never committed there.
      assert.equal(await resolveCommit(db, { xid: open.xid, server: 'another server', firstSeq: 4, firstLine: line(4) }, Date.now() + 5_000), 'aborted');
    } finally {
      await db.end();
    }
  });
});
