// events.jsonl removed, moved away or replaced under a running server (an operator's `rm events.jsonl*`, a restore
// copied in while it runs): the check the server makes every second (called here at once) writes the open log back,
// what was acknowledged stays on disk, writes are refused until a restart, and /health says why.
import assert from 'node:assert/strict';
import { linkSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openApp } from '../../src/app.js';
import { createLogger } from '../../src/log/logger.js';
import type { FileStore } from '../../src/store/file/file-store.js';
import { LogRemoved, LostLogGuard } from '../../src/store/file/lost-log.js';
import { call, eventBody, startHarness, type Harness, type TestResponse } from '../helpers/harness.js';
import { RecordingFileSystem } from '../store/file/recording-file-system.js';

/** An organizer's create of an event called `title`. */
function create(h: Harness, title: string): Promise<TestResponse> {
  return h.request('POST', '/events', { key: h.keys.organizer, body: eventBody({ title }) });
}

/** The titles a server started on `dataDir` serves. */
async function titlesAfterRestart(h: Harness): Promise<string[]> {
  const again = await openApp({ dataDir: h.dataDir, keyPollMs: 0 }, { unsafeNoSync: true });
  try {
    return (await call(again, 'GET', '/events', { key: h.keys.reader })).json.events.map((event: { title: string }) => event.title).sort();
  } finally {
    await again.close();
  }
}

const lostTheName = {
  removed: (log: string) => unlinkSync(log),
  'moved away': (log: string) => renameSync(log, `${log}.old`),
  'hard-linked elsewhere, then removed': (log: string) => {
    linkSync(log, `${log}.snapshot`);
    unlinkSync(log);
  },
};

for (const [how, lose] of Object.entries(lostTheName)) {
  test(`events.jsonl ${how} under the server: the next check writes the open log back, a write meanwhile included; later writes 503`, async () => {
    const h = await startHarness();
    try {
      const before = await create(h, 'Before');
      assert.equal(before.status, 201);
      lose(path.join(h.dataDir, 'events.jsonl'));
      const meanwhile = await create(h, 'Meanwhile');
      assert.equal(meanwhile.status, 201, 'a write before the check is in the open log, and so in what is written back');
      await (h.app.store as FileStore).checkLogName();
      const log = readFileSync(path.join(h.dataDir, 'events.jsonl'), 'utf8');
      assert.ok(log.includes(before.json.id) && log.includes(meanwhile.json.id), 'events.jsonl holds every acknowledged write again');
      const later = await create(h, 'After');
      assert.equal(later.status, 503);
      assert.equal(later.json.error, 'unavailable');
      assert.match(later.json.message, /events\.jsonl was removed or moved away while the server ran/);
      const health = await h.request('GET', '/health');
      assert.equal(health.status, 503);
      assert.match(health.json.message, /events\.jsonl was removed or moved away while the server ran: it was written again/);
      assert.equal((await h.request('GET', `/events/${before.json.id}`, { key: h.keys.reader })).status, 200, 'reads go on');
      assert.deepEqual(readdirSync(h.dataDir).filter((name) => name.startsWith('events.jsonl.removed-')), [], 'no copy is left beside the log');
      await h.app.close();
      assert.deepEqual(await titlesAfterRestart(h), ['Before', 'Meanwhile']);
    } finally {
      await h.close();
    }
  });
}

