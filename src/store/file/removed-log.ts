// events.jsonl removed, or replaced by a rename, while the server holds it open (an operator's `rm events.jsonl*`, a
// backup copied in while it runs): the open log is written back to disk before anything else is acknowledged.
import path from 'node:path';
import type { FileSystemSeam } from './file-system.js';
import { copyBytes } from './write-fully.js';
import { createKeptFile, fileStamp } from './kept-file.js';

/** Where keepRemovedLog put the open log: under the log's own name again, or beside the file that took that name. */
export interface KeptLog {
  restored: boolean;
  /** The kept copy's path: the log's own when `restored`. */
  file: string;
}

/** A write refused because the log lost its name; its message says where the log's lines are. */
export class LogRemoved extends Error {
  override readonly name = 'LogRemoved';
}

/**
 * Copies the open log's first `length` bytes to `FILE.removed-STAMP` and syncs it; then gives the copy the log's name
 * when nothing holds that name (a restart reads every acknowledged write again) and drops the copy's own name, or
 * leaves the copy beside the file that took the log's name (a restart reads that one: the operator chooses).
 */
export async function keepRemovedLog(fs: FileSystemSeam, log: { fd: number; file: string; length: number; now: () => number }): Promise<KeptLog> {
  const { fd: out, file: copy } = await createKeptFile(fs, `${log.file}.removed-${fileStamp(log.now())}`);
  try {
    await copyBytes(fs, { from: log.fd, start: 0, end: log.length, to: out, toPosition: 0, what: copy });
    await fs.fsync(out);
  } finally {
    await fs.close(out);
  }
  const folder = path.dirname(log.file);
  try {
    await fs.link(copy, log.file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    await fs.syncDirectory(folder);
    return { restored: false, file: copy };
  }
  await fs.unlink(copy);
  await fs.syncDirectory(folder);
  return { restored: true, file: log.file };
}
