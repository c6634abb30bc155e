// The worker thread that builds the search index from the log while the main thread replays it (see search-log-build.ts).
import { constants, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { compacted, transferablesOf } from './search-built.js';
import { useHashStart } from './search-hash.js';
import { buildSearchFromLog } from './search-log-read.js';

yieldToReplay();
const { file, length, hashStart } = workerData as { file: string; length: number; hashStart: number };
// The main thread takes the dictionary's table as built here, and goes on interning into it with its own hash.
useHashStart(hashStart);
// Copied into two buffers of their own before sending (see compacted): nothing sent pins this thread's malloc arena.
const built = compacted(buildSearchFromLog(file, length));
parentPort!.postMessage(built, transferablesOf(built));

/**
 * Runs this thread at the lowest priority, so that the replay's main thread and V8's helper threads (its garbage
 * collection) take a CPU first whenever both are busy: the replay, not the build, is what start-up waits for, and
 * the build still has every CPU the rest of the process leaves. On Linux a thread's priority is its own (a pid of 0
 * means the calling thread); elsewhere it means the whole process, so it is left alone there. docs/performance.md
 * ("Start-up at 1,000,000 events") gives what start-up measures with it.
 */
function yieldToReplay(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(constants.priority.PRIORITY_LOW);
  } catch {
    // Refused (a sandbox without setpriority): the build runs at the usual priority, as it did before.
  }
}
