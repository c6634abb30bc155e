// What `make run` and `make test` would do (make -n -B: every step, none run): running installs only what running needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ROOT } from './helpers/spawn.js';

/** The commands `make -n -B TARGET` prints: every step of TARGET, as if nothing were built yet. */
function steps(target: string): string {
  const result = spawnSync('make', ['-n', '-B', target], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

test('make run installs and builds without the test tooling under test/tools/openapi-typegen: regression of issue 22 point 4', () => {
  const run = steps('run');
  assert.match(run, /npm ci/, 'make run installs the packages of the build');
  assert.match(run, /tsc -p tsconfig\.json/, 'make run builds');
  assert.doesNotMatch(run, /openapi-typegen/);
});

test('make test installs the test tooling under test/tools/openapi-typegen as well', () => {
  const all = steps('test');
  assert.match(all, /npm ci[^\n]*--prefix test\/tools\/openapi-typegen/);
  assert.match(all, /tsc -p tsconfig\.json/);
});
