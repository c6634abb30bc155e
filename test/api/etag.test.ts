// Whole-request tests of ETag, If-Match and If-None-Match (API.md §4).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApp, type App } from '../../src/app.js';
import { createKey } from '../../src/auth/key-registry.js';
import { call, eventBody, startHarness, tempDir, type Harness } from '../helpers/harness.js';
import { assertError, createEvent } from './support.js';

const STRONG_ETAG = /^"[\x21\x23-\x7e]*"$/;

describe('ETag', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.close());

  async function etagOf(id: string): Promise<string> {
    const response = await h.request('GET', `/events/${id}`, { key: h.keys.reader });
    assert.equal(response.status, 200);
    return response.headers['ETag']!;
  }

  it('is strong, stable between reads, and the same on the update response as on the next read', async () => {
    const { id } = await createEvent(h, h.keys.organizer);
    const first = await etagOf(id);
    assert.match(first, STRONG_ETAG);
    assert.equal(await etagOf(id), first);
    const updated = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { title: 'New title' } });
    assert.match(updated.headers['ETag'] ?? '', STRONG_ETAG);
    assert.equal(await etagOf(id), updated.headers['ETag']);
  });

  it('stays the same after a PUT that changes nothing (an empty object, or the values it has)', async () => {
    const { id } = await createEvent(h, h.keys.organizer);
    const before = await etagOf(id);
    for (const body of [{}, { capacity: (await h.request('GET', `/events/${id}`, { key: h.keys.reader })).json.capacity }]) {
      const response = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body });
      assert.equal(response.status, 200);
      assert.equal(response.headers['ETag'], before, `PUT ${JSON.stringify(body)} kept the ETag`);
    }
    assert.equal(await etagOf(id), before);
  });

  it('changes after every update', async () => {
    const { id } = await createEvent(h, h.keys.organizer);
    const seen = new Set([await etagOf(id)]);
    for (const body of [{ capacity: 7 }, { capacity: 8 }, { title: 'Again' }, { description: 'x' }, { capacity: 7 }]) {
      const response = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body });
      assert.equal(response.status, 200);
      const etag = response.headers['ETag']!;
      assert.ok(!seen.has(etag), `ETag ${etag} reused after ${JSON.stringify(body)}`);
      seen.add(etag);
    }
  });

  it('differs between events', async () => {
    const a = await createEvent(h, h.keys.organizer);
    const b = await createEvent(h, h.keys.organizer);
    assert.notEqual(await etagOf(a.id), await etagOf(b.id));
  });

  it('is not reused by an event created after a delete', async () => {
    const a = await createEvent(h, h.keys.organizer);
    const old = await etagOf(a.id);
    await h.request('DELETE', `/events/${a.id}`, { key: h.keys.organizer });
    const b = await createEvent(h, h.keys.organizer);
    assert.notEqual(await etagOf(b.id), old);
  });
});

describe('If-None-Match on GET /events/{id}', () => {
  let h: Harness;
  let id: string;
  let etag: string;
  before(async () => {
    h = await startHarness();
    id = (await createEvent(h, h.keys.organizer)).id;
    etag = (await h.request('GET', `/events/${id}`, { key: h.keys.reader })).headers['ETag']!;
  });
  after(() => h.close());

  it('answers 304 with the ETag and no body when the tag matches', async () => {
    for (const header of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
      const response = await h.request('GET', `/events/${id}`, { key: h.keys.reader, headers: { 'If-None-Match': header } });
      assert.equal(response.status, 304, header);
      assert.equal(response.text, null);
      assert.equal(response.headers['ETag'], etag);
      assert.equal(response.headers['Content-Type'], undefined);
    }
  });

  it('answers 200 with the body when the tag is stale', async () => {
    const response = await h.request('GET', `/v1/events/${id}`, { key: h.keys.reader, headers: { 'If-None-Match': '"stale"' } });
    assert.equal(response.status, 200);
    assert.equal(response.json.id, id);
  });

  it('answers 200 again once the event changed', async () => {
    await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { capacity: 99 } });
    const response = await h.request('GET', `/events/${id}`, { key: h.keys.reader, headers: { 'If-None-Match': etag } });
    assert.equal(response.status, 200);
    assert.equal(response.json.capacity, 99);
  });

  it('does not hide a 404 or a 401', async () => {
    assertError(await h.request('GET', '/events/evt_nopeNopeNopeNope', { key: h.keys.reader, headers: { 'If-None-Match': '*' } }), 404, 'not_found');
    assertError(await h.request('GET', `/events/${id}`, { headers: { 'If-None-Match': '*' } }), 401, 'unauthorized');
  });
});

