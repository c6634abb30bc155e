// The worker thread that builds the search index from the log while the main thread replays it (see search-log-build.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { transferablesOf } from '../views/search-built.js';
import { buildSearchFromLog } from './search-log-read.js';

const { file, length } = workerData as { file: string; length: number };
const built = buildSearchFromLog(file, length);
parentPort!.postMessage(built, transferablesOf(built));
