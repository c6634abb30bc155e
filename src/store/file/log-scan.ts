// Reads events.jsonl in byte chunks, checking every line (checksum, shape, growing seq): finds a torn tail and refuses
// damage elsewhere. Replay, the history webhooks read and the backup all read the log through it.
import { carryPartialLine } from '../../lib/line-buffer.js';
import type { FileSystemSeam } from './file-system.js';
import { checkedSeal } from '../records/decode-record.js';
import { decodeLine } from '../records/group-line.js';
import type { DecodeOptions, LogRecord, MetaRecord } from '../records/jsonl-record.js';
import { RosterError } from '../views/roster.js';
import { LogDamageError } from './log-damage-error.js';
import { keepsItsWriteSeq } from '../records/record-checks.js';

const CARRIAGE_RETURN = 13;

/** The UTF-8 byte order mark (EF BB BF) at `at`. */
function isByteOrderMark(buffer: Buffer, at: number): boolean {
  return buffer[at] === 0xef && buffer[at + 1] === 0xbb && buffer[at + 2] === 0xbf;
}

/** Where a scan stopped trusting the log: a torn tail starts here and runs to the end of the file. */
export interface TornTail {
  /** 1-based line number of the first line that is not good. */
  line: number;
  /** Byte offset of that line (the length of the log once the tail is cut). */
  offset: number;
  reason: string;
}

/** Progress of a long scan (or replay): lines and bytes read so far, out of `fileLength` bytes. */
export interface ReplayProgress {
  /** Records, as the scan's result counts them: each member of a group line (a series' write) is one. */
  lines: number;
  bytes: number;
  fileLength: number;
}

/** Options of scanLog. */
export interface ScanOptions {
  /** The log's path, for messages. */
  file: string;
  /** Bytes read at a time. Default 4 MiB. */
  chunkBytes?: number;
  /** Called about every `progressMs` (default 1000) while a scan runs. */
  onProgress?: (progress: ReplayProgress) => void;
  progressMs?: number;
  /** The clock for progress, ms. Default Date.now. */
  now?: () => number;
  /** How records are read (replay packs the views it reads). */
  decode?: DecodeOptions;
}

/** What a scan of the log hands its caller as it goes. */
export interface LogScanHandlers {
  /** Each good record, in file order. */
  onRecord?: (record: LogRecord | MetaRecord) => void;
  /** After each chunk: the bytes of the whole, good lines read in it, in file order. */
  onGoodBytes?: (bytes: Buffer) => Promise<void>;
}

/** Where a scan of the log ended. */
export interface LogScanResult {
  lines: number;
  lastSeq: number;
  goodLength: number;
  /** Bytes read: the file's length when the scan ended. */
  endOfFile: number;
  torn: TornTail | undefined;
}

/**
 * Reads the log open on `fd` from its start in byte chunks (never as one string), checking every
 * line: its checksum and shape, and that seq strictly grows. A bad line followed by a good one is
 * damage (LogDamageError); bad bytes at the end are a torn tail, reported, not thrown.
 */
