// GET /changes as JSON (API.md §9.2): the query, paging, registrations as changes, and 410 across compaction and restart.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import test from 'node:test';
import { openApp as openAppWith, type App } from '../../src/app.js';
import { createKey } from '../../src/auth/key-registry.js';
import type { FileStore } from '../../src/store/file/file-store.js';
import { verifyLog } from '../../src/store/file/log-verify.js';
import { call, eventBody, startHarness, tempDir } from '../helpers/harness.js';
import { assertError, createEvent } from '../api/support.js';

test('GET /changes refuses a missing or bad since, a bad limit, an unknown parameter (400)', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  for (const target of ['/changes', '/changes?since=-1', '/changes?since=abc', '/changes?since=1.5', '/changes?since=0&limit=0', '/changes?since=0&limit=1001', '/changes?since=0&page=2', '/changes?since=0&since=1']) {
    assertError(await h.request('GET', target, { key: h.keys.reader }), 400, 'bad_request');
  }
  const stream = await h.request('GET', '/changes?since=0', { key: h.keys.reader, headers: { accept: 'text/event-stream', 'last-event-id': 'x' } });
  assertError(stream, 400, 'bad_request');
  assert.match(stream.json.message, /Last-Event-ID/);
});

test('GET /changes is open to every role (reader, organizer, admin) and needs a key', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  for (const key of [h.keys.reader, h.keys.organizer, h.keys.admin]) assert.equal((await h.request('GET', '/changes?since=0', { key })).status, 200);
  assertError(await h.request('GET', '/changes?since=0'), 401, 'unauthorized');
  const feedKey = (await createKey(h.dataDir, { name: 'Calendar', email: 'calendar@campus.edu', role: 'feed' }, { randomBytes, now: Date.now })).secret;
  const refused = await h.request('GET', '/changes?since=0', { key: feedKey });
  assertError(refused, 403, 'forbidden');
  assert.match(refused.json.message, /change feed/);
});

test('GET /changes gives each changed event once, its state now, in seq order, with next_since and more', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const empty = await h.request('GET', '/changes?since=0', { key: h.keys.reader });
  assert.deepEqual(empty.json, { changes: [], next_since: 0, more: false });
  const a = await createEvent(h, h.keys.organizer, { title: 'A' });
  const b = await createEvent(h, h.keys.organizer, { title: 'B' });
  const c = await createEvent(h, h.keys.organizer, { title: 'C' });
  await h.request('PUT', `/events/${a.id}`, { key: h.keys.organizer, body: { title: 'A2' } });
  await h.request('DELETE', `/events/${b.id}`, { key: h.keys.organizer });
  const all = await h.request('GET', '/changes?since=0', { key: h.keys.reader });
  assert.deepEqual(all.json.changes.map((entry: { id: string }) => entry.id), [c.id, a.id], 'since=0: live events only');
  assert.equal(all.json.changes[1].event.title, 'A2');
  assert.deepEqual(Object.keys(all.json.changes[0]), ['seq', 'id', 'deleted', 'event']);
  const read = await h.request('GET', `/events/${a.id}`, { key: h.keys.reader });
  assert.deepEqual(all.json.changes[1].event, read.json, 'the event has the shape of a single read');

  const first = await h.request('GET', '/changes?since=1&limit=2', { key: h.keys.reader });
  assert.deepEqual(first.json.changes.map((entry: { seq: number }) => entry.seq), [3, 4]);
  assert.equal(first.json.more, true);
  assert.equal(first.json.next_since, 4);
  const second = await h.request('GET', '/changes?since=4&limit=2', { key: h.keys.reader });
  assert.deepEqual(second.json.changes, [{ seq: 5, id: b.id, deleted: true, event: null }]);
  assert.equal(second.json.more, false);
  assert.equal(second.json.next_since, 5);
  // Every page says where the feed ends now (what next_since is once more is false), the first page of a copy too.
  assert.deepEqual([empty, first, second, await h.request('GET', '/changes?since=0&limit=1', { key: h.keys.reader })].map((page) => page.headers['Last-Seq']), ['0', '5', '5', '5']);
});

