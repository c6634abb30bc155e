// The shape of src/ (STYLE.md "One concern per file"; the house rules): no import circle among its files, and no file
// over 400 lines. Both read every file under src/, the console's web client included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importCycles, readSource, SRC, sourceFiles } from './source-graph.js';

/** The most lines a file under src/ may have: past it, split the file by concern (not by line count). */
const MAX_LINES = 400;

/** The files of `files` over `limit` lines, each as "path: N lines", longest first. */
function longFiles(files: readonly string[], read: (file: string) => string, limit: number): string[] {
  const counted = files.map((file) => ({ file, lines: lineCount(read(file)) })).filter(({ lines }) => lines > limit);
  return counted.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file)).map(({ file, lines }) => `${file}: ${lines} lines`);
}

/** Lines as `wc -l` and an editor count them: a last line without its newline still counts. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

test('no import circle among the files of src/ (static, dynamic, type-only imports and re-exports all count)', () => {
  assert.deepEqual(importCycles(sourceFiles(SRC), readSource), [], 'these files import each other, directly or around a circle: move what both need into a file of its own, or where it belongs');
});

test(`no file under src/ is over ${MAX_LINES} lines`, () => {
  assert.deepEqual(longFiles(sourceFiles(SRC, '', ''), readSource, MAX_LINES), [], `split these by concern (STYLE.md: one concern per file, named after its main export)`);
});

test('src/ measures time passing on a clock that never steps: Date.now() only where a date is shown (a clock set back an hour would stretch a wait by that hour)', () => {
  // The server's first-key notice prints when the key was made; the console runs in a browser, whose waits are its own.
  const showsADate = new Set(['run-server.ts']);
  const measuring = sourceFiles(SRC).filter((file) => !file.startsWith('console/web/') && !showsADate.has(file) && readSource(file).includes('Date.now()'));
  assert.deepEqual(measuring, [], 'measure waits and deadlines with performance.now() (or steadyNow() for a wall-clock reading that never steps)');
});

test('importCycles() finds a direct and a longer circle, once each, through every kind of import, and no circle in a chain', () => {
  const sources: Record<string, string> = {
    'store/event-store.ts': "import type { WriteOptions } from './write/write-queue.js';",
    'store/write/write-queue.ts': "import type { EventIndex } from '../views/event-index.js';",
    'store/views/event-index.ts': "const { ListQuery } = await import('../event-store.js');",
    'store/views/idempotency-table.ts': "export { type LogRecord } from '../records/jsonl-record.js';",
    'store/records/jsonl-record.ts': "import type {\n  IdempotencyEntry,\n} from '../views/idempotency-table.js';\nimport { crc32 } from '../../lib/crc32.js';",
    'lib/crc32.ts': '',
    'store/file/file-store.ts': "import { WriteQueue } from '../write/write-queue.js';",
    'events/event.ts': "import './side-effect.js';",
    'events/side-effect.ts': "import * as event from './event.js';",
  };
  assert.deepEqual(importCycles(Object.keys(sources), (file) => sources[file]!), [
    'events/event.ts → events/side-effect.ts → events/event.ts',
    'store/event-store.ts → store/write/write-queue.ts → store/views/event-index.ts → store/event-store.ts',
    'store/records/jsonl-record.ts → store/views/idempotency-table.ts → store/records/jsonl-record.ts',
  ]);
  delete sources['store/views/event-index.ts'];
  delete sources['events/side-effect.ts'];
  sources['store/records/jsonl-record.ts'] = "import { crc32 } from '../../lib/crc32.js';";
  assert.deepEqual(importCycles(Object.keys(sources), (file) => sources[file]!), [], 'a chain, and imports of files not in the list, are no circle');
});

test('longFiles() names each file over the limit with its line count, longest first, and counts lines as wc -l does', () => {
  const sources: Record<string, string> = {
    'a.ts': 'x\n'.repeat(401),
    'b.ts': 'x\n'.repeat(400),
    'c.ts': `${'x\n'.repeat(400)}no newline at the end`,
    'd.css': 'x\n'.repeat(500),
    'e.ts': '',
  };
  assert.deepEqual(longFiles(Object.keys(sources), (file) => sources[file]!, 400), ['d.css: 500 lines', 'a.ts: 401 lines', 'c.ts: 401 lines']);
});
