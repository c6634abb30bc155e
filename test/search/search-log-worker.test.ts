// The start-up build's worker thread yields the CPU to the replay: on Linux it lowers its own thread's priority,
// never the process's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { getPriority } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startSearchLogBuild } from '../../src/search/search-log-build.js';
import { SearchTerms } from '../../src/search/search-terms.js';
import { openFileStore } from '../../src/store/file/open-file-store.js';
import { sampleRecord, tempDir } from '../store/helpers.js';

test('the search worker builds at the lowest priority on Linux, and the main thread keeps its own', { skip: process.platform !== 'linux' && 'a thread priority of its own is Linux only' }, async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'events.jsonl');
  fs.writeFileSync(file, '');
  const before = getPriority();
  const result = (await startSearchLogBuild(file, 0, new URL('./search-log-worker-probe.ts', import.meta.url)).result) as unknown as { priority: number };
  assert.equal(result.priority, 19);
  assert.equal(getPriority(), before);
});

test('the worker hashes terms from this thread\'s start: each word it read is found again in the dictionary it hands over, not added a second time', async (t) => {
  const dir = tempDir(t);
  const store = await openFileStore({ dataDir: dir, sync: false, searchWorker: false });
  const words = ['seminar', 'Chemistry', 'café', 'Straße', 'yoga'];
  for (const [n, word] of words.entries()) await store.write(`evt_${String(n + 1).padStart(16, '0')}`, () => sampleRecord(n + 1, { title: word, description: '', location: '' }));
  await store.close();
  const file = path.join(dir, 'events.jsonl');
  const built = await startSearchLogBuild(file, fs.statSync(file).size).result;
  assert.ok(typeof built !== 'string', String(built));
  const terms = SearchTerms.fromParts(built.terms);
  const size = terms.size;
  for (const word of ['seminar', 'chemistry', 'cafe', 'strasse', 'yoga']) {
    const id = terms.internWord(word);
    assert.ok(id < size, `${word} is term ${id} of the ${size} the worker read, not a new one`);
    assert.equal(terms.word(id), word);
  }
  assert.equal(terms.size, size);
});
