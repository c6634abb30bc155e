// A consistent copy of events.jsonl taken while a server writes it: the longest prefix of whole, verified lines.
import * as path from 'node:path';
import { lstat } from 'node:fs/promises';
import { nodeFileSystem } from './file-system.js';
import type { FileSystemSeam } from './file-system.js';
import { decodeRecord } from './jsonl-record.js';
import { LogDamageError } from './log-replay.js';
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
 * it to `out` and fsyncs the folder. Never overwrites `out`. Throws LogDamageError when a bad line
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
  let buffer = Buffer.allocUnsafe(options.chunkBytes);
  let filled = 0;
  /** File offset of buffer[0]. */
  let bufferOffset = 0;
  let lineNumber = 0;
  let lines = 0;
  let lastSeq = 0;
  /** Bytes copied: the end of the last good line. */
  let copied = 0;
  let firstBad: { line: number; offset: number; reason: string } | undefined;
  for (;;) {
    const read = await fs.read(input, buffer, filled, buffer.length - filled, bufferOffset + filled);
    filled += read;
    let lineStart = 0;
    let goodStart = 0;
    for (let newline = buffer.indexOf(10, 0); newline !== -1 && newline < filled; newline = buffer.indexOf(10, lineStart)) {
      lineNumber++;
      const record = decodeRecord(buffer, lineStart, newline);
      const offset = bufferOffset + lineStart;
      lineStart = newline + 1;
      if (typeof record !== 'string' && firstBad !== undefined) {
        throw new LogDamageError(options.source, firstBad.line, firstBad.offset, `${firstBad.reason}; line ${lineNumber} after it is good, so this is not a write in progress`);
      }
      if (typeof record !== 'string' && record.seq <= lastSeq) {
        throw new LogDamageError(options.source, lineNumber, offset, `its sequence number ${record.seq} is not greater than the ${lastSeq} of the line before`);
      }
      if (typeof record === 'string') {
        firstBad ??= { line: lineNumber, offset, reason: record };
        continue;
      }
      lastSeq = record.seq;
      lines++;
    }
    // Every line in [goodStart, lineStart) is good unless a bad one was met in this chunk.
    const goodEnd = firstBad === undefined ? lineStart : Math.max(goodStart, firstBad.offset - bufferOffset);
    if (goodEnd > goodStart) {
      await writeFully(fs, output, buffer.subarray(goodStart, goodEnd), copied, options.temp);
      copied += goodEnd - goodStart;
    }
    if (read === 0) return { lines, bytes: copied, lastSeq, leftOut: bufferOffset + filled - copied };
    if (lineStart === 0 && filled === buffer.length) {
      const larger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(larger, 0, 0, filled);
      buffer = larger;
    } else {
      buffer.copy(buffer, 0, lineStart, filled);
      filled -= lineStart;
      bufferOffset += lineStart;
    }
  }
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