describe('If-Match on PUT and DELETE', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.close());

  it('lets a PUT through when the tag matches, and refuses the same tag afterwards with 412', async () => {
    const { id } = await createEvent(h, h.keys.organizer);
    const etag = (await h.request('GET', `/events/${id}`, { key: h.keys.organizer })).headers['ETag']!;
    const first = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { capacity: 50 }, headers: { 'If-Match': etag } });
    assert.equal(first.status, 200);
    const second = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { capacity: 60 }, headers: { 'If-Match': etag } });
    const body = assertError(second, 412, 'precondition_failed');
    assert.ok(body.message.includes(id), body.message);
    const read = await h.request('GET', `/events/${id}`, { key: h.keys.organizer });
    assert.equal(read.json.capacity, 50, 'a refused PUT changes nothing');
    const third = await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { capacity: 60 }, headers: { 'If-Match': `"x", ${first.headers['ETag']}` } });
    assert.equal(third.status, 200, 'a list of tags matches when one does');
  });

  it('uses the strong comparison: a weak tag never matches; * matches any current event', async () => {
    const { id } = await createEvent(h, h.keys.organizer);
    const etag = (await h.request('GET', `/events/${id}`, { key: h.keys.organizer })).headers['ETag']!;
    assertError(await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: {}, headers: { 'If-Match': `W/${etag}` } }), 412, 'precondition_failed');
    assert.equal((await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: {}, headers: { 'If-Match': '*' } })).status, 200);
  });

  it('guards DELETE: 412 on a stale tag (the event stays), 204 on the current one', async () => {
    const { id } = await createEvent(h, h.keys.organizer);
    const etag = (await h.request('GET', `/events/${id}`, { key: h.keys.organizer })).headers['ETag']!;
    await h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { capacity: 3 } });
    assertError(await h.request('DELETE', `/events/${id}`, { key: h.keys.organizer, headers: { 'If-Match': etag } }), 412, 'precondition_failed');
    assert.equal((await h.request('GET', `/events/${id}`, { key: h.keys.organizer })).status, 200);
    const current = (await h.request('GET', `/events/${id}`, { key: h.keys.organizer })).headers['ETag']!;
    assert.equal((await h.request('DELETE', `/events/${id}`, { key: h.keys.organizer, headers: { 'If-Match': current } })).status, 204);
  });

  it('lets only one of two racing writes with the same If-Match succeed', async () => {
    const { id } = await createEvent(h, h.keys.organizer);
    const etag = (await h.request('GET', `/events/${id}`, { key: h.keys.organizer })).headers['ETag']!;
    const racers = await Promise.all([
      h.request('PUT', `/events/${id}`, { key: h.keys.organizer, body: { title: 'Racer one' }, headers: { 'If-Match': etag } }),
      h.request('PUT', `/events/${id}`, { key: h.keys.admin, body: { title: 'Racer two' }, headers: { 'If-Match': etag } }),
      h.request('DELETE', `/events/${id}`, { key: h.keys.organizer, headers: { 'If-Match': etag } }),
    ]);
    const statuses = racers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 412, 412]);
    const winner = racers.find((r) => r.status === 200)!;
    const read = await h.request('GET', `/events/${id}`, { key: h.keys.organizer });
    assert.equal(read.json.title, winner.json.title);
  });
});

/** Runs `body` on a temporary folder holding an admin key; `open()` starts an app on it, as often as asked. */
async function inFolder(body: (folder: { dir: string; key: string; open: () => Promise<App> }) => Promise<void>): Promise<void> {
  const { dir, remove } = tempDir();
  try {
    const key = (await createKey(dir, { name: 'Ada Admin', email: 'ada@campus.edu', role: 'admin' }, { randomBytes, now: Date.now })).secret;
    await body({ dir, key, open: () => openApp({ dataDir: dir, keyPollMs: 0 }, { unsafeNoSync: true }) });
  } finally {
    remove();
  }
}

