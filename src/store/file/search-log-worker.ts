// The worker thread that builds the search index from the log while the main thread replays it (see search-log-build.ts).
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { compacted, transferablesOf } from '../views/search-built.js';
import { carryPartialLine } from './line-buffer.js';
import { LogTermCollector } from './search-log-terms.js';

const { file, length } = workerData as { file: string; length: number };
const CHUNK = 4 * 1024 * 1024;

const collector = new LogTermCollector();
const fd = openSync(file, 'r');
let buffer = Buffer.allocUnsafe(CHUNK);
let filled = 0;
/** File offset of buffer[0]. */
let offset = 0;
try {
  while (offset + filled < length) {
    const read = readSync(fd, buffer, filled, Math.min(buffer.length - filled, length - offset - filled), offset + filled);
    if (read === 0) break;
    filled += read;
    let lineStart = 0;
    for (let newline = buffer.indexOf(10, 0); newline !== -1 && newline < filled; newline = buffer.indexOf(10, lineStart)) {
      collector.line(buffer, lineStart, newline);
      lineStart = newline + 1;
    }
    buffer = carryPartialLine(buffer, lineStart, filled);
    filled -= lineStart;
    offset += lineStart;
  }
} finally {
  closeSync(fd);
}
const built = compacted(collector.finish(offset));
parentPort!.postMessage(built, transferablesOf(built));
