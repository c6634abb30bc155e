// The README's shell quick start and embedding example, run exactly as written so they cannot rot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, spawnServer } from './helpers/spawn.js';
import { tempDir } from './helpers/harness.js';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The first fenced block of `language` after `heading` that contains `marker`. */
function block(heading: string, language: string, marker: string): string {
  const section = readme.slice(readme.indexOf(heading));
  for (const match of section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))) {
    if (match[1]!.includes(marker)) return match[1]!;
  }
  assert.fail(`README has no ${language} block with ${marker} after ${heading}`);
}

test('README quick start: create a key, then create, list, update and delete an event with curl', { skip: spawnSync('curl', ['--version']).status !== 0 && 'curl is not installed' }, async () => {
  const { dir, remove } = tempDir();
  try {
    const server = await spawnServer(['--port', '0', '--data-dir', dir]);
    try {
      // The only change: the address the test server got instead of the default port.
      const script = block('## Quick start', 'sh', 'keys create').split('127.0.0.1:3000').join(new URL(server.url).host);
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, DATA_DIR: dir }, encoding: 'utf8', timeout: 30_000 });
      assert.equal(result.status, 0, result.stderr);
      const outputs = result.stdout;
      assert.match(outputs, /"id":"evt_[0-9A-Za-z]{16,}"/, 'the create printed the event');
      assert.match(outputs, /"capacity":150,"registered_count":0/, 'the update printed the new capacity');
      assert.match(outputs, /HTTP\/1\.1 204/, 'the delete answered 204');
    } finally {
      assert.equal(await server.stop(), 0);
    }
  } finally {
    remove();
  }
});

test('README embedding example runs as written, mounted under /api/campus', async () => {
  const { dir, remove } = tempDir();
  // Inside the package folder, so `import ... from 'campus-events'` resolves to this package's exports.
  const file = path.join(ROOT, `.readme-example-${process.pid}.mjs`);
  writeFileSync(file, block('## Embedding', 'js', 'createApp'));
  const child = spawn(process.execPath, [file], { env: { ...process.env, DATA_DIR: dir, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const port = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        const match = /host listening on port (\d+)/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`example exited ${code}: ${stderr}`)));
    });
    const base = `http://127.0.0.1:${port}`;
    assert.equal(await (await fetch(`${base}/`)).text(), 'the host application\n');
    const health = await fetch(`${base}/api/campus/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const unauthenticated = await fetch(`${base}/api/campus/v1/events`);
    assert.equal(unauthenticated.status, 401);
    assert.ok(existsSync(path.join(dir, 'LOCK')), 'the app holds the data folder');
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.ok(!existsSync(path.join(dir, 'LOCK')), 'close() released the data folder');
  } finally {
    child.kill('SIGKILL');
    rmSync(file, { force: true });
    remove();
  }
});
