// The admin routes of API.md §13 through the real app: answers, secrets shown once, and the errors of §3.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;

before(async () => {
  h = await startHarness({ webhookHosts: ['hooks.campus.edu', '*.signage.campus.edu', '127.0.0.1'] });
});

after(async () => {
  await h.close();
});

test('POST /webhooks answers 201 with the secret (whsec_ + base64 of 32 bytes), the default events and Location', async () => {
  const response = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'https://hooks.campus.edu/in', description: 'Chat' } });
  assert.equal(response.status, 201);
  const webhook = response.json;
  assert.match(webhook.id, /^whk_[0-9A-Za-z]{16,}$/);
  assert.match(webhook.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.equal(Buffer.from(webhook.secret.slice(6), 'base64').length, 32);
  assert.deepEqual(Object.keys(webhook), ['id', 'url', 'events', 'description', 'secret', 'created_at', 'status'], 'the fields in the order of API.md §13');
  assert.deepEqual(webhook.events, ['event.created', 'event.updated', 'event.deleted', 'registration.created', 'registration.cancelled', 'registration.promoted', 'registration.checked_in']);
  assert.equal(webhook.status, 'active');
  assert.equal(webhook.description, 'Chat');
  assert.equal(response.headers['Location'], `/webhooks/${webhook.id}`);
  const read = await h.request('GET', `/webhooks/${webhook.id}`, { key: h.keys.admin });
  assert.equal(read.status, 200);
  assert.equal(read.json.secret, undefined);
  assert.deepEqual(read.json, Object.fromEntries(Object.entries(webhook).filter(([field]) => field !== 'secret')));
  const list = await h.request('GET', '/webhooks', { key: h.keys.admin });
  assert.ok(list.json.webhooks.some((entry: { id: string; secret?: string }) => entry.id === webhook.id && entry.secret === undefined));
});

test('POST /webhooks refuses a host outside --webhook-hosts with a 400 naming it, and stores nothing', async () => {
  const before = (await h.request('GET', '/webhooks', { key: h.keys.admin })).json.webhooks.length;
  const response = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'https://evil.example.com/x' } });
  assert.equal(response.status, 400);
  assert.equal(response.json.error, 'validation_failed');
  assert.match(response.json.message, /evil\.example\.com/);
  assert.equal(response.json.details[0].field, 'url');
  const wildcard = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'http://hall.signage.campus.edu/x', events: ['event.deleted'] } });
  assert.equal(wildcard.status, 201);
  assert.equal((await h.request('GET', '/webhooks', { key: h.keys.admin })).json.webhooks.length, before + 1);
});

test('POST /webhooks refuses a URL the parser would quietly rewrite (spaces, controls, backslashes, a missing // or a third /), and stores nothing', async () => {
  const before = (await h.request('GET', '/webhooks', { key: h.keys.admin })).json.webhooks.length;
  for (const url of [' https://hooks.campus.edu/', 'https://hooks.campus.edu/\n', 'https://hooks.campus.edu\t/', 'http:hooks.campus.edu/', 'http:/hooks.campus.edu/', 'http:///hooks.campus.edu/', 'HTTPS:////hooks.campus.edu/', 'http://hooks.campus.edu\\@127.0.0.1/', 'https://hooks.campus.edu/a b', 'https://hooks.campus.edu/\u0085']) {
    const response = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url } });
    assert.equal(response.status, 400, JSON.stringify(url));
    assert.deepEqual(response.json.details.map((problem: { field: string }) => problem.field), ['url'], JSON.stringify(url));
    assert.match(response.json.details[0].message, /without spaces, control characters or backslashes/);
  }
  assert.equal((await h.request('GET', '/webhooks', { key: h.keys.admin })).json.webhooks.length, before);
  assert.equal((await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'HTTPS://hooks.campus.edu/a%20b?x=1#y' } })).status, 201, 'percent-encoded and upper-case is fine');
});

test('POST /webhooks lists every problem: bad scheme, unknown type, unknown and read-only fields', async () => {
  const response = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'ftp://hooks.campus.edu/', events: ['event.created', 'event.exploded'], secret: 'x', colour: 'red' } });
  assert.equal(response.status, 400);
  assert.equal(response.json.error, 'validation_failed');
  assert.deepEqual(response.json.details.map((problem: { field: string }) => problem.field).sort(), ['colour', 'events', 'secret', 'url']);
  const missing = await h.request('POST', '/webhooks', { key: h.keys.admin, body: {} });
  assert.deepEqual(missing.json.details, [{ field: 'url', message: 'url is required' }]);
  const long = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: `https://hooks.campus.edu/${'a'.repeat(2000)}` } });
  assert.match(long.json.details[0].message, /at most 2000 characters/);
  // Port 0 is no port a receiver can listen on: every delivery would fail.
  const portZero = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'http://hooks.campus.edu:0/in' } });
  assert.deepEqual([portZero.status, portZero.json.details], [400, [{ field: 'url', message: 'url must not name port 0, which no receiver can listen on' }]]);
});