test('GET /changes: a registration that changes registered_count is a change of its event', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const event = await createEvent(h, h.keys.organizer, { capacity: 1, start_time: '2099-09-01T17:00:00Z', end_time: '2099-09-01T19:00:00Z' });
  const registered = await h.request('POST', `/events/${event.id}/registrations`, { key: h.keys.reader, body: { name: 'R', email: 'r@campus.edu' } });
  assert.equal(registered.status, 201, registered.text ?? '');
  const changes = await h.request('GET', '/changes?since=1', { key: h.keys.reader });
  assert.equal(changes.json.changes.length, 1);
  assert.equal(changes.json.changes[0].seq, 3, 'a confirming registration takes seq 2, the event seq 3');
  assert.equal(changes.json.changes[0].event.registered_count, 1);
  assert.equal(JSON.stringify(changes.json).includes('r@campus.edu'), false, 'attendees never appear');
});

/** An app over a folder that outlives it, for restarts. */
async function openApp(dir: string): Promise<App> {
  return openAppWith({ dataDir: dir, keyPollMs: 0, bootstrapAdminKey: false }, { unsafeNoSync: true });
}

test('GET /changes answers 410 before a deletion compaction dropped, and after the last write; both survive a restart', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const key = (await createKey(dir, { name: 'Ada', email: 'ada@campus.edu', role: 'admin' }, { randomBytes, now: Date.now })).secret;
  let app = await openApp(dir);
  const create = async (title: string): Promise<string> => (await call(app, 'POST', '/events', { key, body: eventBody({ title }) })).json.id;
  const a = await create('A');
  await create('B');
  await call(app, 'DELETE', `/events/${a}`, { key }); // seq 3
  assert.equal((await call(app, 'GET', '/changes?since=1', { key })).status, 200, 'the tombstone is still there');
  await (app.store as FileStore).compact();
  assertError(await call(app, 'GET', '/changes?since=1', { key }), 410, 'gone');
  assertError(await call(app, 'GET', '/changes?since=2', { key }), 410, 'gone');
  assert.equal((await call(app, 'GET', '/changes?since=3', { key })).status, 200, 'a client that saw the deletion goes on');
  assert.equal((await call(app, 'GET', '/changes?since=0', { key })).status, 200, 'since=0 always works');
  assertError(await call(app, 'GET', '/changes?since=4', { key }), 410, 'gone');
  assertError(await call(app, 'GET', '/changes?since=1000000000000000', { key }), 410, 'gone');
  const stream = await call(app, 'GET', '/changes?since=3', { key, headers: { accept: 'text/event-stream', 'last-event-id': '1' } });
  assertError(stream, 410, 'gone');

  await app.close();
  const report = await verifyLog(dir);
  assert.equal(report.lastSeq, 3, 'verify reads the mark line: the last seq is the dropped delete');
  assert.equal(report.liveEvents, 1);
  app = await openApp(dir);
  assertError(await call(app, 'GET', '/changes?since=2', { key }), 410, 'gone');
  assert.equal((await call(app, 'GET', '/changes?since=3', { key })).status, 200, 'the last seq (a dropped delete) survived the restart');
  const next = await call(app, 'POST', '/events', { key, body: eventBody({ title: 'C' }) });
  const after = await call(app, 'GET', '/changes?since=3', { key });
  assert.deepEqual(after.json.changes.map((entry: { id: string; seq: number }) => [entry.id, entry.seq]), [[next.json.id, 4]], 'no seq is reused');
  await app.close();
});

test('GET /changes: deletions not yet compacted survive a restart as tombstones', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const key = (await createKey(dir, { name: 'Ada', email: 'ada@campus.edu', role: 'admin' }, { randomBytes, now: Date.now })).secret;
  let app = await openApp(dir);
  const id = (await call(app, 'POST', '/events', { key, body: eventBody() })).json.id;
  await call(app, 'DELETE', `/events/${id}`, { key });
  await app.close();
  app = await openApp(dir);
  assert.deepEqual((await call(app, 'GET', '/changes?since=1', { key })).json.changes, [{ seq: 2, id, deleted: true, event: null }]);
  await app.close();
});
