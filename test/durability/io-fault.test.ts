// A failing fdatasync seen from the API: createApp over a file-system seam that fails the Nth sync (API.md §7).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createApp, openApp } from '../../src/app.js';
import { createKey } from '../../src/auth/key-registry.js';
import { call, eventBody, tempDir } from '../helpers/harness.js';
import { TestFileSystem } from '../store/helpers.js';

test('the 4th fdatasync fails (EIO): its requests get 503, later writes 503, /health 503, reads 200; a restart finds exactly the acknowledged writes', async () => {
  const { dir, remove } = tempDir('campus-io-fault-');
  try {
    const { secret: key } = await createKey(dir, { name: 'Ida Io', email: 'ida@campus.edu', role: 'organizer' }, { randomBytes, now: Date.now });
    const files = new TestFileSystem({ failSyncAt: 4, code: 'EIO' });
    const app = await openApp({ dataDir: dir, keyPollMs: 0 }, { fileSystem: files });
    const acknowledged = new Map<string, string>();
    for (const title of ['First', 'Second', 'Third']) {
      const created = await call(app, 'POST', '/events', { key, body: eventBody({ title }) });
      assert.equal(created.status, 201);
      acknowledged.set(created.json.id, title);
    }
    const [firstId] = [...acknowledged.keys()];
    // Sent together: they share the failing fdatasync, so all of them fail.
    const batch = await Promise.all([
      call(app, 'POST', '/events', { key, body: eventBody({ title: 'Lost A' }) }),
      call(app, 'POST', '/events', { key, body: eventBody({ title: 'Lost B' }) }),
      call(app, 'PUT', `/events/${firstId}`, { key, body: { title: 'Lost update' } }),
    ]);
    for (const response of batch) {
      assert.equal(response.status, 503);
      assert.equal(response.json.error, 'unavailable');
      assert.match(response.json.message, /EIO/);
    }
    assert.equal(files.syncs, 4);
    assert.equal((await call(app, 'POST', '/events', { key, body: eventBody({ title: 'Lost later' }) })).status, 503);
    assert.equal((await call(app, 'DELETE', `/events/${firstId}`, { key })).status, 503);
    assert.equal(files.syncs, 4, 'nothing more is written or synced');
    assert.equal((await call(app, 'GET', '/health')).status, 503);
    const list = await call(app, 'GET', '/events', { key });
    assert.equal(list.status, 200);
    assert.deepEqual(new Map(list.json.events.map((event: { id: string; title: string }) => [event.id, event.title])), acknowledged);
    assert.equal((await call(app, 'GET', `/events/${firstId}`, { key })).json.title, 'First');
    await app.close();

    const restarted = await createApp({ dataDir: dir, keyPollMs: 0 });
    try {
      assert.equal((await call(restarted, 'GET', '/health')).status, 200);
      const after = await call(restarted, 'GET', '/events', { key });
      assert.deepEqual(new Map(after.json.events.map((event: { id: string; title: string }) => [event.id, event.title])), acknowledged);
      assert.equal((await call(restarted, 'POST', '/events', { key, body: eventBody({ title: 'After the restart' }) })).status, 201);
    } finally {
      await restarted.close();
    }
  } finally {
    remove();
  }
});