export async function scanLog(fs: FileSystemSeam, fd: number, options: ScanOptions, handlers: LogScanHandlers): Promise<LogScanResult> {
  const now = options.now ?? Date.now;
  const progressMs = options.progressMs ?? 1000;
  const fileLength = options.onProgress === undefined ? 0 : await fs.size(fd);
  let buffer = Buffer.allocUnsafe(options.chunkBytes ?? 4 * 1024 * 1024);
  let filled = 0;
  /** File offset of buffer[0]. */
  let bufferOffset = 0;
  let lineNumber = 0;
  let lines = 0;
  let lastSeq = 0;
  let goodLength = 0;
  let firstBad: TornTail | undefined;
  let nextProgress = now() + progressMs;

  for (;;) {
    const read = await fs.read(fd, buffer, filled, buffer.length - filled, bufferOffset + filled);
    filled += read;
    const view = buffer.subarray(0, filled);
    let lineStart = 0;
    for (let newline = view.indexOf(10); newline !== -1; newline = view.indexOf(10, lineStart)) {
      lineNumber++;
      const offset = bufferOffset + lineStart;
      // An atomic group (encodeGroup): every member good, or the whole line is bad.
      const decoded = decodeLine(buffer, lineStart, newline, options.decode);
      if (typeof decoded === 'string') {
        // A whole line whose checksum holds was written whole: not a write cut short by a crash, whatever its fault
        // (a kind a newer build writes, say). Cutting it as a torn tail would drop a write that was answered.
        if (typeof checkedSeal(buffer, lineStart, newline) === 'number') {
          if (firstBad !== undefined) throw new LogDamageError(options.file, firstBad.line, firstBad.offset, `${firstBad.reason}; line ${lineNumber} after it is whole, so this is not a torn tail`);
          throw new LogDamageError(options.file, lineNumber, offset, `${decoded}; the line is whole (its checksum holds), so it is not a torn tail (a log written by a newer version of campus-events, or edited by hand)`);
        }
        // A whole line given carriage returns before its newline (a copy through a Windows share, git's autocrlf, both),
        // or a byte order mark before it (an editor's): every line of such a log is so, or the first, and cut as a tail
        // it would leave an empty campus.
        const start = isByteOrderMark(buffer, lineStart) ? lineStart + 3 : lineStart;
        let end = newline;
        while (end > start && buffer[end - 1] === CARRIAGE_RETURN) end--;
        if ((start > lineStart || end < newline) && typeof checkedSeal(buffer, start, end) === 'number') {
          const at = firstBad ?? { line: lineNumber, offset };
          const added = [start > lineStart ? 'begins with a byte order mark' : '', end < newline ? 'ends in CR before its LF' : ''].filter((what) => what !== '').join(' and ');
          throw new LogDamageError(options.file, at.line, at.offset, `line ${lineNumber} ${added}, its checksum holding without: the file was converted by an editor or a copy, so this is not a torn tail (convert it back to plain LF line ends, e.g. with dos2unix, and start again)`);
        }
        lineStart = newline + 1;
        firstBad ??= { line: lineNumber, offset, reason: decoded };
        continue;
      }
      if (firstBad !== undefined) {
        throw new LogDamageError(options.file, firstBad.line, firstBad.offset, `${firstBad.reason}; line ${lineNumber} after it is good, so this is not a torn tail`);
      }
      lineStart = newline + 1;
      const records = Array.isArray(decoded) ? decoded : [decoded];
      for (const record of records) {
        // An idem or docstate line carries the seq of the write it keeps (older builds' compactions wrote them ahead of the rest): its seq need not grow.
        if (!keepsItsWriteSeq(record)) {
          if (record.seq <= lastSeq) {
            throw new LogDamageError(options.file, lineNumber, offset, `its sequence number ${record.seq} is not greater than the ${lastSeq} of the line before`);
          }
          lastSeq = record.seq;
        }
      }
      lines += records.length;
      goodLength = bufferOffset + lineStart;
      try {
        for (const record of records) handlers.onRecord?.(record);
      } catch (error) {
        // A line whose change does not fit the state before it (a registration of an unknown one, say) is damage too.
        if (error instanceof RosterError) throw new LogDamageError(options.file, lineNumber, offset, error.message);
        throw error;
      }
    }
    // The good lines of this chunk end at the last good line (nothing once a bad line was met).
    const goodEnd = goodLength - bufferOffset;
    if (handlers.onGoodBytes !== undefined && goodEnd > 0) await handlers.onGoodBytes(buffer.subarray(0, goodEnd));
    if (read === 0) {
      if (lineStart < filled) {
        // No newline left, but a whole line of ours before a CR: a log whose lines end in CR alone (old Mac line ends).
        const carriageReturn = buffer.subarray(0, filled).indexOf(CARRIAGE_RETURN, lineStart);
        if (carriageReturn !== -1 && typeof checkedSeal(buffer, lineStart, carriageReturn) === 'number') {
          const at = firstBad ?? { line: lineNumber + 1, offset: bufferOffset + lineStart };
          throw new LogDamageError(options.file, at.line, at.offset, `line ${lineNumber + 1} ends in CR without LF, its checksum holding: the file was converted to other line ends, so this is not a torn tail (convert them back to LF, e.g. with mac2unix, and start again)`);
        }
        firstBad ??= { line: lineNumber + 1, offset: bufferOffset + lineStart, reason: 'the last line is incomplete (no newline)' };
      }
      break;
    }
    buffer = carryPartialLine(buffer, lineStart, filled);
    filled -= lineStart;
    bufferOffset += lineStart;
    if (options.onProgress !== undefined && now() >= nextProgress) {
      nextProgress = now() + progressMs;
      options.onProgress({ lines, bytes: bufferOffset, fileLength });
    }
  }
  return { lines, lastSeq, goodLength, endOfFile: bufferOffset + filled, torn: firstBad };
}
