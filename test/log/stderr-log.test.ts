// The server's log on stderr when stderr is a file on a disk that fills: lines are dropped while there is no room, and
// written again once there is, with one line saying how many went (a spawned `node dist/server.js`, a real tmpfs).
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/harness.js';
import { SERVER, spawnServer, waitFor } from '../helpers/spawn.js';
import { fill, mountTinyFileSystem } from '../helpers/tiny-fs.js';

const tiny = mountTinyFileSystem('256k');

test('stderr to a file on a full disk: the log goes on once there is room, saying how many lines were dropped, and its stop is logged', { skip: tiny === undefined ? 'needs root and tmpfs' : false, timeout: 60_000 }, async (t) => {
  const { dir: mount, unmount } = tiny!;
  const { dir: dataDir, remove } = tempDir('campus-stderr-log-');
  t.after(() => {
    unmount();
    remove();
  });
  const logFile = path.join(mount, 'campus-events.log');
  const server = await spawnServer(['--data-dir', dataDir, '--port', '0', '--console', 'off'], {}, ['sh', '-c', `exec "$0" "$@" 2>>'${logFile}'`, process.execPath, SERVER]);
  t.after(() => server.child.kill('SIGKILL'));
  const get = async (id: string): Promise<void> => {
    const response = await fetch(`${server.url}/health`, { headers: { 'X-Request-Id': id } });
    assert.equal(response.status, 200);
    await response.text();
  };
  await get('before-full');
  assert.ok(await waitFor(async () => readFileSync(logFile, 'utf8').includes('before-full'), 5_000));
  const filler = fill(mount);
  for (let i = 0; i < 30; i++) await get(`while-full-${i}`);
  // The log writes every 10 ms: give the lines of the full disk their chance to fail.
  await new Promise((resolve) => setTimeout(resolve, 100));
  rmSync(filler);
  await get('after-room');
  assert.ok(await waitFor(async () => readFileSync(logFile, 'utf8').includes('after-room'), 5_000), 'a line written once there was room');
  assert.equal(await server.stop(), 0);
  const lines = readFileSync(logFile, 'utf8').split('\n').filter((line) => line !== '');
  const parsed = lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
  assert.ok(lines.length - parsed.length <= 1, `at most one line cut by the full disk: ${lines.length - parsed.length}`);
  const dropped = parsed.find((line) => line['msg'] === 'log lines dropped: stderr\'s file could not be written (a full disk?)');
  assert.ok(dropped !== undefined && typeof dropped['lines'] === 'number' && dropped['lines'] > 0, 'a line says how many were dropped');
  assert.ok(parsed.some((line) => line['msg'] === 'stopped'), 'the stop is logged');
});
