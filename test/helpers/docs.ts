// The README and docs/ as the tests read them: a file's text, the fenced blocks under a heading, the anchors of its headings.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './spawn.js';

/** The manual's files, relative to the repository: README.md and every Markdown file of docs/. */
export function manualFiles(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/** The text of `file` (relative to the repository). */
export function readDoc(file: string): string {
  return readFileSync(path.join(ROOT, file), 'utf8');
}

/** `text` with the lines inside fenced code blocks blanked, so a `# comment` in a shell block is not a heading. */
export function outsideFences(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

/** The section of `file` that starts at the heading line `heading` (e.g. `## Change feed`) and ends before the next heading of its level or above. */
export function section(file: string, heading: string): string {
  const text = readDoc(file);
  const level = /^#+/.exec(heading)![0].length;
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line === heading);
  assert.ok(start !== -1, `${file} has no heading "${heading}"`);
  let fenced = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (/^\s*```/.test(lines[i]!)) fenced = !fenced;
    const match = /^(#+) /.exec(lines[i]!);
    if (!fenced && match !== null && match[1]!.length <= level) {
      end = i;
      break;
    }
  }
  return lines.slice(start, end).join('\n');
}

/** The first fenced block of `language` in the section `heading` of `file` that contains `marker`, as written. */
export function docBlock(file: string, heading: string, language: string, marker: string): string {
  for (const match of section(file, heading).matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))) {
    if (match[1]!.includes(marker)) return match[1]!;
  }
  assert.fail(`${file} has no ${language} block with ${marker} under ${heading}`);
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of every heading of `text` outside code blocks; a repeated one gets `-1`, `-2`, … as on GitHub. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of outsideFences(text).split('\n')) {
    const match = /^#{1,6} (.+)$/.exec(line);
    if (match === null) continue;
    const base = slug(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}