describe('ETags after a folder is restored from an older backup (API.md §7)', () => {
  // A restored log gives again the seqs of the writes it lost: an ETag that named one of those must not name what is
  // written under the same seq after the restore, or a cache shows the lost state (304) and an If-Match based on it wins.
  it('never name two states of one event or series', async () => {
    await inFolder(async ({ dir, key, open }) => {
      let app = await open();
      const { id } = (await call(app, 'POST', '/events', { key: key, body: eventBody() })).json;
      const series = (await call(app, 'POST', '/series', { key: key, body: { ...eventBody(), time_zone: 'UTC', recurrence: 'FREQ=DAILY;COUNT=3' } })).json;
      const backup = readFileSync(path.join(dir, 'events.jsonl'));
      const lost = await call(app, 'PUT', `/events/${id}`, { key: key, body: { title: 'Seen before the restore' } });
      const lostSeries = await call(app, 'PUT', `/series/${series.id}`, { key: key, body: { title: 'Seen before the restore' } });
      assert.deepEqual([lost.status, lostSeries.status], [200, 200]);
      await app.close();
      writeFileSync(path.join(dir, 'events.jsonl'), backup);
      app = await open();
      try {
        const now = await call(app, 'PUT', `/events/${id}`, { key: key, body: { title: 'Written after the restore' } });
        const nowSeries = await call(app, 'PUT', `/series/${series.id}`, { key: key, body: { title: 'Written after the restore' } });
        assert.notEqual(now.headers['ETag'], lost.headers['ETag'], 'the event state written after the restore has an ETag of its own');
        assert.notEqual(nowSeries.headers['ETag'], lostSeries.headers['ETag'], 'the series too');
        const cached = await call(app, 'GET', `/events/${id}`, { key: key, headers: { 'If-None-Match': lost.headers['ETag']! } });
        assert.equal(cached.status, 200);
        assert.equal(cached.json.title, 'Written after the restore');
        const cachedSeries = await call(app, 'GET', `/series/${series.id}`, { key: key, headers: { 'If-None-Match': lostSeries.headers['ETag']! } });
        assert.equal(cachedSeries.status, 200);
        assertError(await call(app, 'PUT', `/events/${id}`, { key: key, body: { capacity: 9 }, headers: { 'If-Match': lost.headers['ETag']! } }), 412, 'precondition_failed');
        assertError(await call(app, 'PUT', `/series/${series.id}`, { key: key, body: { capacity: 9 }, headers: { 'If-Match': lostSeries.headers['ETag']! } }), 412, 'precondition_failed');
      } finally {
        await app.close();
      }
    });
  });
});

describe('ETags across a restart', () => {
  // A replayed event is packed and its view rebuilt on demand: its seq and write time, and so its ETag, must be the written one's.
  it('are the same for every event and series, whatever they hold', async () => {
    await inFolder(async ({ key, open }) => {
      let app = await open();
      const ids: string[] = [];
      const bodies = [
        eventBody(),
        eventBody({ title: 'Émigré 🎻 音楽 \u2028 "quoted" \\ back', description: undefined, location: 'Hörsaal\u0301 B', capacity: 2 }),
        eventBody({ description: 'x'.repeat(5000), status: 'draft' }),
      ];
      for (const body of bodies) ids.push((await call(app, 'POST', '/events', { key: key, body })).json.id);
      await call(app, 'POST', `/events/${ids[1]}/registrations`, { key: key, body: { name: 'Zoë', email: 'zoe@campus.edu' } });
      await call(app, 'PUT', `/events/${ids[0]}`, { key: key, body: { status: 'cancelled', cancellation_reason: 'Rain' } });
      const series = (await call(app, 'POST', '/series', { key: key, body: { ...eventBody(), time_zone: 'Europe/Berlin', recurrence: 'FREQ=WEEKLY;COUNT=3' } })).json;
      const occurrences = (await call(app, 'GET', `/events?series_id=${series.id}`, { key: key })).json.events.map((event: { id: string }) => event.id);
      const targets = [...ids, ...occurrences].map((id) => `/events/${id}`).concat(`/series/${series.id}`);
      const before = await Promise.all(targets.map(async (target) => (await call(app, 'GET', target, { key: key })).headers['ETag']));
      assert.ok(before.every((etag) => etag !== undefined) && new Set(before).size === targets.length);
      await app.close();
      app = await open();
      try {
        const after = await Promise.all(targets.map(async (target) => (await call(app, 'GET', target, { key: key })).headers['ETag']));
        assert.deepEqual(after, before);
      } finally {
        await app.close();
      }
    });
  });
});
