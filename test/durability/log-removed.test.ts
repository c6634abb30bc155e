// events.jsonl removed or replaced under a running server (an operator's `rm events.jsonl*`, a restore copied in while
// it runs): what was acknowledged stays on disk, writes are refused until a restart, and /health says why.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openApp } from '../../src/app.js';
import { call, eventBody, startHarness, type Harness, type TestResponse } from '../helpers/harness.js';

/** An organizer's create of an event called `title`. */
function create(h: Harness, title: string): Promise<TestResponse> {
  return h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ title }) });
}

test('a removed events.jsonl is written again from the open log, the write that met it is kept, later writes get 503', async () => {
  const h = await startHarness();
  const { dataDir } = h;
  try {
    const before = await create(h, 'Before the removal');
    assert.equal(before.status, 201);
    unlinkSync(path.join(dataDir, 'events.jsonl'));
    const met = await create(h, 'Meets the removal');
    assert.equal(met.status, 201, 'the write that found the log gone is on disk again, so it is acknowledged');
    const log = readFileSync(path.join(dataDir, 'events.jsonl'), 'utf8');
    assert.ok(log.includes(before.json.id) && log.includes(met.json.id), 'events.jsonl holds every acknowledged write again');
    const later = await create(h, 'After the removal');
    assert.equal(later.status, 503);
    assert.equal(later.json.error, 'unavailable');
    assert.match(later.json.message, /events\.jsonl was removed while the server ran/);
    const health = await h.request('GET', '/health');
    assert.equal(health.status, 503);
    assert.match(health.json.message, /events\.jsonl was removed while the server ran/);
    assert.equal((await h.request('GET', `/events/${before.json.id}`, { key: h.keys.reader })).status, 200, 'reads go on');
    assert.deepEqual(readdirSync(dataDir).filter((name) => name.startsWith('events.jsonl.')), [], 'no copy is left beside the log');
  } finally {
    await h.app.close();
  }
  const again = await openApp({ dataDir, keyPollMs: 0 }, { unsafeNoSync: true });
  try {
    const titles = (await call(again, 'GET', '/events', { key: h.keys.reader })).json.events.map((event: { title: string }) => event.title).sort();
    assert.deepEqual(titles, ['Before the removal', 'Meets the removal']);
  } finally {
    await again.close();
    await h.close();
  }
});

test('an events.jsonl replaced under the server is left as it is; the open log is kept beside it and writes get 503', async () => {
  const h = await startHarness();
  const { dataDir } = h;
  try {
    const before = await create(h, 'Before the replacement');
    assert.equal(before.status, 201);
    const replacement = path.join(dataDir, 'replacement');
    writeFileSync(replacement, '');
    renameSync(replacement, path.join(dataDir, 'events.jsonl'));
    const met = await create(h, 'Meets the replacement');
    assert.equal(met.status, 503, 'the write is not in the log a restart reads');
    assert.match(met.json.message, /events\.jsonl was replaced while the server ran/);
    assert.equal(readFileSync(path.join(dataDir, 'events.jsonl'), 'utf8'), '', 'the replacement is untouched');
    const kept = readdirSync(dataDir).filter((name) => name.startsWith('events.jsonl.removed-'));
    assert.equal(kept.length, 1, `the open log is kept beside it (${readdirSync(dataDir).join(', ')})`);
    assert.ok(readFileSync(path.join(dataDir, kept[0]!), 'utf8').includes(before.json.id));
    assert.match(met.json.message, new RegExp(kept[0]!.replace(/\./g, '\\.')));
    assert.equal((await h.request('GET', '/health')).status, 503);
  } finally {
    await h.close();
  }
});
