// A consistent copy of events.jsonl taken while a server writes it: the longest prefix of whole, verified lines.
import * as path from 'node:path';
import { lstat } from 'node:fs/promises';
import { nodeFileSystem } from './file-system.js';
import type { FileSystemSeam } from './file-system.js';
import { scanLog } from './log-scan.js';
import { writeFully } from './write-fully.js';

/** What backupLog copied. */
export interface BackupResult {
  /** The log copied, and the backup written. */
  source: string;
  out: string;
  lines: number;
  bytes: number;
  lastSeq: number;
  /** Bytes after the last whole line (a write in progress, or a torn tail), left out of the copy. */
  leftOut: number;
}

/** Refused before anything was written: the backup file (or its temporary file) already exists, or there is no log. */
export class BackupRefusedError extends Error {
  override readonly name = 'BackupRefusedError';
}

/**
 * Copies `dataDir/events.jsonl` to `out`, read-only and without the folder's LOCK, so a server may
 * run. The log is append-only, so a prefix of its whole lines is a state it went through: the copy
 * stops at the last line whose checksum and seq are good (a line still being written is left out),
 * and holds every write acknowledged before the copy started. Writes `out.tmp`, fsyncs it, renames
 * it to `out` and fsyncs the folder. Never overwrites `out`. Throws LogDamageError (from scanLog) when a bad line
 * is followed by a good one (damage, not a write in progress): the copy is then removed.
 */
export async function backupLog(dataDir: string, out: string, options: { fs?: FileSystemSeam; chunkBytes?: number } = {}): Promise<BackupResult> {
  const fs = options.fs ?? nodeFileSystem;
  const source = path.resolve(dataDir, 'events.jsonl');
  const target = path.resolve(out);
  const temp = `${target}.tmp`;
  if (await exists(target)) throw new BackupRefusedError(`${target} already exists; a backup never overwrites one: remove it or choose another --out`);
  let input: number;
  try {
    input = await fs.open(source, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BackupRefusedError(`there is no event log at ${source}; check --data-dir`);
    throw error;
  }
  let output: number | undefined;
  /** Set once the temporary file is ours to remove on failure. */
  let created = false;
  try {
    try {
      output = await fs.open(temp, 'wx');
      created = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new BackupRefusedError(`${temp} exists, perhaps left by an interrupted backup; remove it and try again`);
      throw error;
    }
    const copied = await copyWholeLines(fs, input, output, { source, temp, chunkBytes: options.chunkBytes ?? 4 * 1024 * 1024 });
    await fs.fsync(output);
    await fs.close(output);
    output = undefined;
    if (await exists(target)) throw new BackupRefusedError(`${target} appeared while the backup ran; a backup never overwrites one`);
    await fs.rename(temp, target);
    await fs.syncDirectory(path.dirname(target));
    return { source, out: target, ...copied };
  } catch (error) {
    if (output !== undefined) await fs.close(output).catch(() => undefined);
    if (created) await fs.unlink(temp).catch(() => undefined);
    throw error;
  } finally {
    await fs.close(input);
  }
}

/** Reads `input` to its end, writing each run of good lines to `output`; stops copying at the first bad line. */
async function copyWholeLines(
  fs: FileSystemSeam,
  input: number,
  output: number,
  options: { source: string; temp: string; chunkBytes: number },
): Promise<{ lines: number; bytes: number; lastSeq: number; leftOut: number }> {
  let copied = 0;
  const scan = await scanLog(fs, input, { file: options.source, chunkBytes: options.chunkBytes }, {
    async onGoodBytes(bytes) {
      await writeFully(fs, output, bytes, copied, options.temp);
      copied += bytes.length;
    },
  });
  return { lines: scan.lines, bytes: copied, lastSeq: scan.lastSeq, leftOut: scan.endOfFile - copied };
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
