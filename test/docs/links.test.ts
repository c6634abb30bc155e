// The manual stands alone in a clone: README.md and docs/ name no file outside the repository, and every link they make resolves inside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { headingAnchors, manualFiles, outsideFences, readDoc, slug } from '../helpers/docs.js';
import { ROOT } from '../helpers/spawn.js';

/** `file:line` for every line of the manual that contains `text`. */
function linesWith(text: string): string[] {
  return manualFiles().flatMap((file) => readDoc(file).split('\n').flatMap((line, i) => (line.includes(text) ? [`${file}:${i + 1}`] : [])));
}

/** Every relative link or image target of `file` outside code blocks, with its line. */
function relativeLinks(file: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  outsideFences(readDoc(file))
    .split('\n')
    .forEach((text, i) => {
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!/^[a-z][a-z0-9+.-]*:/i.test(match[1]!)) found.push({ target: match[1]!, line: i + 1 });
      }
    });
  return found;
}

/** Why `target`, linked from `file`, does not resolve; undefined when it does. */
function brokenBecause(file: string, target: string): string | undefined {
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = pathPart === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), pathPart);
  if (!resolved.startsWith(ROOT + path.sep)) return 'points outside the repository';
  if (!existsSync(resolved)) return 'no such file';
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) return 'an anchor into a file that has no headings';
  const anchors = headingAnchors(readDoc(path.relative(ROOT, resolved)));
  return anchors.has(anchor) ? undefined : `no heading of ${path.relative(ROOT, resolved)} has the anchor #${anchor}`;
}

test('the manual sends no reader to ../shared/ (a clone has no such folder): regression of issue 22 point 3', () => {
  assert.deepEqual(linesWith('../shared/'), [], 'lines naming ../shared/');
  assert.deepEqual(linesWith('shared/API.md'), [], 'lines naming shared/API.md');
});

test('the manual is README.md and the seven files of docs/, and the README links to each of them', () => {
  assert.deepEqual(manualFiles(), ['README.md', 'docs/api.md', 'docs/console.md', 'docs/decisions.md', 'docs/development.md', 'docs/operations.md', 'docs/performance.md', 'docs/postgres.md']);
  const fromReadme = new Set(relativeLinks('README.md').map(({ target }) => target.split('#')[0]));
  for (const file of manualFiles().slice(1)) assert.ok(fromReadme.has(file), `README.md links to ${file}`);
});

test('every relative link and image of README.md and docs/ resolves to a file of the repository, and every #anchor to a heading of its target', () => {
  const broken: string[] = [];
  let count = 0;
  for (const file of manualFiles()) {
    for (const { target, line } of relativeLinks(file)) {
      count++;
      const why = brokenBecause(file, target);
      if (why !== undefined) broken.push(`${file}:${line} ${target}: ${why}`);
    }
  }
  assert.ok(count >= 30, `the manual's relative links were found (${count})`);
  assert.deepEqual(broken, []);
});

test('brokenBecause() refuses a missing file, a missing anchor, a path outside the repository, and accepts a heading anchor', () => {
  assert.equal(brokenBecause('README.md', 'docs/api.md#webhooks'), undefined);
  assert.equal(brokenBecause('docs/api.md', '../README.md#keys-and-roles'), undefined);
  assert.equal(brokenBecause('docs/api.md', '#errors'), undefined);
  assert.match(brokenBecause('README.md', 'docs/nothing.md') ?? '', /no such file/);
  assert.match(brokenBecause('docs/api.md', '../README.md#no-such-heading') ?? '', /no heading/);
  assert.match(brokenBecause('docs/api.md', '../../outside.md') ?? '', /outside the repository/);
  assert.match(brokenBecause('README.md', 'LICENSE#top') ?? '', /no headings/);
});

test('slug() and headingAnchors() make GitHub\'s anchors: punctuation dropped, repeats numbered, code blocks skipped', () => {
  assert.equal(slug('Why `pg`'), 'why-pg');
  assert.equal(slug('Where the contract was silent: what we chose'), 'where-the-contract-was-silent-what-we-chose');
  assert.deepEqual([...headingAnchors('# A\n## A\n```sh\n# not a heading\n```\n### B.c')], ['a', 'a-1', 'bc']);
});
