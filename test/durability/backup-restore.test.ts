// `cli.js backup` while the server writes, then a restore into a new folder: the copy is a prefix state holding every earlier acknowledged write.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/harness.js';
import { createKey, eventBody, listAll, logFile, logRecords, runCliAsync, send, serverArgs, sleep, startServer } from './support.js';

test('backup while 8 clients write: the copy verifies, is a prefix of the log, and a server started on it has every write acknowledged before the backup', async () => {
  const { dir, remove } = tempDir('campus-backup-');
  const source = path.join(dir, 'live');
  const restored = path.join(dir, 'restored');
  const backup = path.join(dir, 'backup.jsonl');
  const key = createKey(source);
  const server = await startServer(serverArgs(source));
  const acknowledged = new Set<string>();
  const sentTitles = new Set<string>();
  let writing = true;
  const problems: string[] = [];
  const writers = Array.from({ length: 8 }, async (_, c) => {
    for (let n = 0; writing && problems.length === 0; n++) {
      const title = `Writer ${c} event ${n}`;
      sentTitles.add(title);
      try {
        const response = await send(server.url, key, 'POST', '/events', eventBody(title, { description: 'x'.repeat(n % 7 === 0 ? 3000 : 100) }));
        if (response.status === 201) acknowledged.add(((await response.json()) as { id: string }).id);
        else problems.push(`${title}: ${response.status} ${await response.text()}`);
      } catch (error) {
        problems.push(`${title}: ${String(error)}`);
      }
    }
  });
  let before: Set<string>;
  try {
    while (acknowledged.size < 100 && problems.length === 0) await sleep(5);
    before = new Set(acknowledged);
    const backedUp = await runCliAsync(['backup', '--out', backup, '--data-dir', source]);
    const during = acknowledged.size;
    assert.equal(backedUp.status, 0, backedUp.stderr);
    assert.match(backedUp.stdout, /^backed up \d+ records \(last seq \d+, \d+ bytes\) of .* to .*backup\.jsonl/);
    // `verify` reads a folder a server is writing: read-only, without its LOCK.
    const verified = await runCliAsync(['verify', '--json', '--data-dir', source]);
    assert.equal(verified.status, 0, verified.stderr);
    assert.ok(during > before.size, 'writes went on while the backup ran');
  } finally {
    writing = false;
    await Promise.all(writers);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  }
  assert.deepEqual(problems, [], 'every write was acknowledged');

  try {
    const copy = readFileSync(backup);
    const original = readFileSync(logFile(source));
    assert.ok(copy.length > 0 && copy.length < original.length, `${copy.length} of ${original.length} bytes`);
    assert.ok(original.subarray(0, copy.length).equals(copy), 'the backup is a prefix of the log, ending with a whole line');

    mkdirSync(restored);
    copyFileSync(backup, logFile(restored));
    const verified = await runCliAsync(['verify', '--json', '--data-dir', restored]);
    assert.equal(verified.status, 0, verified.stderr);
    assert.equal(verified.stderr, '', 'no torn tail, no warning');
    const report = JSON.parse(verified.stdout) as { lines: number; live_events: number; torn: unknown };
    const inBackup = logRecords(logFile(restored));
    assert.equal(report.lines, inBackup.length);
    assert.equal(report.torn, null);

    const restoredKey = createKey(restored);
    const server2 = await startServer(serverArgs(restored));
    try {
      const found = await listAll(server2.url, restoredKey);
      assert.equal(found.size, report.live_events);
      assert.deepEqual(new Set(found.keys()), new Set(inBackup.map((record) => record.id)), 'the restored server holds exactly the events in the copy');
      for (const id of before) assert.ok(found.has(id), `${id}, acknowledged before the backup started, is in it`);
      for (const event of found.values()) assert.ok(sentTitles.has(event.title), event.title);
    } finally {
      server2.child.kill('SIGTERM');
      await server2.exited;
    }
  } finally {
    remove();
  }
});
