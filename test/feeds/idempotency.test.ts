// Safe retries (API.md §9.3) in process, with an injected clock: replay, reuse, in flight, expiry, scope, restart, compaction.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import test from 'node:test';
import { openApp as openAppWith, type App } from '../../src/app.js';
import { createKey } from '../../src/auth/key-registry.js';
import type { FileStore } from '../../src/store/file/file-store.js';
import { TestFileSystem } from '../store/helpers.js';
import { call, eventBody, startHarness, tempDir } from '../helpers/harness.js';
import { assertError } from '../api/support.js';

const FUTURE = { start_time: '2099-09-01T17:00:00Z', end_time: '2099-09-01T19:00:00Z' };
const DAY_MS = 24 * 60 * 60 * 1000;

/** A clock the test moves. */
function testClock(start = Date.parse('2026-11-23T10:00:00.000Z')): { now: () => number; advance: (ms: number) => void } {
  let at = start;
  return { now: () => at, advance: (ms) => (at += ms) };
}

test('POST /events with an Idempotency-Key: a retry gets the first answer again, marked, and writes nothing', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const headers = { 'Idempotency-Key': 'create-1' };
  const first = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers });
  assert.equal(first.status, 201);
  assert.equal(first.headers['Idempotent-Replayed'], undefined);
  const lines = (h.app.store as FileStore).stats.lines;
  const again = await h.request('POST', '/v1/events', { key: h.keys.organizer, body: eventBody(), headers });
  assert.equal(again.status, 201);
  assert.equal(again.text, first.text, 'the same body');
  assert.equal(again.headers['Idempotent-Replayed'], 'true');
  assert.equal(again.headers['ETag'], first.headers['ETag']);
  assert.equal(again.headers['Location'], `/v1${first.headers['Location']}`, 'Location keeps the prefix of the retry');
  assert.equal((h.app.store as FileStore).stats.lines, lines, 'nothing written');
  assert.equal(h.app.store.size, 1);
});

test('POST /events/{id}/registrations with an Idempotency-Key: a retry gets the first answer, even after the registration changed', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const event = (await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ ...FUTURE, capacity: 1 }) })).json;
  const headers = { 'Idempotency-Key': 'reg-1' };
  const body = { name: 'Rita', email: 'rita@campus.edu' };
  const first = await h.request('POST', `/events/${event.id}/registrations`, { key: h.keys.reader, body, headers });
  assert.equal(first.status, 201, first.text ?? '');
  await h.request('POST', `/events/${event.id}/registrations/${first.json.id}/check-in`, { key: h.keys.organizer, body: {} });
  const again = await h.request('POST', `/events/${event.id}/registrations`, { key: h.keys.reader, body, headers });
  assert.equal(again.status, 201);
  assert.equal(again.text, first.text);
  assert.equal(again.headers['Idempotent-Replayed'], 'true');
  assert.equal(again.headers['Location'], first.headers['Location']);
  assert.equal(h.app.store.roster(event.id).confirmed, 1);
});

test('POST /events/{id}/registrations: a retry after the event was deleted still gets the first answer; another request is a 404', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const event = (await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(FUTURE) })).json;
  const headers = { 'Idempotency-Key': 'reg-gone' };
  const body = { name: 'Rita', email: 'rita@campus.edu' };
  const first = await h.request('POST', `/events/${event.id}/registrations`, { key: h.keys.reader, body, headers });
  assert.equal(first.status, 201, first.text ?? '');
  assert.equal((await h.request('DELETE', `/events/${event.id}`, { key: h.keys.organizer })).status, 204);
  const again = await h.request('POST', `/events/${event.id}/registrations`, { key: h.keys.reader, body, headers });
  assert.equal(again.status, 201, again.text ?? '');
  assert.equal(again.text, first.text);
  assert.equal(again.headers['Idempotent-Replayed'], 'true');
  assertError(await h.request('POST', `/events/${event.id}/registrations`, { key: h.keys.reader, body: { ...body, name: 'Rita B' }, headers }), 404, 'not_found');
  assertError(await h.request('POST', `/events/${event.id}/registrations`, { key: h.keys.organizer, body, headers }), 404, 'not_found');
});

test('Idempotency-Key: the same key with other body bytes or on another path is 422; another API key has its own keys', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const headers = { 'Idempotency-Key': 'k' };
  const first = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers });
  assert.equal(first.status, 201);
  assertError(await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ title: 'Other' }), headers }), 422, 'idempotency_key_reused');
  assertError(await h.request('POST', '/events', { key: h.keys.organizer, body: JSON.stringify(eventBody()) + ' ', headers: { ...headers, 'content-type': 'application/json' } }), 422, 'idempotency_key_reused');
  assertError(await h.request('POST', `/events/${first.json.id}/registrations`, { key: h.keys.organizer, body: { name: 'O', email: 'o@campus.edu' }, headers }), 422, 'idempotency_key_reused');
  const other = await h.request('POST', '/events', { key: h.keys.other, body: eventBody(), headers });
  assert.equal(other.status, 201);
  assert.notEqual(other.json.id, first.json.id);
  assert.equal(other.headers['Idempotent-Replayed'], undefined);
});

test('Idempotency-Key must be 1 to 255 printable ASCII characters (400)', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  for (const key of ['', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
    const response = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers: { 'Idempotency-Key': key } });
    assertError(response, 400, 'bad_request');
    assert.match(response.json.message, /Idempotency-Key/);
  }
  assert.equal((await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers: { 'Idempotency-Key': ` ${'~'.repeat(254)}` } })).status, 201);
});