test('only admin keys manage webhooks: organizer, reader and feed keys get 403, no key 401', async () => {
  for (const role of ['organizer', 'reader', 'feed'] as const) {
    const response = await h.request('GET', '/webhooks', { key: h.keys[role] });
    assert.equal(response.status, 403, role);
    assert.equal(response.json.error, 'forbidden');
    assert.equal((await h.request('POST', '/webhooks', { key: h.keys[role], body: { url: 'https://hooks.campus.edu/' } })).status, 403);
  }
  assert.equal((await h.request('GET', '/webhooks')).status, 401);
});

test('PUT /webhooks/{id} changes url, events, description and status; unknown ids are 404 naming the id before field errors', async () => {
  const created = (await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'https://hooks.campus.edu/a' } })).json;
  const changed = await h.request('PUT', `/webhooks/${created.id}`, { key: h.keys.admin, body: { url: 'https://hooks.campus.edu/b', events: ['event.created'], description: 'B', status: 'paused' } });
  assert.equal(changed.status, 200);
  assert.deepEqual([changed.json.url, changed.json.events, changed.json.description, changed.json.status], ['https://hooks.campus.edu/b', ['event.created'], 'B', 'paused']);
  const failing = await h.request('PUT', `/webhooks/${created.id}`, { key: h.keys.admin, body: { status: 'failing' } });
  assert.equal(failing.status, 400);
  assert.equal(failing.json.details[0].field, 'status');
  const unknown = await h.request('PUT', '/webhooks/whk_0000000000000000', { key: h.keys.admin, body: { status: 'nope' } });
  assert.equal(unknown.status, 404);
  assert.match(unknown.json.message, /whk_0000000000000000/);
  assert.equal((await h.request('GET', '/webhooks/whk_0000000000000000/deliveries', { key: h.keys.admin })).status, 404);
});

test('PUT /webhooks/{id} takes back what GET gave (id, created_at, status unchanged), and refuses them changed as read-only', async () => {
  const made = (await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'https://hooks.campus.edu/back' } })).json;
  const read = (await h.request('GET', `/webhooks/${made.id}`, { key: h.keys.admin })).json;
  const back = await h.request('PUT', `/webhooks/${made.id}`, { key: h.keys.admin, body: { ...read, description: 'Signage' } });
  assert.equal(back.status, 200, JSON.stringify(back.json));
  assert.deepEqual(back.json, { ...read, description: 'Signage' });
  const changed = await h.request('PUT', `/webhooks/${made.id}`, { key: h.keys.admin, body: { ...read, id: 'whk_0000000000000000', created_at: '2020-01-01T00:00:00.000Z' } });
  assert.equal(changed.status, 400);
  assert.deepEqual(changed.json.details, [{ field: 'id', message: 'id is read-only' }, { field: 'created_at', message: 'created_at is read-only' }]);
  assert.equal((await h.request('GET', `/webhooks/${made.id}`, { key: h.keys.admin })).json.description, 'Signage');
});

test('DELETE /webhooks/{id} answers 204, then the webhook is gone (404)', async () => {
  const created = (await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'https://hooks.campus.edu/gone' } })).json;
  assert.equal((await h.request('DELETE', `/webhooks/${created.id}`, { key: h.keys.admin })).status, 204);
  assert.equal((await h.request('GET', `/webhooks/${created.id}`, { key: h.keys.admin })).status, 404);
  assert.equal((await h.request('DELETE', `/webhooks/${created.id}`, { key: h.keys.admin })).status, 404);
});

test('two DELETEs of one webhook at once: one 204, the other 404', async () => {
  const created = (await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'https://hooks.campus.edu/twice' } })).json;
  const answers = await Promise.all([1, 2].map(() => h.request('DELETE', `/webhooks/${created.id}`, { key: h.keys.admin })));
  assert.deepEqual(answers.map((answer) => answer.status).sort(), [204, 404]);
});