test('an events.jsonl replaced under the server is left as it is; what was acknowledged is kept beside it, and writes get 503', async () => {
  const h = await startHarness();
  try {
    const before = await create(h, 'Before the replacement');
    assert.equal(before.status, 201);
    const replacement = path.join(h.dataDir, 'replacement');
    writeFileSync(replacement, '');
    renameSync(replacement, path.join(h.dataDir, 'events.jsonl'));
    const meanwhile = await create(h, 'Meanwhile');
    assert.equal(meanwhile.status, 201);
    await (h.app.store as FileStore).checkLogName();
    const later = await create(h, 'After');
    assert.equal(later.status, 503);
    assert.match(later.json.message, /events\.jsonl was replaced while the server ran/);
    assert.equal(readFileSync(path.join(h.dataDir, 'events.jsonl'), 'utf8'), '', 'the replacement is untouched');
    const kept = readdirSync(h.dataDir).filter((name) => name.startsWith('events.jsonl.removed-'));
    assert.equal(kept.length, 1, `the open log is kept beside it (${readdirSync(h.dataDir).join(', ')})`);
    const copy = readFileSync(path.join(h.dataDir, kept[0]!), 'utf8');
    assert.ok(copy.includes(before.json.id) && copy.includes(meanwhile.json.id), 'the copy holds what was acknowledged');
    assert.match(later.json.message, new RegExp(kept[0]!.replace(/\./g, '\\.')));
    assert.equal((await h.request('GET', '/health')).status, 503);
  } finally {
    await h.close();
  }
});

