// POST /series with an Idempotency-Key (API.md §9.3's rules, extended to a series: docs/decisions.md): a retry after
// a time-out gets the first answer again and makes no second set of occurrences, across a restart and a compaction.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import test from 'node:test';
import { openApp as openAppWith, type App } from '../../src/app.js';
import { createKey } from '../../src/auth/key-registry.js';
import type { FileStore } from '../../src/store/file/file-store.js';
import { call, eventBody, startHarness, tempDir } from '../helpers/harness.js';
import { assertError } from '../api/support.js';

/** Weekly for three weeks, from a Tuesday far ahead. */
function weekly(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...eventBody({ start_time: '2099-09-01T17:00:00Z', end_time: '2099-09-01T19:00:00Z' }), time_zone: 'UTC', recurrence: 'FREQ=WEEKLY;COUNT=3', ...overrides };
}

test('POST /series with an Idempotency-Key: a retry gets the first answer again, marked, and makes no second series', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const headers = { 'Idempotency-Key': 'term-1' };
  const first = await h.request('POST', '/series', { key: h.keys.organizer, body: weekly(), headers });
  assert.equal(first.status, 201, first.text ?? '');
  assert.equal(first.headers['Idempotent-Replayed'], undefined);
  const lines = (h.app.store as FileStore).stats.lines;
  // The series changed since: the retry still gets the answer as first given.
  assert.equal((await h.request('PUT', `/series/${first.json.id}`, { key: h.keys.organizer, body: { location: 'Hall B' } })).status, 200);
  const linesAfterEdit = (h.app.store as FileStore).stats.lines;
  assert.ok(linesAfterEdit > lines);
  const again = await h.request('POST', '/v1/series', { key: h.keys.organizer, body: weekly(), headers });
  assert.equal(again.status, 201);
  assert.equal(again.text, first.text, 'the same body, as first answered');
  assert.equal(again.headers['Idempotent-Replayed'], 'true');
  assert.equal(again.headers['ETag'], first.headers['ETag']);
  assert.equal(again.headers['Location'], `/v1${first.headers['Location']}`);
  assert.equal((h.app.store as FileStore).stats.lines, linesAfterEdit, 'nothing written');
  const list = await h.request('GET', '/series', { key: h.keys.organizer });
  assert.equal(list.json.total, 1, 'one series');
  assert.equal(h.app.store.size, 3, 'three occurrences, not six');
});

test('POST /series: the same Idempotency-Key with another body, or used before on POST /events, is a 422; another API key has its own', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const first = await h.request('POST', '/series', { key: h.keys.organizer, body: weekly(), headers: { 'Idempotency-Key': 'k' } });
  assert.equal(first.status, 201);
  assertError(await h.request('POST', '/series', { key: h.keys.organizer, body: weekly({ title: 'Other' }), headers: { 'Idempotency-Key': 'k' } }), 422, 'idempotency_key_reused');
  assert.equal((await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers: { 'Idempotency-Key': 'e' } })).status, 201);
  assertError(await h.request('POST', '/series', { key: h.keys.organizer, body: weekly(), headers: { 'Idempotency-Key': 'e' } }), 422, 'idempotency_key_reused');
  assertError(await h.request('POST', '/events', { key: h.keys.organizer, body: eventBody(), headers: { 'Idempotency-Key': 'k' } }), 422, 'idempotency_key_reused');
  const admin = await h.request('POST', '/series', { key: h.keys.admin, body: weekly(), headers: { 'Idempotency-Key': 'k' } });
  assert.equal(admin.status, 201);
  assert.notEqual(admin.json.id, first.json.id);
  assertError(await h.request('POST', '/series', { key: h.keys.organizer, body: weekly(), headers: { 'Idempotency-Key': '' } }), 400, 'bad_request');
  // A refused create is not remembered: fixed, it may use the same key.
  assertError(await h.request('POST', '/series', { key: h.keys.organizer, body: weekly({ recurrence: 'FREQ=SOMETIMES' }), headers: { 'Idempotency-Key': 'fixed' } }), 400, 'validation_failed');
  assert.equal((await h.request('POST', '/series', { key: h.keys.organizer, body: weekly({ title: 'Fixed' }), headers: { 'Idempotency-Key': 'fixed' } })).status, 201);
  assert.equal((await h.request('GET', '/series', { key: h.keys.admin })).json.total, 3);
});

test('POST /series: a retry while the first is still being written gets 409, then the first answer', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const headers = { 'Idempotency-Key': 'slow' };
  const sent = h.request('POST', '/series', { key: h.keys.organizer, body: weekly(), headers });
  const racing = h.request('POST', '/series', { key: h.keys.organizer, body: weekly(), headers });
  const answers = await Promise.all([sent, racing]);
  assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 409]);
  const later = await h.request('POST', '/series', { key: h.keys.organizer, body: weekly(), headers });
  assert.equal(later.headers['Idempotent-Replayed'], 'true');
  assert.equal(later.text, answers.find((answer) => answer.status === 201)!.text);
  assert.equal((await h.request('GET', '/series', { key: h.keys.organizer })).json.total, 1);
});

async function openApp(dir: string, now: () => number): Promise<App> {
  return openAppWith({ dataDir: dir, keyPollMs: 0, bootstrapAdminKey: false, now }, { unsafeNoSync: true });
}

test('POST /series: its answer survives a restart and a compaction, and is forgotten after 24 h', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  let at = Date.parse('2026-11-23T10:00:00.000Z');
  const now = (): number => at;
  const key = (await createKey(dir, { name: 'Olivia', email: 'olivia@campus.edu', role: 'organizer' }, { randomBytes, now })).secret;
  let app = await openApp(dir, now);
  const post = (): ReturnType<typeof call> => call(app, 'POST', '/series', { key, body: weekly(), headers: { 'Idempotency-Key': 'term' } });
  const first = await post();
  assert.equal(first.status, 201);
  await call(app, 'PUT', `/series/${first.json.id}`, { key, body: { title: 'Renamed' } });

  for (const step of ['a restart', 'a compaction and a restart']) {
    if (step !== 'a restart') await (app.store as FileStore).compact();
    await app.close();
    app = await openApp(dir, now);
    const again = await post();
    assert.equal(again.text, first.text, `replayed after ${step}: the series as first answered`);
    assert.equal(again.headers['Idempotent-Replayed'], 'true');
    assert.equal(again.headers['ETag'], first.headers['ETag'], `and its ETag, after ${step}`);
    assert.equal(app.store.size, 3);
  }

  at += 24 * 60 * 60 * 1000;
  const expired = await post();
  assert.equal(expired.status, 201);
  assert.equal(expired.headers['Idempotent-Replayed'], undefined, '24 h later the key is forgotten: a new series');
  assert.notEqual(expired.json.id, first.json.id);
  await app.close();
});
