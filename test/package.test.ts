// The published package: no runtime dependencies, and `npm pack` ships dist/ (with its types and source maps), the
// sources those maps point at, README and LICENSE only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, spawnServer } from './helpers/spawn.js';
import { tempDir } from './helpers/harness.js';

test('package.json has no runtime dependencies and exports dist/index.js with its types', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- package.json is free-form
  assert.deepEqual(pkg['dependencies'] ?? {}, {});
  assert.equal(pkg['exports']['.']['default'], './dist/index.js');
  assert.equal(pkg['exports']['.']['types'], './dist/index.d.ts');
});

/** The paths `npm pack` would put in the package. */
function packedFiles(): string[] {
  const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  const [packed] = JSON.parse(result.stdout) as [{ files: { path: string }[] }];
  return packed.files.map((file) => file.path);
}

test('npm pack contains dist/ (code, types, maps), src/, docs/ (the README links into it), README.md, LICENSE and package.json, nothing else', () => {
  const files = packedFiles();
  // The console's page, stylesheet, icon and client tsconfig (API.md §10) ship beside its scripts and sources.
  const consoleFile = /^(dist|src)\/console\/web\/([a-z-]+\.(html|css|svg)|tsconfig\.json)$/;
  const stray = files.filter((file) => !/^dist\/.+\.(js|d\.ts|js\.map)$/.test(file) && !/^src\/.+\.ts$/.test(file) && !/^docs\/.+\.md$/.test(file) && !consoleFile.test(file) && !['README.md', 'LICENSE', 'package.json'].includes(file));
  assert.deepEqual(stray, []);
  for (const needed of ['dist/index.js', 'dist/index.d.ts', 'dist/server.js', 'dist/cli.js', 'dist/console/web/index.html', 'dist/console/web/console.css', 'dist/console/web/main.js', 'dist/console/web/icon.svg', 'README.md', 'docs/api.md', 'LICENSE']) assert.ok(files.includes(needed), `${needed} is packed`);
});

test('every source map in the package points at sources the package holds', () => {
  const files = new Set(packedFiles());
  const maps = [...files].filter((file) => file.endsWith('.js.map'));
  assert.ok(maps.length > 0, 'the package has source maps');
  const missing: string[] = [];
  for (const map of maps) {
    const { sources } = JSON.parse(readFileSync(path.join(ROOT, map), 'utf8')) as { sources: string[] };
    for (const source of sources) {
      const packed = path.posix.join(path.posix.dirname(map), source);
      if (!files.has(packed)) missing.push(`${map} → ${packed}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('npm start builds and starts the server, passing flags after --', { timeout: 60_000 }, async () => {
  const { dir, remove } = tempDir();
  try {
    const server = await spawnServer(['start', '--silent', '--', '--port', '0', '--data-dir', dir], {}, ['npm']);
    try {
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    assert.ok(existsSync(path.join(dir, 'keys.json')), 'it served the folder it was given');
  } finally {
    remove();
  }
});

test('the published types compile in a consumer with the strictest settings (exactOptionalPropertyTypes, no skipLibCheck)', () => {
  const { dir, remove } = tempDir();
  try {
    // The package as an embedder installs it: its package.json and dist/, under node_modules/campus-events.
    const installed = path.join(dir, 'node_modules', 'campus-events');
    mkdirSync(installed, { recursive: true });
    symlinkSync(path.join(ROOT, 'package.json'), path.join(installed, 'package.json'));
    symlinkSync(path.join(ROOT, 'dist'), path.join(installed, 'dist'));
    symlinkSync(path.join(ROOT, 'node_modules', '@types'), path.join(dir, 'node_modules', '@types'));
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n');
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: false, noEmit: true, types: ['node'] },
      files: ['host.ts'],
    }));
    writeFileSync(path.join(dir, 'host.ts'), [
      "import http from 'node:http';",
            // In double quotes: makefile.test.ts's scan of this file's own imports reads single-quoted ones.
      'import { createApp, createLogger, startServer, type App, type AppOptions, type NewKey, type RunningServer } from "campus-events";',
      "const options: AppOptions = { store: 'memory', basePath: '/api/campus', corsOrigins: ['https://app.campus.edu'], logger: createLogger({ level: 'warn', write: (line: string) => process.stderr.write(line) }) };",
      'const app: App = await createApp(options);',
      "const key: NewKey = await app.createKey({ name: 'Rita Reader', email: 'rita@campus.edu', role: 'reader' });",
      'http.createServer(app.handler).close();',
      "const running: RunningServer = await startServer({ port: 0, store: 'memory' });",
      'console.log(key.id, running.url);',
      'await running.close();',
      'await app.close();',
    ].join('\n'));
    const compiled = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', dir], { encoding: 'utf8' });
    assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);
  } finally {
    remove();
  }
});
