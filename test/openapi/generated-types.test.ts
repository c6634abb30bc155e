// The served document through openapi-typescript (a generator nobody here wrote): the README's own create body and
// partial update type-check against the request types it generates (a `default` would make `description` required).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createApp } from '../../src/app.js';
import { docBlock } from '../helpers/docs.js';
import { call, tempDir } from '../helpers/harness.js';
import { ROOT } from '../helpers/spawn.js';

const TOOLS = path.join(ROOT, 'test/tools/openapi-typegen/node_modules');

/** The JSON bodies the README's quick start sends with `curl -d`: the create (it has a title) and the update (no title, a capacity). */
function readmeBodies(): { create: string; update: string } {
  const block = docBlock('README.md', '## Quick start', 'sh', 'keys create');
  const bodies = [...block.matchAll(/-d '([^']*)'/g)].map((match) => match[1]!);
  const create = bodies.find((body) => body.includes('"title"'));
  const update = bodies.find((body) => !body.includes('"title"') && body.includes('"capacity"'));
  assert.ok(create !== undefined && update !== undefined, 'the quick start creates and updates an event');
  return { create, update };
}

test('the README create body and partial update type-check against the types openapi-typescript generates', { timeout: 120_000 }, async () => {
  assert.ok(existsSync(path.join(TOOLS, 'openapi-typescript')), 'make install puts openapi-typescript in test/tools/openapi-typegen');
  const { dir, remove } = tempDir();
  const app = await createApp({ store: 'memory', bootstrapAdminKey: false, keyPollMs: 0 });
  try {
    writeFileSync(path.join(dir, 'openapi.json'), (await call(app, 'GET', '/openapi.json')).text!);
    const generated = spawnSync(process.execPath, [path.join(TOOLS, 'openapi-typescript/bin/cli.js'), path.join(dir, 'openapi.json'), '-o', path.join(dir, 'api.ts')], { encoding: 'utf8' });
    assert.equal(generated.status, 0, generated.stderr);
    const { create, update } = readmeBodies();
    writeFileSync(
      path.join(dir, 'client.ts'),
      [
        "import type { components } from './api.js';",
        `export const create: components['schemas']['EventCreate'] = ${create};`,
        `export const update: components['schemas']['EventUpdate'] = ${update};`,
        '',
      ].join('\n'),
    );
    const checked = spawnSync(process.execPath, [path.join(TOOLS, 'typescript/bin/tsc'), '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', path.join(dir, 'client.ts')], { encoding: 'utf8' });
    assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
  } finally {
    await app.close();
    remove();
  }
});
