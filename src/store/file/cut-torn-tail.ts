// A start's cut of a torn tail (a crash mid-write): the bytes after the last good line kept aside, then cut off the log.
import type { FileSystemSeam } from './file-system.js';
import type { TornTail } from './log-scan.js';
import type { StoreLogger } from './store-logger.js';
import { copyBytes } from './write-fully.js';
import { createKeptFile, fileStamp } from './kept-file.js';

/** Copies the bytes after the last good line to a `.torn-` file, durably, then cuts them off the log. */
export async function cutTornTail(
  fs: FileSystemSeam,
  cut: { fd: number; file: string; dataDir: string; torn: TornTail; fileLength: number; now: () => number; logger: StoreLogger },
): Promise<void> {
  const { fd: out, file: tornFile } = await createKeptFile(fs, `${cut.file}.torn-${fileStamp(cut.now())}`);
  try {
    await copyBytes(fs, { from: cut.fd, start: cut.torn.offset, end: cut.fileLength, to: out, toPosition: 0, what: tornFile });
    await fs.fsync(out);
  } finally {
    await fs.close(out);
  }
  await fs.syncDirectory(cut.dataDir);
  await fs.ftruncate(cut.fd, cut.torn.offset);
  await fs.fsync(cut.fd);
  // Most often a crash mid-write; a whole last line whose checksum fails (a bit the disk changed) is cut the same way (API.md §7), so `reason` says which.
  cut.logger.warn('the event log ended in a torn write (an incomplete or damaged last line: a crash mid-write, most often); the tail was cut off and kept aside', {
    file: cut.file,
    torn_file: tornFile,
    line: cut.torn.line,
    cut_bytes: cut.fileLength - cut.torn.offset,
    reason: cut.torn.reason,
  });
}
