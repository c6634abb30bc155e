// What `make run`, `make test` and `make bench` would do (make -n -B: every step, none run): running installs only
// what running needs; the tests' and benchmarks' packages come from their own installs under test/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers/spawn.js';

/** The commands `make -n -B TARGET` prints: every step of TARGET, as if nothing were built yet. */
function steps(target: string): string {
  const result = spawnSync('make', ['-n', '-B', target], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

/** The `npm ci` lines among `steps`. */
function installs(commands: string): string[] {
  return commands.split('\n').filter((line) => /\bnpm (ci|install|i)\b/.test(line));
}

test('make run installs the root package.json alone, never test/ or test/tools/openapi-typegen: issue 32 point 4 (and issue 22 point 4)', () => {
  const run = steps('run');
  assert.deepEqual(installs(run), ['npm ci --no-audit --no-fund'], 'one install, of the root package.json');
  assert.match(run, /tsc -p tsconfig\.json/, 'make run builds');
  assert.doesNotMatch(run, /--prefix|test\//, 'nothing under test/ is installed or built');
});

test('make test installs test/ and test/tools/openapi-typegen besides the root', () => {
  const all = steps('test');
  assert.deepEqual(installs(all).sort(), ['npm ci --no-audit --no-fund', 'npm ci --no-audit --no-fund --prefix test', 'npm ci --no-audit --no-fund --prefix test/tools/openapi-typegen']);
  assert.match(all, /tsc -p tsconfig\.json/);
});

test('make bench installs test/, where its Fastify peer and ajv come from', () => {
  assert.ok(installs(steps('bench')).includes('npm ci --no-audit --no-fund --prefix test'));
});

test('make clean removes every node_modules folder an install made', () => {
  const clean = steps('clean');
  for (const folder of ['node_modules', 'test/node_modules', 'test/tools/openapi-typegen/node_modules']) {
    assert.match(clean, new RegExp(`\\s${folder.replaceAll('/', '\\/')}(\\s|$)`), `make clean removes ${folder}`);
  }
});

/** The devDependencies' names of the package.json in `folder`, and those its lock records for the root. */
function declared(folder: string): { manifest: string[]; lock: string[] } {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, folder, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  const lock = JSON.parse(readFileSync(path.join(ROOT, folder, 'package-lock.json'), 'utf8')) as { packages: Record<string, { devDependencies?: Record<string, string> }> };
  return { manifest: Object.keys(manifest.devDependencies ?? {}).sort(), lock: Object.keys(lock.packages['']?.devDependencies ?? {}).sort() };
}

test('the root devDependencies are exactly what building, running and the tests need from the root: TypeScript, tsx, the Node types and pg', () => {
  // tsx: `node --import tsx` resolves it from the working folder (the root). pg: src/ loads it with import(), so it
  // must resolve from src/ and dist/. Everything else a test or a benchmark imports lives in test/package.json.
  const root = declared('.');
  assert.deepEqual(root.manifest, ['@types/node', '@types/pg', 'pg', 'tsx', 'typescript']);
  assert.deepEqual(root.lock, root.manifest, 'package-lock.json agrees with package.json (npm ci would refuse otherwise)');
});

test('every package a file under test/ imports is declared in the root package.json or in test/package.json, never both', () => {
  const root = declared('.').manifest;
  const tests = declared('test');
  assert.deepEqual(tests.lock, tests.manifest, 'test/package-lock.json agrees with test/package.json');
  assert.deepEqual(tests.manifest.filter((name) => root.includes(name)), [], 'one install holds each package');
  const imported = new Map<string, string>();
  const files = spawnSync('git', ['ls-files', 'test/*.ts'], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  assert.ok(files.length > 0);
  for (const file of files) {
    // Comments left out: they name packages without importing them.
    const source = readFileSync(path.join(ROOT, file), 'utf8').split('\n').filter((line) => !/^\s*(\/\/|\*)/.test(line)).join('\n');
    for (const match of source.matchAll(/(?:\bfrom\s+|^import\s+|\bimport\(\s*|\.resolve\()'([^'./][^']*)'/gm)) {
      const specifier = match[1]!;
      if (specifier.startsWith('node:')) continue;
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
      if (!imported.has(name)) imported.set(name, file);
    }
  }
  assert.ok(imported.has('playwright-core') && imported.has('fastify'), 'the scan finds the test tools');
  const undeclared = [...imported].filter(([name]) => !root.includes(name) && !tests.manifest.includes(name));
  assert.deepEqual(undeclared, []);
});