test('LostLogGuard: a write-back that fails (no room) leaves no partial copy, refuses the batch, cuts it off the open log, and is tried again until it succeeds', async () => {
  const fs = new RecordingFileSystem({ failAt: { write: 1 }, code: 'ENOSPC' });
  const file = '/data/events.jsonl';
  fs.put(file, '{"line":1}\n{"line":2}\n');
  const fd = fs.openQuietly(file);
  await fs.unlink(file);
  const warnings: string[] = [];
  const guard = new LostLogGuard({ fs, file, logger: { info() {}, warn: (message) => warnings.push(message) }, now: () => Date.UTC(2026, 10, 30), retryMs: 10 });
  try {
    await assert.rejects(guard.keep({ fd, acknowledged: 11, written: 22 }, 'absent'), (error: Error) => error instanceof LogRemoved && /writing the open log back failed \(ENOSPC: no space left on the disk\); the server tries again/.test(error.message));
    assert.deepEqual([...fs.files.keys()], [], 'the partial copy is removed');
    // The copy's first write failed; the open log was cut back to what was acknowledged, and the next try copies that.
    for (let tries = 0; fs.text(file) === undefined; tries++) {
      assert.ok(tries < 200, `written back once there is room: ${fs.calls.slice(-8).join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(fs.text(file), '{"line":1}\n', 'only the acknowledged line');
    assert.match(guard.reason ?? '', /the open log was written back as events\.jsonl, and nothing acknowledged is lost/);
    assert.deepEqual(warnings, ['the event log was removed, moved or replaced while the server ran, and writing it back failed; trying again', 'the event log was written back after all; writes are refused until restart']);
  } finally {
    // Written back already: the stop only ends the retries.
    await guard.close({ fd, acknowledged: 11, written: 11 }, 'absent');
  }
});

test('a start beside a log kept that way says so', async () => {
  const h = await startHarness();
  try {
    await h.app.close();
    writeFileSync(path.join(h.dataDir, 'events.jsonl.removed-2026-11-30T01-02-03-004Z'), '');
    let logged = '';
    const logger = createLogger({ level: 'warn', write: (text) => (logged += text), schedule: (flush) => queueMicrotask(flush) });
    const again = await openApp({ dataDir: h.dataDir, keyPollMs: 0, logger }, { unsafeNoSync: true });
    await again.close();
    assert.match(logged, /lies beside it: keep the one you want as events\.jsonl.*"kept":"events\.jsonl\.removed-2026-11-30T01-02-03-004Z"/);
  } finally {
    await h.close();
  }
});

test('a removal no write meets is found between writes (/health says so) and written back at a stop', async () => {
  for (const stopAt of ['after the check', 'before any check']) {
    const h = await startHarness();
    try {
      const before = await create(h, 'Only write');
      assert.equal(before.status, 201);
      unlinkSync(path.join(h.dataDir, 'events.jsonl'));
      if (stopAt === 'after the check') {
        await (h.app.store as FileStore).checkLogName();
        const health = await h.request('GET', '/health');
        assert.equal(health.status, 503);
        assert.match(health.json.message, /events\.jsonl was removed or moved away while the server ran: it was written again/);
        assert.equal((await create(h, 'Refused')).status, 503);
      }
      await h.app.close();
      assert.deepEqual(await titlesAfterRestart(h), ['Only write'], stopAt);
    } finally {
      await h.close();
    }
  }
});

test('LostLogGuard.close(): a write-back that fails at the stop keeps what it copied and rejects, so the process does not end as if all were well', async () => {
  const fs = new RecordingFileSystem({ failAt: { fsync: 1 }, code: 'ENOSPC' });
  const file = '/data/events.jsonl';
  fs.put('/data', ''); // the folder is there (this seam knows files only)
  fs.put(file, '{"line":1}\n');
  const fd = fs.openQuietly(file);
  await fs.unlink(file);
  const guard = new LostLogGuard({ fs, file, logger: { info() {}, warn() {} }, now: () => Date.UTC(2026, 10, 30), retryMs: 10 });
  await assert.rejects(guard.close({ fd, acknowledged: 11, written: 11 }, 'absent'), /writing the open log back failed at the stop \(ENOSPC: no space left on the disk\): what could be copied is kept beside it/);
  assert.deepEqual([...fs.files.keys()], ['/data', '/data/events.jsonl.removed-2026-11-30T00-00-00-000Z']);
});

test('a start on a folder with no events.jsonl but a kept log refuses, naming it; a kept name of events.jsonl itself is dropped', async () => {
  const h = await startHarness();
  try {
    assert.equal((await create(h, 'Kept')).status, 201);
    await h.app.close();
    const log = path.join(h.dataDir, 'events.jsonl');
    const second = path.join(h.dataDir, 'events.jsonl.removed-2026-11-30T01-02-03-004Z');
    linkSync(log, second);
    assert.deepEqual(await titlesAfterRestart(h), ['Kept']);
    assert.deepEqual(readdirSync(h.dataDir).filter((name) => name.startsWith('events.jsonl.')), [], 'a second name of the log itself is dropped');
    renameSync(log, second);
    await assert.rejects(openApp({ dataDir: h.dataDir, keyPollMs: 0 }, { unsafeNoSync: true }), /has no events\.jsonl but events\.jsonl\.removed-2026-11-30T01-02-03-004Z, which a server kept/);
    assert.deepEqual(readdirSync(h.dataDir).filter((name) => name.startsWith('events.jsonl')), ['events.jsonl.removed-2026-11-30T01-02-03-004Z'], 'and creates no empty log');
  } finally {
    await h.close();
  }
});

test('compactions one after another, with no check between them, are not taken for a log replaced under the server', async () => {
  const h = await startHarness();
  try {
    const store = h.app.store as FileStore;
    assert.equal((await create(h, 'First')).status, 201);
    // The check has seen the log as it is now; two compactions then swap it twice, and the second new log is given
    // the very descriptor number the first log had (the lowest free one). Each old log is kept by a second name, so its
    // inode is not handed to a new log (which would hide the mistake).
    await store.checkLogName();
    for (const [i, title] of ['Second', 'Third'].entries()) {
      assert.equal((await create(h, title)).status, 201);
      linkSync(path.join(h.dataDir, 'events.jsonl'), path.join(h.dataDir, `before-compaction-${i}`));
      assert.notEqual(await store.compact(), undefined, 'the compaction ran');
    }
    await store.checkLogName();
    assert.equal((await create(h, 'After')).status, 201, 'writes go on');
    assert.equal((await h.request('GET', '/health')).status, 200);
    assert.deepEqual(readdirSync(h.dataDir).filter((name) => name.startsWith('events.jsonl.removed-')), []);
  } finally {
    await h.close();
  }
});