test('Idempotency-Key keeps the order of API.md §3: 404 and JSON 400 before 422; 422 before field validation', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const headers = { 'Idempotency-Key': 'order' };
  const event = (await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(FUTURE), headers })).json;
  assertError(await h.request('POST', '/events/evt_0000000000000000000000/registrations', { key: h.keys.organizer, body: { name: 'A', email: 'a@campus.edu' }, headers }), 404, 'not_found');
  assertError(await h.request('POST', '/events', { key: h.keys.organizer, body: '{bad', headers: { ...headers, 'content-type': 'application/json' } }), 400, 'bad_request');
  assertError(await h.request('POST', '/events', { key: h.keys.organizer, body: { title: '' }, headers }), 422, 'idempotency_key_reused');
  assert.ok(event.id);
});

test('Idempotency-Key: only a 201 is remembered, so a fixed request may retry with the same key', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const headers = { 'Idempotency-Key': 'fix-me' };
  assertError(await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ capacity: -1 }), headers }), 400, 'validation_failed');
  const fixed = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers });
  assert.equal(fixed.status, 201);
  assert.equal(fixed.headers['Idempotent-Replayed'], undefined);
});

test('Idempotency-Key: a retry while the first is being written gets 409, then the first answer', async (t) => {
  const fileSystem = new TestFileSystem({ noSync: true });
  const h = await startHarness({}, { fileSystem, unsafeNoSync: false });
  t.after(() => h.close());
  const headers = { 'Idempotency-Key': 'slow' };
  fileSystem.holdSyncs();
  const syncing = fileSystem.nextSync();
  const first = h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers });
  await syncing;
  const racing = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers });
  assertError(racing, 409, 'conflict');
  assert.ok(racing.headers['Retry-After']);
  assertError(await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ title: 'Else' }), headers }), 422, 'idempotency_key_reused');
  fileSystem.release();
  const answered = await first;
  assert.equal(answered.status, 201);
  const after = await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers });
  assert.equal(after.text, answered.text);
  assert.equal(after.headers['Idempotent-Replayed'], 'true');
});

test('Idempotency-Key: a failed write is not remembered (the retry writes)', async (t) => {
  const fileSystem = new TestFileSystem({ noSync: true, failSyncAt: 1 });
  const h = await startHarness({}, { fileSystem, unsafeNoSync: false });
  t.after(() => h.close());
  assertError(await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers: { 'Idempotency-Key': 'f' } }), 503, 'unavailable');
  assert.equal(h.app.store.rememberedAnswer('any', 'f', Date.now()), undefined);
});

async function openApp(dir: string, now: () => number): Promise<App> {
  return openAppWith({ dataDir: dir, keyPollMs: 0, bootstrapAdminKey: false, now }, { unsafeNoSync: true });
}

test('Idempotency-Key answers are forgotten after 24 h, and survive a restart and a compaction until then', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const clock = testClock();
  const key = (await createKey(dir, { name: 'Olivia', email: 'olivia@campus.edu', role: 'organizer' }, { randomBytes, now: clock.now })).secret;
  let app = await openApp(dir, clock.now);
  const post = (name: string, title = 'T'): ReturnType<typeof call> => call(app, 'POST', '/events', { key, body: eventBody({ title, ...FUTURE }), headers: { 'Idempotency-Key': name } });
  const first = await post('a');
  const event = (await call(app, 'POST', `/events/${first.json.id}/registrations`, { key, body: { name: 'R', email: 'r@campus.edu' }, headers: { 'Idempotency-Key': 'r' } })).json;
  await call(app, 'PUT', `/events/${first.json.id}`, { key, body: { title: 'Changed' } });
  clock.advance(12 * 60 * 60 * 1000);
  const young = await post('b');

  await app.close();
  app = await openApp(dir, clock.now);
  assert.equal((await post('a')).text, first.text, 'replayed after a restart: the body as first answered, not the event now');
  assert.equal((await post('a')).headers['Idempotent-Replayed'], 'true');
  assert.equal((await post('a')).headers['ETag'], first.headers['ETag'], 'and its ETag');

  await (app.store as FileStore).compact();
  await app.close();
  app = await openApp(dir, clock.now);
  assert.equal((await post('a')).text, first.text, 'replayed after a compaction and a restart');
  assert.equal((await post('a')).headers['ETag'], first.headers['ETag'], 'and its ETag');
  const registration = await call(app, 'POST', `/events/${first.json.id}/registrations`, { key, body: { name: 'R', email: 'r@campus.edu' }, headers: { 'Idempotency-Key': 'r' } });
  assert.equal(registration.json.id, event.id);
  assert.equal(registration.headers['Idempotent-Replayed'], 'true');

  clock.advance(12 * 60 * 60 * 1000);
  const expired = await post('a');
  assert.equal(expired.status, 201);
  assert.equal(expired.headers['Idempotent-Replayed'], undefined, '24 h later the key is forgotten: a new event');
  assert.notEqual(expired.json.id, first.json.id);
  assert.equal((await post('b')).text, young.text, 'the younger answer is still remembered');

  await (app.store as FileStore).compact();
  clock.advance(DAY_MS);
  await app.close();
  app = await openApp(dir, clock.now);
  assert.equal((await post('b')).headers['Idempotent-Replayed'], undefined, 'an answer older than 24 h is not rebuilt from the log');
  await app.close();
});
