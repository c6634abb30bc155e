// The start-up build's worker thread yields the CPU to the replay: on Linux it lowers its own thread's priority,
// never the process's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { getPriority } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startSearchLogBuild } from '../../src/search/search-log-build.js';
import { tempDir } from '../store/helpers.js';

test('the search worker builds at the lowest priority on Linux, and the main thread keeps its own', { skip: process.platform !== 'linux' && 'a thread priority of its own is Linux only' }, async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'events.jsonl');
  fs.writeFileSync(file, '');
  const before = getPriority();
  const result = (await startSearchLogBuild(file, 0, new URL('./search-log-worker-probe.ts', import.meta.url)).result) as unknown as { priority: number };
  assert.equal(result.priority, 19);
  assert.equal(getPriority(), before);
});
