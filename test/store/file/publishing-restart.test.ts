// Publishing (API.md §14) across starts: a data folder written before it starts unchanged with every event published;
// a restart and a compaction keep statuses, review notes, cancellation reasons and whether a draft was public (its
// tombstone for followers); the search index built from the log in a worker leaves drafts out as replay does.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openApp, type App } from '../../../src/app.js';
import { createKey } from '../../../src/auth/key-registry.js';
import type { FileStore } from '../../../src/store/file/file-store.js';
import { openFileStore } from '../../../src/store/file/open-file-store.js';
import { queryWords } from '../../../src/search/search-words.js';
import { call, type TestResponse } from '../../helpers/harness.js';
import { sampleRecord, tempDir } from '../helpers.js';
import { futureEvent } from '../../api/publishing-support.js';

/**
 * Written by the build of main at fd0c8b7, before API.md §14, through its HTTP core: three events (one created with an
 * Idempotency-Key, one edited, one deleted), registrations (checked in, cancelled, waitlisted then confirmed), and a
 * weekly series of three whose second occurrence was edited alone and third deleted.
 */
const BEFORE_PUBLISHING = path.join(import.meta.dirname, 'fixtures', 'before-publishing.jsonl');

async function keys(dir: string): Promise<{ admin: string; organizer: string; reader: string }> {
  const deps = { randomBytes, now: Date.now };
  return {
    admin: (await createKey(dir, { name: 'Ada Admin', email: 'ada@campus.edu', role: 'admin' }, deps)).secret,
    organizer: (await createKey(dir, { name: 'Olivia Organizer', email: 'olivia@campus.edu', role: 'organizer' }, deps)).secret,
    reader: (await createKey(dir, { name: 'Rita Reader', email: 'rita@campus.edu', role: 'reader' }, deps)).secret,
  };
}

function open(dir: string, approval: 'off' | 'required' = 'off'): Promise<App> {
  return openApp({ dataDir: dir, keyPollMs: 0, approval, bootstrapAdminKey: false }, { unsafeNoSync: true });
}

test('a data folder written before API.md §14 starts unchanged, every event published: listed, read, in the feeds, taking registrations', async (t) => {
  const dir = tempDir(t);
  copyFileSync(BEFORE_PUBLISHING, path.join(dir, 'events.jsonl'));
  const bytes = readFileSync(path.join(dir, 'events.jsonl'));
  const key = await keys(dir);
  const app = await open(dir, 'required');
  try {
    const list = (await call(app, 'GET', '/events?limit=100', { key: key.reader })).json;
    assert.deepEqual(list.events.map((event: { title: string }) => event.title), ['Old lecture', 'Old concert', 'Old seminar', 'Old seminar (moved)']);
    for (const event of list.events) assert.equal('status' in event, false, `${event.title} is published, in the shape of §4`);
    assert.equal((await call(app, 'GET', '/events?status=published&limit=100', { key: key.reader })).json.total, 4);
    assert.equal((await call(app, 'GET', '/events?status=draft,pending,cancelled', { key: key.admin })).json.total, 0);
    const series = (await call(app, 'GET', '/series', { key: key.reader })).json.series;
    assert.equal(series.length, 1);
    assert.equal('status' in series[0], false);
    const copy = (await call(app, 'GET', '/changes?since=0', { key: key.reader })).json;
    assert.equal(copy.changes.length, 4);
    const feed = (await call(app, 'GET', '/events.ics?start_date=2030-01-01', { key: key.reader })).text!;
    assert.equal(feed.split('STATUS:CONFIRMED').length - 1, 4);
    const concert = list.events[1];
    const roster = (await call(app, 'GET', `/events/${concert.id}/registrations`, { key: key.admin })).json;
    assert.deepEqual(roster.registrations.map((r: { name: string; status: string; checked_in_at: string | null }) => [r.name, r.status, r.checked_in_at !== null]), [['Ann', 'confirmed', true], ['Cy', 'confirmed', false]]);
    assert.equal((await call(app, 'POST', `/events/${concert.id}/registrations`, { key: key.reader, body: { name: 'Dee', email: 'dee@x.edu' } })).json.status, 'waitlisted');
    // An old event moves as a published one does: an organizer's restore waits for approval.
    const cancelled = await call(app, 'PUT', `/events/${concert.id}`, { key: key.organizer, body: { status: 'cancelled' } });
    assert.equal(cancelled.json.status, 'cancelled');
  } finally {
    await app.close();
  }
  assert.deepEqual(readFileSync(path.join(dir, 'events.jsonl')).subarray(0, bytes.length), bytes, 'the old lines are kept as they were');
});

/** What the statuses look like from outside: every answer a restart or a compaction must keep. */
async function snapshot(app: App, key: { admin: string; reader: string }, since: number): Promise<unknown[]> {
  const get = async (target: string, who = key.reader): Promise<TestResponse> => call(app, 'GET', target, { key: who });
  return [
    (await get('/events?status=draft,pending,published,cancelled&limit=100', key.admin)).json,
    (await get('/events?limit=100')).json,
    (await get('/changes?since=0')).json.changes.map((entry: { id: string; deleted: boolean }) => [entry.id, entry.deleted]),
    (await get(`/changes?since=${since}`)).json.changes.map((entry: { id: string; deleted: boolean; event: unknown }) => [entry.id, entry.deleted, entry.event]),
    (await get('/events?q=secret', key.admin)).json.total,
    (await get('/events?q=secret&status=draft,pending', key.admin)).json.total,
    (await get('/series?status=draft,pending,published,cancelled', key.admin)).json,
  ];
}

