// The worker thread that builds the search index from the log while the main thread replays it (see search-log-build.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { compacted, transferablesOf } from '../views/search-built.js';
import { buildSearchFromLog } from './search-log-read.js';

const { file, length } = workerData as { file: string; length: number };
// Copied into two buffers of their own before sending (see compacted): nothing sent pins this thread's malloc arena.
const built = compacted(buildSearchFromLog(file, length));
parentPort!.postMessage(built, transferablesOf(built));
