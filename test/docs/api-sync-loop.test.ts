// docs/api.md's polling sync loop, run as written against the built server: a paged copy that a compaction cannot stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { docBlock } from '../helpers/docs.js';
import { spawnServer, waitFor } from '../helpers/spawn.js';
import { tempDir } from '../helpers/harness.js';

/** docs/api.md's js block under `## Change feed` that pages with the copy token. */
function syncLoop(): string {
  return docBlock('docs/api.md', '## Change feed', 'js', '&copy=');
}

test('docs/api.md sync loop: a copy of 3-event pages completes after a compaction dropped deletions newer than every page boundary (issue 22 point 1)', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const server = await spawnServer(['--port', '0', '--data-dir', dir, '--compact-min-bytes', '1']);
  t.after(() => server.stop());
  const key = /cek_[A-Za-z0-9]+/.exec(server.stderr())![0];
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const body = JSON.stringify({ title: `E${i}`, category: 'social', location: 'Quad', start_time: '2030-08-01T09:00:00Z', end_time: '2030-08-01T12:00:00Z', capacity: 5 });
    const created = await fetch(`${server.url}/events`, { method: 'POST', headers, body });
    assert.equal(created.status, 201);
    ids.push(((await created.json()) as { id: string }).id);
  }
  // Every other event, the last one included: the newest deletion is past every page of the copy.
  for (let i = 1; i < 30; i += 2) assert.equal((await fetch(`${server.url}/events/${ids[i]}`, { method: 'DELETE', headers })).status, 204);
  const compacted = await waitFor(async () => (await fetch(`${server.url}/changes?since=1`, { headers })).status === 410, 10_000);
  assert.ok(compacted, 'the server compacted its log by itself (--compact-min-bytes 1) and forgot the deletions');

  const script = path.join(dir, 'sync-changes.mjs');
  writeFileSync(script, syncLoop().replace('limit=1000', 'limit=3'));
  const child = spawn(process.execPath, [script], { env: { ...process.env, BASE: server.url, KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill());
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const synced = await waitFor(async () => out.includes('\n'), 10_000);
  assert.ok(synced, `the loop got in sync; it printed: ${out}`);
  assert.equal(out.split('\n')[0], 'in sync at 45: 15 events', 'one pass over five pages, next_since the newest write (the last deletion)');
});
