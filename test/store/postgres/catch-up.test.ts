// catchUp() taking in a checkpoint another instance wrote: every instance's change feed then answers the 410 and `copy`
// rules of API.md §9.2 alike (the writer, one running meanwhile, one started later), as a data folder after compaction.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openApp, type App } from '../../../src/app.js';
import type { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { call } from '../../helpers/harness.js';
import { waitUntil } from './checkpoint-helpers.js';

const pg = usePostgres();

function appOn(url: string): Promise<App> {
  return openApp({ store: url, console: false, rateLimit: 1_000_000, compactMinBytes: Number.MAX_SAFE_INTEGER }, {});
}

const storeOf = (app: App): PostgresStore => app.store as PostgresStore;

describe('the change feed across a checkpoint', { skip, timeout: 60_000 }, () => {
  it('every instance answers 410 before the newest deletion it forgot, goes on after it, and stops only the copies that could miss a deletion', async () => {
    const url = await pg.database('feed_across');
    const writer = await appOn(url);
    const running = await appOn(url);
    const apps = [writer, running];
    try {
      const key = writer.initialAdminKey!;
      const get = async (app: App, target: string): Promise<{ status: number; text: string; json: Record<string, unknown> }> => {
        const answer = await call(app, 'GET', target, { key });
        return { status: answer.status, text: answer.text!, json: answer.json };
      };
      const ids: string[] = [];
      for (let n = 1; n <= 10; n++) ids.push((await call(writer, 'POST', '/events', { key, body: { title: `E${n}`, category: 'social', location: 'Quad', start_time: '2031-05-01T10:00:00Z', end_time: '2031-05-01T12:00:00Z', capacity: 5 } })).json.id);
      const del = async (n: number): Promise<number> => {
        assert.equal((await call(writer, 'DELETE', `/events/${ids[n - 1]}`, { key })).status, 204);
        return storeOf(writer).lastSeq;
      };
      const firstDeletion = await del(2);
      await del(5);
      await waitUntil('the running instance reads every write', () => storeOf(running).lastSeq === storeOf(writer).lastSeq);
      // A copy begun before the last deletion, and one begun after it.
      const before = await get(running, '/changes?since=0&limit=3');
      assert.equal(before.json['more'], true);
      const lastDeletion = await del(7);
      await waitUntil('the running instance reads every write', () => storeOf(running).lastSeq === storeOf(writer).lastSeq);
      const after = await get(running, '/changes?since=0&limit=3');
      const created = (await call(writer, 'POST', '/events', { key, body: { title: 'E11', category: 'social', location: 'Quad', start_time: '2031-05-02T10:00:00Z', end_time: '2031-05-02T12:00:00Z', capacity: 5 } })).json.id as string;
      const newest = storeOf(writer).lastSeq;
      await waitUntil('the running instance reads every write', () => storeOf(running).lastSeq === newest);
      // Before the checkpoint a follower behind the deletions is told of them.
      const told = await get(running, `/changes?since=${firstDeletion}`);
      assert.equal(told.status, 200);
      assert.deepEqual((told.json['changes'] as { deleted: boolean }[]).map((change) => change.deleted), [true, true, false]);

      const outcome = await storeOf(writer).checkpoint();
      assert.ok('written' in outcome && outcome.written.seq === newest && outcome.written.gone === lastDeletion, JSON.stringify(outcome));
      await waitUntil('the running instance takes the checkpoint in', () => storeOf(running).checkpointSeen.seq === newest);
      const later = await appOn(url);
      apps.push(later);

      const expectations: [string, number][] = [
        ['/changes?since=0&limit=100', 200],
        [`/changes?since=${firstDeletion}`, 410],
        [`/changes?since=${lastDeletion - 1}`, 410],
        [`/changes?since=${lastDeletion}`, 200],
        [`/changes?since=${newest}`, 200],
        [`/changes?since=${newest + 1}`, 410],
        // The copy begun before the last deletion could miss it; the one begun after it goes on.
        [`/changes?since=${before.json['next_since']}&limit=3&copy=${before.json['copy']}`, 410],
        [`/changes?since=${after.json['next_since']}&limit=3&copy=${after.json['copy']}`, 200],
      ];
      for (const [target, status] of expectations) {
        const answers = await Promise.all(apps.map((app) => get(app, target)));
        assert.deepEqual(answers.map((answer) => answer.status), apps.map(() => status), `${target}: ${answers.map((answer) => answer.text).join(' | ')}`);
        for (const answer of answers.slice(1)) assert.equal(answer.text, answers[0]!.text, `${target}: every instance answers alike`);
      }
      const full = await get(later, '/changes?since=0&limit=100');
      assert.deepEqual((full.json['changes'] as { id: string }[]).map((change) => change.id).sort(), [...ids.filter((_, i) => ![1, 4, 6].includes(i)), created].sort(), 'since=0: every live event, no deletion');
      const tail = await get(later, `/changes?since=${lastDeletion}`);
      assert.deepEqual((tail.json['changes'] as { id: string }[]).map((change) => change.id), [created]);
      assert.equal(tail.json['next_since'], newest, 'a follower goes on from the newest write, past the checkpoint');
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});
