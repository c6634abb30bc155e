// The search index's build from the log's bytes (what the start-up worker runs): the log read a chunk at a time,
// each whole line handed to a LogTermCollector. A function of its own so a bench can run it in-process.
import { closeSync, openSync, readSync } from 'node:fs';
import type { BuiltSearch } from './search-built.js';
import { carryPartialLine } from '../lib/line-buffer.js';
import { LogTermCollector } from './search-log-terms.js';

const CHUNK = 4 * 1024 * 1024;

/**
 * The built search of the first `length` bytes of the log `file` (whole lines: nothing is appended meanwhile), read
 * `chunk` bytes at a time (a line longer than that is read into a buffer twice as long, and so on).
 */
export function buildSearchFromLog(file: string, length: number, collector = new LogTermCollector(), chunk = CHUNK): BuiltSearch {
  const fd = openSync(file, 'r');
  let buffer = Buffer.allocUnsafe(chunk);
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
  return collector.finish(offset);
}
