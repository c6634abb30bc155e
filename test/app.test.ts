// createApp as an embedder uses it: a memory app touches no disk, keys can be made from code, and the switches of
// this package's own tests and benchmarks are neither offered by AppOptions nor honoured by createApp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createApp, openApp, type AppOptions } from '../src/app.js';
import { call, eventBody, tempDir } from './helpers/harness.js';
import { ROOT } from './helpers/spawn.js';

test("createApp({store: 'memory'}) creates no folder and no keys.json, and its first admin key works", async () => {
  const { dir, remove } = tempDir();
  const dataDir = path.join(dir, 'data');
  try {
    const app = await createApp({ store: 'memory', dataDir, keyPollMs: 0 });
    try {
      assert.ok(app.initialAdminKey !== undefined, 'a memory app starts with an admin key, as a new folder does');
      const created = await call(app, 'POST', '/events', { key: app.initialAdminKey, body: eventBody() });
      assert.equal(created.status, 201);
      assert.equal((await call(app, 'GET', `/events/${created.json.id}`, { key: app.initialAdminKey })).status, 200);
    } finally {
      await app.close();
    }
    assert.equal(existsSync(dataDir), false, 'the data folder was not created');
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    remove();
  }
});

test('app.createKey() makes a key that works at once, on a memory app and on a folder', async () => {
  const { dir, remove } = tempDir();
  try {
    for (const options of [{ store: 'memory' as const }, { dataDir: dir }]) {
      const app = await createApp({ ...options, keyPollMs: 0, bootstrapAdminKey: false });
      try {
        const reader = await app.createKey({ name: 'Rita Reader', email: 'rita@campus.edu', role: 'reader' });
        assert.match(reader.key, /^cek_[A-Za-z0-9]{39}$/);
        assert.equal(reader.role, 'reader');
        assert.equal((await call(app, 'GET', '/events', { key: reader.key })).status, 200);
        assert.equal((await call(app, 'POST', '/events', { key: reader.key, body: eventBody() })).status, 403);
        const organizer = await app.createKey({ name: 'Olivia Organizer', email: 'olivia@campus.edu' });
        assert.equal(organizer.role, 'organizer', 'organizer is the default role');
        assert.equal((await call(app, 'POST', '/events', { key: organizer.key, body: eventBody() })).status, 201);
      } finally {
        await app.close();
      }
    }
    assert.ok(existsSync(path.join(dir, 'keys.json')), 'on a folder the keys are in keys.json, where the CLI sees them');
  } finally {
    remove();
  }
});

test('app.createKey() refuses a bad e-mail or role with a TypeError naming it', async () => {
  const app = await createApp({ store: 'memory', keyPollMs: 0 });
  try {
    await assert.rejects(app.createKey({ name: 'X', email: 'not-an-address' }), (error: Error) => error instanceof TypeError && /email/.test(error.message));
    await assert.rejects(app.createKey({ name: 'X', email: 'x@campus.edu', role: 'root' as 'admin' }), (error: Error) => error instanceof TypeError && /role/.test(error.message));
  } finally {
    await app.close();
  }
});

test('app.createKey() after close() is refused, and writes no key into the folder it let go of', async () => {
  const { dir, remove } = tempDir();
  try {
    const app = await createApp({ dataDir: dir, keyPollMs: 0, bootstrapAdminKey: false });
    await app.close();
    await assert.rejects(app.createKey({ name: 'Late Larry', email: 'larry@campus.edu' }), /createKey: the app is closed/);
    assert.equal(existsSync(path.join(dir, 'keys.json')), false, 'no keys.json written');
  } finally {
    remove();
  }
});

test('createApp() refuses the internal unsafeNoAuth and unsafeNoSync switches a JavaScript caller might pass, as any unknown option', async () => {
  for (const name of ['unsafeNoAuth', 'unsafeNoSync']) {
    const options = { store: 'memory', keyPollMs: 0, [name]: true } as AppOptions;
    await assert.rejects(createApp(options), (error: Error) => error instanceof TypeError && error.message.startsWith(`createApp: unknown option ${name}`));
  }
  const bench = await openApp({ store: 'memory', keyPollMs: 0, bootstrapAdminKey: false }, { unsafeNoAuth: true });
  try {
    // Not through call(): the benchmark's routes send none of the rate-limit headers the document promises a keyed answer.
    const created = await bench.handle({ method: 'POST', target: '/events', headers: { host: 'localhost', 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(eventBody())), bodyTooLarge: false, remoteAddress: '127.0.0.1' });
    assert.equal(created.status, 201, 'the benchmark switch still works through openApp');
  } finally {
    await bench.close();
  }
});

test('the published AppOptions and StartOptions offer no unsafe switch', () => {
  const declarations = ['app.d.ts', 'app-options.d.ts', 'start-server.d.ts', 'index.d.ts'].map((file) => readFileSync(path.join(ROOT, 'dist', file), 'utf8')).join('\n');
  const appOptions = /export interface AppOptions \{[\s\S]*?\n\}/.exec(declarations)?.[0];
  const startOptions = /export interface StartOptions [\s\S]*?\n\}/.exec(declarations)?.[0];
  assert.ok(appOptions !== undefined && startOptions !== undefined);
  assert.doesNotMatch(appOptions + startOptions, /unsafe|fileSystem/);
  assert.doesNotMatch(readFileSync(path.join(ROOT, 'dist', 'index.d.ts'), 'utf8'), /InternalOptions|openApp|startServerWith/);
});

test('the rate limit counts on a clock no wall-clock step moves: a request made while Date.now ran a year ahead frees a window after it was made', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const app = await createApp({ dataDir: dir, keyPollMs: 0, rateLimit: 3, rateWindow: 60 });
  t.after(() => app.close());
  const key = app.initialAdminKey!;
  const wallClock = Date.now;
  Date.now = () => wallClock() + 365 * 24 * 3_600_000; // a clock that ran a year ahead ...
  try {
    assert.equal((await call(app, 'GET', '/events', { key })).status, 200);
  } finally {
    Date.now = wallClock; // ... put right by NTP
  }
  for (let i = 0; i < 2; i++) assert.equal((await call(app, 'GET', '/events', { key })).status, 200);
  const refused = await call(app, 'GET', '/events', { key });
  assert.equal(refused.status, 429);
  assert.equal(refused.headers['Retry-After'], '60');
  // Sixty seconds pass (on the monotonic clock, which is what passes; the wall clock is put right).
  const monotonic = performance.now.bind(performance);
  performance.now = () => monotonic() + 60_000;
  try {
    // Counted on Date.now, the request of the year ahead held its slot until the clock caught up: 429 for a year.
    assert.equal((await call(app, 'GET', '/events', { key })).status, 200);
  } finally {
    performance.now = monotonic;
  }
});
