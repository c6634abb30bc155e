// A paged full copy of GET /changes (API.md §9.2) finishes across compactions: copy tokens, and next_since of the last page.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import test from 'node:test';
import { openApp as openAppWith, type App } from '../../src/app.js';
import { createKey } from '../../src/auth/key-registry.js';
import type { FileStore } from '../../src/store/file/file-store.js';
import { call, eventBody, tempDir, type TestResponse } from '../helpers/harness.js';
import { assertError } from '../api/support.js';
import { mulberry32 } from '../helpers/random.js';

interface Entry {
  seq: number;
  id: string;
  deleted: boolean;
  event: { id: string; title: string } | null;
}

interface Folder {
  dir: string;
  key: string;
  open(options?: { now?: () => number; compactMinBytes?: number }): Promise<App>;
}

async function folder(t: test.TestContext): Promise<Folder> {
  const { dir, remove } = tempDir();
  t.after(remove);
  const key = (await createKey(dir, { name: 'Ada', email: 'ada@campus.edu', role: 'admin' }, { randomBytes, now: Date.now })).secret;
  return { dir, key, open: (options = {}) => openAppWith({ dataDir: dir, keyPollMs: 0, bootstrapAdminKey: false, rateLimit: 100_000, ...options }, { unsafeNoSync: true }) };
}

/** Creates `count` events, 50 at a time (one group commit each); their ids in order. */
async function createEvents(app: App, key: string, count: number, title = 'E'): Promise<string[]> {
  const ids: string[] = [];
  for (let at = 0; at < count; at += 50) {
    const batch = Array.from({ length: Math.min(50, count - at) }, (_, i) => call(app, 'POST', '/events', { key, body: eventBody({ title: `${title}${at + i}` }) }));
    for (const response of await Promise.all(batch)) {
      assert.equal(response.status, 201, response.text ?? '');
      ids.push(response.json.id);
    }
  }
  return ids;
}

async function deleteEvents(app: App, key: string, ids: readonly string[]): Promise<void> {
  for (let at = 0; at < ids.length; at += 50) {
    for (const response of await Promise.all(ids.slice(at, at + 50).map((id) => call(app, 'DELETE', `/events/${id}`, { key })))) assert.equal(response.status, 204);
  }
}

/** What the copy must equal: id → title of the events created and not deleted. */
function model(ids: readonly string[], deleted: Iterable<string>, title = 'E'): Map<string, string> {
  const live = new Map(ids.map((id, i) => [id, `${title}${i}`]));
  for (const id of deleted) live.delete(id);
  return live;
}

/** One page of a copy; `copy` the token of the page before. */
async function page(app: App, key: string, since: number, copy?: string, limit = 1000): Promise<Omit<TestResponse, 'json'> & { json: { changes: Entry[]; next_since: number; more: boolean; copy?: string } }> {
  const target = `/changes?since=${since}&limit=${limit}${copy === undefined ? '' : `&copy=${copy}`}`;
  return call(app, 'GET', target, { key });
}

function apply(copy: Map<string, string>, entries: readonly Entry[]): void {
  for (const entry of entries) {
    if (entry.deleted) copy.delete(entry.id);
    else copy.set(entry.id, entry.event!.title);
  }
}

test('a copy of 2,200 live events paged 1,000 at a time completes after a compaction dropped 800 deletions, and since=next_since afterwards is a 200 (issue 22 point 1)', async (t) => {
  const f = await folder(t);
  const app = await f.open();
  t.after(() => app.close());
  const ids = await createEvents(app, f.key, 3000);
  const random = mulberry32(22);
  // 799 at random, and the newest event last: the newest deletion the compaction drops is past every page boundary.
  const doomed = [...ids.slice(0, 2999)].sort(() => random() - 0.5).slice(0, 799).concat(ids[2999]!);
  await deleteEvents(app, f.key, doomed);
  const compaction = await (app.store as FileStore).compact();
  assert.ok(compaction !== undefined && compaction.linesAfter < compaction.linesBefore, 'the compaction dropped the deletions');

  const copy = new Map<string, string>();
  let since = 0;
  let token: string | undefined;
  let pages = 0;
  for (;;) {
    const answer = await page(app, f.key, since, token);
    assert.equal(answer.status, 200, `page ${pages + 1}: ${JSON.stringify(answer.json)}`);
    pages++;
    apply(copy, answer.json.changes);
    since = answer.json.next_since;
    if (!answer.json.more) {
      assert.equal(answer.json.copy, undefined, 'the last page carries no token');
      break;
    }
    assert.match(answer.json.copy!, /^[A-Za-z0-9_-]{1,200}$/);
    token = answer.json.copy;
  }
  assert.equal(pages, 3);
  assert.deepEqual(copy, model(ids, doomed), 'the copy equals the live set');
  assert.equal(copy.size, 2200);
  assert.equal(since, (app.store as FileStore).stats.lastSeq, 'next_since of the last page is the newest durable write');
  const next = await page(app, f.key, since);
  assert.equal(next.status, 200, JSON.stringify(next.json));
  assert.deepEqual(next.json.changes, []);
});

