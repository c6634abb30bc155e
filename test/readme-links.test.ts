// The README stands alone in a clone: it names no file outside the repository, and every link it makes resolves inside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers/spawn.js';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The 1-based line numbers of the README that contain `text`. */
function linesWith(text: string): number[] {
  return readme.split('\n').flatMap((line, i) => (line.includes(text) ? [i + 1] : []));
}

test('README sends no reader to ../shared/ (a clone has no such folder): regression of issue 22 point 3', () => {
  assert.deepEqual(linesWith('../shared/'), [], 'README lines naming ../shared/');
  assert.deepEqual(linesWith('shared/API.md'), [], 'README lines naming shared/API.md');
});

test('every relative link and image of the README resolves to a file of the repository, and every #anchor to a heading', () => {
  const anchors = new Set(
    readme
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => line.replace(/^#+ /, '').trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')),
  );
  const broken: string[] = [];
  let count = 0;
  for (const match of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!;
    if (/^[a-z]+:/i.test(target)) continue;
    count++;
    if (target.startsWith('#')) {
      if (!anchors.has(target.slice(1))) broken.push(target);
      continue;
    }
    const file = path.resolve(ROOT, target.split('#')[0]!);
    if (!file.startsWith(ROOT + path.sep) || !existsSync(file)) broken.push(target);
  }
  assert.ok(count >= 3, `the README's relative links were found (${count})`);
  assert.deepEqual(broken, []);
});