test('a restart and a compaction keep statuses, review notes, cancellation reasons, and the tombstone of an event no longer public', async (t) => {
  const dir = tempDir(t);
  const key = await keys(dir);
  let app = await open(dir, 'required');
  const post = async (who: string, body: Record<string, unknown>): Promise<string> => {
    const response = await call(app, 'POST', '/events', { key: who, body: futureEvent(body) });
    assert.equal(response.status, 201, response.text ?? '');
    return response.json.id;
  };
  const rejected = await post(key.organizer, { title: 'Secret draft' });
  await call(app, 'POST', `/events/${rejected}/reject`, { key: key.admin, body: { reason: 'Which room?' } });
  await post(key.organizer, { title: 'Secret pending' });
  const cancelled = await post(key.admin, { title: 'Called off' });
  await call(app, 'PUT', `/events/${cancelled}`, { key: key.admin, body: { status: 'cancelled', cancellation_reason: 'Snow' } });
  const hidden = await post(key.admin, { title: 'Secret once public', organizer: { name: 'Olivia Organizer', email: 'olivia@campus.edu' } });
  await call(app, 'POST', '/series', { key: key.organizer, body: { ...futureEvent({ title: 'Secret series' }), recurrence: 'FREQ=DAILY;COUNT=2' } });
  const since = (await call(app, 'GET', '/changes?since=0', { key: key.reader })).json.next_since;
  await call(app, 'PUT', `/events/${hidden}`, { key: key.organizer, body: { status: 'cancelled' } });
  // Restored by an organizer under approval: pending, out of public view. Followers since then must see it deleted.
  assert.equal((await call(app, 'PUT', `/events/${hidden}`, { key: key.organizer, body: { status: 'published' } })).json.status, 'pending');
  await call(app, 'PUT', `/events/${hidden}`, { key: key.organizer, body: { title: 'Secret once public, renamed' } });
  for (let n = 0; n < 5; n++) await call(app, 'PUT', `/events/${cancelled}`, { key: key.admin, body: { description: `Edit ${n}` } });
  const expected = await snapshot(app, key, since);
  const followers = expected[3] as [string, boolean, unknown][];
  assert.deepEqual(followers.find(([id]) => id === hidden), [hidden, true, null], 'a follower since before sees it deleted');
  assert.deepEqual(followers.map(([id]) => id).filter((id) => id !== hidden && id !== cancelled), [], 'and nothing of the drafts');
  await app.close();

  app = await open(dir, 'required');
  assert.deepEqual(await snapshot(app, key, since), expected, 'after a restart');
  const result = await (app.store as FileStore).compact();
  assert.ok(result !== undefined && result.linesAfter < result.linesBefore, 'the log was compacted');
  assert.deepEqual(await snapshot(app, key, since), expected, 'after a compaction');
  assert.equal((await call(app, 'GET', `/changes?since=${since}`, { key: key.reader })).status, 200, 'the tombstone stays: no 410 for a follower');
  await app.close();

  app = await open(dir, 'required');
  assert.deepEqual(await snapshot(app, key, since), expected, 'after a compaction and a restart');
  const note = (await call(app, 'GET', `/events/${rejected}`, { key: key.organizer })).json;
  assert.deepEqual([note.status, note.review_note], ['draft', 'Which room?']);
  const reason = (await call(app, 'GET', `/events/${cancelled}`, { key: key.reader })).json;
  assert.deepEqual([reason.status, reason.cancellation_reason], ['cancelled', 'Snow']);
  // Published again: a creation for followers, whose tombstone it replaces.
  await call(app, 'POST', `/events/${hidden}/approve`, { key: key.admin });
  const back = (await call(app, 'GET', `/changes?since=${since}`, { key: key.reader })).json.changes.find((entry: { id: string }) => entry.id === hidden);
  assert.equal(back.deleted, false);
  await app.close();
});

test('the search index built from the log in a worker leaves drafts and pending events out, and holds the cancelled, as the main thread does', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir, sync: false, searchWorker: false });
  const statuses = [undefined, 'cancelled', 'draft', 'pending'] as const;
  for (let n = 1; n <= 120; n++) {
    const status = statuses[n % 4];
    await store.write(`evt_${String(n).padStart(16, '0')}`, () => sampleRecord(n, { title: `Secret ${n % 7} night`, ...(status === undefined ? {} : { status }) }));
  }
  // Some move: a draft published, a published one made pending (hidden, once public).
  for (let n = 1; n <= 120; n += 9) await store.write(`evt_${String(n).padStart(16, '0')}`, () => sampleRecord(n, { title: `Secret moved ${n}`, status: n % 2 === 0 ? 'pending' : 'cancelled' }));
  await store.close();
  const answers = async (options: Parameters<typeof openFileStore>[0]['searchWorker']): Promise<{ by: string; answers: string[] }> => {
    let by = '';
    const opened = await openFileStore({ dataDir: dir, sync: false, searchWorker: options, logger: { info: (message, fields) => void (message === 'search index built' && (by = String(fields?.['by']))), warn() {} } });
    await opened.whenSearchReady();
    const found = ['secret', 'secret 3', 'moved', 'night'].map((q) => {
      const { events, total } = opened.list({ words: queryWords(q), page: 1, limit: 1000 });
      return `${q}: ${total} ${events.map((stored) => `${stored.id}:${stored.status ?? 'published'}`).join(',')}`;
    });
    await opened.close();
    return { by, answers: found };
  };
  const main = await answers(false);
  const worker = await answers({ minLogBytes: 0 });
  assert.match(worker.by, /worker thread/, `the worker's build was taken, not refused: ${worker.by}`);
  assert.deepEqual(worker.answers, main.answers);
  assert.ok(main.answers.every((line) => !/:draft|:pending/.test(line)), 'no draft or pending event is found');
  assert.ok(main.answers[0]!.includes(':cancelled'), 'cancelled ones are');
});