test('next_since of a last page is the newest durable write even when the page ends before it (a deletion after), so going on never meets a 410', async (t) => {
  const f = await folder(t);
  const app = await f.open();
  t.after(() => app.close());
  const [a, b] = await createEvents(app, f.key, 2);
  await deleteEvents(app, f.key, [b!]); // seq 3
  const full = await page(app, f.key, 0);
  assert.deepEqual(full.json.changes.map((entry) => entry.id), [a]);
  assert.equal(full.json.next_since, 3, 'not 1 (the last entry): the deletion at 3 was never the client\'s to see');
  await (app.store as FileStore).compact();
  assert.equal((await page(app, f.key, full.json.next_since)).status, 200);
  assertError(await call(app, 'GET', '/changes?since=1', { key: f.key }), 410, 'gone');
});

test('a copy goes on across a compaction that drops only deletions older than its start, and hears of a deletion made after it began', async (t) => {
  const f = await folder(t);
  const app = await f.open();
  t.after(() => app.close());
  const ids = await createEvents(app, f.key, 30);
  await deleteEvents(app, f.key, ids.slice(10, 20)); // before the copy
  const first = await page(app, f.key, 0, undefined, 5);
  assert.equal(first.json.more, true);
  const token = first.json.copy!;
  await (app.store as FileStore).compact();
  assert.ok((app.store as FileStore).changes.horizon > first.json.next_since, 'a plain since at this position is now refused');
  assertError(await page(app, f.key, first.json.next_since), 410, 'gone');

  const copy = new Map<string, string>();
  apply(copy, first.json.changes);
  await deleteEvents(app, f.key, [ids[0]!]); // already copied, deleted after the copy began
  assert.equal((await call(app, 'PUT', `/events/${ids[1]}`, { key: f.key, body: { title: 'renamed' } })).status, 200);
  let since = first.json.next_since;
  for (;;) {
    const answer = await page(app, f.key, since, token, 5);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    apply(copy, answer.json.changes);
    assert.equal(answer.json.changes.filter((entry) => entry.deleted && ids.slice(10, 20).includes(entry.id)).length, 0, 'deletions older than the copy are not sent');
    since = answer.json.next_since;
    if (!answer.json.more) break;
    assert.equal(answer.json.copy, token, 'every page of a copy carries its token');
  }
  const expected = model(ids, [...ids.slice(10, 20), ids[0]!]);
  expected.set(ids[1]!, 'renamed');
  assert.deepEqual(copy, expected);
});

test('a copy is refused (410) once a compaction dropped a deletion made after it began; since=0 starts again', async (t) => {
  const f = await folder(t);
  const app = await f.open();
  t.after(() => app.close());
  const ids = await createEvents(app, f.key, 12);
  const first = await page(app, f.key, 0, undefined, 5);
  await deleteEvents(app, f.key, [ids[11]!]);
  await (app.store as FileStore).compact();
  const refused = assertError(await page(app, f.key, first.json.next_since, first.json.copy, 5), 410, 'gone');
  assert.match(refused.message, /since=0/);
  assert.equal((await page(app, f.key, 0, undefined, 5)).status, 200);
});

test('a forged, tampered or malformed copy token is a 400; one older than 24 hours a 410', async (t) => {
  const f = await folder(t);
  let now = Date.parse('2026-11-25T12:00:00Z');
  const app = await f.open({ now: () => now });
  t.after(() => app.close());
  await createEvents(app, f.key, 3);
  const first = await page(app, f.key, 0, undefined, 1);
  const token = first.json.copy!;
  assert.equal((await page(app, f.key, 1, token, 1)).status, 200);
  const flip = (text: string, at: number): string => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
  for (const bad of [flip(token, token.length - 1), flip(token, 2), token.replace(/^1_[0-9a-z]+_/, '1_zz_'), 'forged', token.slice(0, -1), `${token}x`, 'a'.repeat(200)]) {
    const answer = assertError(await page(app, f.key, 1, bad, 1), 400, 'bad_request');
    assert.match(answer.message, /copy/, bad);
  }
  for (const malformed of ['a.b', 'a'.repeat(201), '', '%E2%82%AC']) assertError(await call(app, 'GET', `/changes?since=1&copy=${malformed}`, { key: f.key }), 400, 'bad_request');
  now += 24 * 3600 * 1000;
  assert.equal((await page(app, f.key, 1, token, 1)).status, 200, 'exactly 24 hours old');
  now += 1000;
  assertError(await page(app, f.key, 1, token, 1), 410, 'gone');
});

test('a copy token still works after a restart (a client may resume its copy)', async (t) => {
  const f = await folder(t);
  let app = await f.open();
  const ids = await createEvents(app, f.key, 4);
  const first = await page(app, f.key, 0, undefined, 2);
  await app.close();
  app = await f.open();
  t.after(() => app.close());
  const second = await page(app, f.key, first.json.next_since, first.json.copy, 2);
  assert.equal(second.status, 200, JSON.stringify(second.json));
  assert.deepEqual([...first.json.changes, ...second.json.changes].map((entry) => entry.id), ids);
  assert.equal(second.json.more, false);
});

test('a copy token of a log restored to before the copy began is a 410', async (t) => {
  const f = await folder(t);
  const app = await f.open();
  t.after(() => app.close());
  await createEvents(app, f.key, 3);
  const token = (app.store as FileStore).changes.copyToken({ began: 50, startedMs: Date.now() });
  assertError(await page(app, f.key, 1, token, 1), 410, 'gone');
});