test('a webhook has an ETag: a PUT or DELETE with a stale If-Match is a 412 that changes nothing; with the current one it goes through', async () => {
  const created = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'https://hooks.campus.edu/tagged', description: 'Signage' } });
  const { id } = created.json;
  const first = created.headers['ETag']!;
  assert.match(first, /^"[A-Za-z0-9_-]{22}"$/);
  const read = await h.request('GET', `/webhooks/${id}`, { key: h.keys.admin });
  assert.equal(read.headers['ETag'], first, 'the same webhook in the same state: the same ETag');
  assert.equal((await h.request('GET', `/webhooks/${id}`, { key: h.keys.admin, headers: { 'If-None-Match': first } })).status, 304);

  const changed = await h.request('PUT', `/webhooks/${id}`, { key: h.keys.admin, body: { description: 'Hall screens' }, headers: { 'If-Match': first } });
  assert.equal(changed.status, 200);
  const second = changed.headers['ETag']!;
  assert.notEqual(second, first, 'a change, a new ETag');
  assert.equal((await h.request('GET', `/webhooks/${id}`, { key: h.keys.admin })).headers['ETag'], second);

  // Another admin's PUT read before that change: refused, and the webhook stays as it was.
  const stale = await h.request('PUT', `/webhooks/${id}`, { key: h.keys.admin, body: { description: 'Lobby' }, headers: { 'If-Match': first } });
  assert.equal(stale.status, 412);
  assert.equal(stale.json.error, 'precondition_failed');
  assert.match(stale.json.message, new RegExp(`webhook "${id}"`));
  // §3's order: an unknown id (404) before If-Match, and If-Match (412) before the fields (400).
  assert.equal((await h.request('PUT', '/webhooks/whk_0000000000000000000000', { key: h.keys.admin, body: { description: 'x' }, headers: { 'If-Match': first } })).status, 404);
  assert.equal((await h.request('PUT', `/webhooks/${id}`, { key: h.keys.admin, body: { events: ['nope'] }, headers: { 'If-Match': first } })).status, 412);
  assert.equal((await h.request('DELETE', `/webhooks/${id}`, { key: h.keys.admin, headers: { 'If-Match': first } })).status, 412);
  const now = await h.request('GET', `/webhooks/${id}`, { key: h.keys.admin });
  assert.deepEqual([now.json.description, now.headers['ETag']], ['Hall screens', second], 'nothing changed by a refused request');

  assert.equal((await h.request('DELETE', `/webhooks/${id}`, { key: h.keys.admin, headers: { 'If-Match': second } })).status, 204);
  assert.equal((await h.request('GET', `/webhooks/${id}`, { key: h.keys.admin })).status, 404);
});

test('two PUTs of one webhook at once with the same If-Match: one 200, the other 412, and the webhook is the first one\'s', async () => {
  const created = await h.request('POST', '/webhooks', { key: h.keys.admin, body: { url: 'https://hooks.campus.edu/race' } });
  const etag = created.headers['ETag']!;
  const answers = await Promise.all(['One', 'Two'].map((description) => h.request('PUT', `/webhooks/${created.json.id}`, { key: h.keys.admin, body: { description }, headers: { 'If-Match': etag } })));
  assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 412]);
  const winner = answers.find((answer) => answer.status === 200)!;
  assert.deepEqual((await h.request('GET', `/webhooks/${created.json.id}`, { key: h.keys.admin })).json.description, winner.json.description);
});

test('no host is allowed by default: every url is a 400 naming its host', async () => {
  const bare = await startHarness();
  try {
    const response = await bare.request('POST', '/webhooks', { key: bare.keys.admin, body: { url: 'http://127.0.0.1:9/x' } });
    assert.equal(response.status, 400);
    assert.match(response.json.message, /127\.0\.0\.1.*--webhook-hosts/);
  } finally {
    await bare.close();
  }
});

test('a webhook that cannot be saved is a 503 and leaves nothing behind: not created, not changed, not deleted, nor moved in the list', async () => {
  const local = await startHarness({ webhookHosts: ['hooks.campus.edu'] });
  const blocker = path.join(local.dataDir, 'webhooks.json.tmp');
  try {
    const kept = (await local.request('POST', '/webhooks', { key: local.keys.admin, body: { url: 'https://hooks.campus.edu/kept' } })).json;
    const later = (await local.request('POST', '/webhooks', { key: local.keys.admin, body: { url: 'https://hooks.campus.edu/later' } })).json;
    // A folder where the temporary file goes: the save fails (EISDIR) as a full or broken disk would make it.
    mkdirSync(blocker);
    const refused = await local.request('POST', '/webhooks', { key: local.keys.admin, body: { url: 'https://hooks.campus.edu/new' } });
    assert.equal(refused.status, 503);
    assert.equal(refused.json.error, 'unavailable');
    const changed = await local.request('PUT', `/webhooks/${kept.id}`, { key: local.keys.admin, body: { url: 'https://hooks.campus.edu/moved', status: 'paused' } });
    assert.equal(changed.status, 503);
    assert.equal((await local.request('DELETE', `/webhooks/${kept.id}`, { key: local.keys.admin })).status, 503);
    const list = (await local.request('GET', '/webhooks', { key: local.keys.admin })).json.webhooks;
    assert.deepEqual(list.map((webhook: { id: string; url: string; status: string }) => [webhook.id, webhook.url, webhook.status]), [
      [kept.id, 'https://hooks.campus.edu/kept', 'active'],
      [later.id, 'https://hooks.campus.edu/later', 'active'],
    ], 'oldest first, as before the refused delete');
    rmSync(blocker, { recursive: true });
    const saved = JSON.parse(readFileSync(path.join(local.dataDir, 'webhooks.json'), 'utf8'));
    assert.deepEqual(saved.webhooks.map((webhook: { id: string }) => webhook.id), [kept.id, later.id]);
    // The next save writes the list in that order too, so a restart reads it back oldest first.
    assert.equal((await local.request('PUT', `/webhooks/${later.id}`, { key: local.keys.admin, body: { description: 'saved' } })).status, 200);
    const resaved = JSON.parse(readFileSync(path.join(local.dataDir, 'webhooks.json'), 'utf8'));
    assert.deepEqual(resaved.webhooks.map((webhook: { id: string }) => webhook.id), [kept.id, later.id]);
  } finally {
    await local.close();
  }
});
