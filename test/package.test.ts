// The published package: no runtime dependencies, and `npm pack` ships dist/, its types, README and LICENSE only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers/spawn.js';

test('package.json has no runtime dependencies and exports dist/index.js with its types', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- package.json is free-form
  assert.deepEqual(pkg['dependencies'] ?? {}, {});
  assert.equal(pkg['exports']['.']['default'], './dist/index.js');
  assert.equal(pkg['exports']['.']['types'], './dist/index.d.ts');
});

test('npm pack contains dist/ (code and types), README.md, LICENSE and package.json, nothing else', () => {
  const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  const [packed] = JSON.parse(result.stdout) as [{ files: { path: string }[] }];
  const files = packed.files.map((file) => file.path);
  // The console's page and stylesheet (API.md §10) ship beside its scripts.
  const consolePage = /^dist\/console\/web\/[a-z-]+\.(html|css)$/;
  const stray = files.filter((file) => !/^dist\/.+\.(js|d\.ts|js\.map)$/.test(file) && !consolePage.test(file) && !['README.md', 'LICENSE', 'package.json'].includes(file));
  assert.deepEqual(stray, []);
  for (const needed of ['dist/index.js', 'dist/index.d.ts', 'dist/server.js', 'dist/cli.js', 'dist/console/web/index.html', 'dist/console/web/console.css', 'dist/console/web/main.js', 'README.md', 'LICENSE']) assert.ok(files.includes(needed), `${needed} is packed`);
});
