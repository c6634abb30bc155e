// The durable event store: one append-only log (events.jsonl) with group commit, replayed into an in-memory index on open.
import * as path from 'node:path';
import type { StoredEvent } from '../events/event.js';
import { EventIndex } from './event-index.js';
import type { EventChange, EventStore, ListQuery, ListResult } from './event-store.js';
import { nodeFileSystem } from './file-system.js';
import type { FileSystemSeam } from './file-system.js';
import { acquireLock } from './lock.js';
import type { Lock } from './lock.js';
import { replayLog } from './log-replay.js';
import type { TornTail } from './log-replay.js';
import { describeWriteError, WriteQueue } from './write-queue.js';

/** Where the store reports what it did; the app's Logger fits. */
export interface StoreLogger {
  info(message: string, fields?: Record<string, string | number | boolean | null | undefined>): void;
  warn(message: string, fields?: Record<string, string | number | boolean | null | undefined>): void;
}

/** Options of openFileStore. */
export interface FileStoreOptions {
  /** The data folder; created when missing. */
  dataDir: string;
  /** File operations; tests inject failures here. Default node:fs. */
  fs?: FileSystemSeam;
  logger?: StoreLogger;
  /** Compaction threshold in bytes: kept for the compaction slice, unused today. */
  compactMinBytes?: number;
  /** Test and benchmark only: false skips fdatasync after each batch. Default true. */
  sync?: boolean;
  /** Take DATA_DIR/LOCK while open. Default true. */
  lock?: boolean;
  /** The clock, ms since the epoch (torn-file names, progress). Default Date.now. */
  now?: () => number;
}

/** Counts of the log, for compaction and for `verify`. */
export interface LogStats {
  /** Good lines in the log. */
  lines: number;
  liveEvents: number;
  /** Lines no longer needed to rebuild the state: `lines - liveEvents`. */
  supersededLines: number;
  /** Bytes in the log. */
  bytes: number;
  /** The seq of the last line written. */
  lastSeq: number;
}

/** The name of the log inside the data folder. */
export const LOG_FILE = 'events.jsonl';

/** An EventStore over DATA_DIR/events.jsonl. Open it with openFileStore. */
export class FileStore implements EventStore {
  readonly file: string;
  readonly #fs: FileSystemSeam;
  readonly #fd: number;
  readonly #lock: Lock | undefined;
  readonly #sync: boolean;
  readonly #logger: StoreLogger;
  readonly #index: EventIndex;
  readonly #queue: WriteQueue;
  /** Bytes of the log known durable: where the next batch goes, and where a failed one is cut back to. */
  #length: number;
  #lines: number;
  #closing: Promise<void> | undefined;

  /** @internal Use openFileStore. */
  constructor(init: { file: string; fs: FileSystemSeam; fd: number; lock: Lock | undefined; sync: boolean; logger: StoreLogger; index: EventIndex; length: number; lines: number; lastSeq: number }) {
    this.file = init.file;
    this.#fs = init.fs;
    this.#fd = init.fd;
    this.#lock = init.lock;
    this.#sync = init.sync;
    this.#logger = init.logger;
    this.#index = init.index;
    this.#length = init.length;
    this.#lines = init.lines;
    this.#queue = new WriteQueue({ index: init.index, nextSeq: init.lastSeq + 1, persist: (text, count) => this.#append(text, count) });
  }

  get(id: string): StoredEvent | undefined {
    return this.#index.get(id);
  }

  list(query: ListQuery): ListResult {
    return this.#index.list(query);
  }

  write(id: string, change: EventChange): Promise<StoredEvent | null> {
    return this.#queue.write(id, change);
  }

  get writable(): boolean {
    return this.#queue.writable;
  }

  get size(): number {
    return this.#index.size;
  }

  /** Counts of the durable log. Compaction (not built yet) will run when superseded lines dominate. */
  get stats(): LogStats {
    return { lines: this.#lines, liveEvents: this.#index.size, supersededLines: this.#lines - this.#index.size, bytes: this.#length, lastSeq: this.#queue.nextSeq - 1 };
  }

  /** Refuses new writes, waits for queued ones, closes the log and releases the lock. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.#queue.close();
        await this.#fs.close(this.#fd);
      } finally {
        this.#lock?.release();
      }
    })();
    return this.#closing;
  }

  // Compaction (a later slice) hooks in here: after a batch, when `stats` shows the log over
  // compactMinBytes and mostly superseded, pause the queue (WriteQueue.pause waits for the batch in
  // flight), write `encodeStored` of every `index.values()` (already in seq order) to a new file,
  // fsync it, rename it over events.jsonl, fsync the folder, swap #fd and #length, then resume.

  /** One batch: one write (looping on short writes) and one fdatasync. On failure, cut back to the last good length. */
  async #append(text: string, lineCount: number): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    try {
      for (let done = 0; done < bytes.length; ) {
        const written = await this.#fs.write(this.#fd, bytes, done, bytes.length - done, this.#length + done);
        if (written <= 0) throw Object.assign(new Error('write() wrote nothing'), { code: 'EIO' });
        done += written;
      }
      if (this.#sync) await this.#fs.fdatasync(this.#fd);
    } catch (error) {
      this.#logger.warn('a write to the event log failed: writes are refused until restart, reads go on', { file: this.file, error: describeWriteError(error), detail: String(error) });
      await this.#cutBack();
      throw error;
    }
    this.#length += bytes.length;
    this.#lines += lineCount;
  }

  /** Best effort: drop whatever part of the failed batch reached the file. The failed sync is never retried. */
  async #cutBack(): Promise<void> {
    try {
      await this.#fs.ftruncate(this.#fd, this.#length);
    } catch (error) {
      this.#logger.warn('could not cut the event log back to its last good line', { file: this.file, length: this.#length, error: String(error) });
    }
  }
}

/**
 * Opens (creating if missing) DATA_DIR/events.jsonl: takes the folder's LOCK, replays the log,
 * cuts a torn tail off into `events.jsonl.torn-<time>`. Throws LockHeldError when another process
 * holds the folder, LogDamageError when the log is damaged before its end.
 */
export async function openFileStore(options: FileStoreOptions): Promise<FileStore> {
  const fs = options.fs ?? nodeFileSystem;
  const logger = options.logger ?? { info() {}, warn() {} };
  const now = options.now ?? Date.now;
  const dataDir = path.resolve(options.dataDir);
  const file = path.join(dataDir, LOG_FILE);
  const created = await fs.mkdir(dataDir);
  if (created !== undefined) await fs.syncDirectory(path.dirname(created));
  const lock = options.lock === false ? undefined : acquireLock(dataDir, { now });
  let fd: number | undefined;
  try {
    fd = await openOrCreate(fs, file, dataDir);
    const started = now();
    const replay = await replayLog(fs, fd, {
      file,
      now,
      onProgress: ({ lines, bytes, fileLength }) => logger.info('replaying the event log', { file, lines, mib_read: mib(bytes), mib_total: mib(fileLength) }),
    });
    if (replay.torn !== undefined) await cutTornTail(fs, { fd, file, dataDir, torn: replay.torn, fileLength: replay.fileLength, now, logger });
    logger.info('event log replayed', { file, lines: replay.lines, live_events: replay.events.size, mib: mib(replay.goodLength), ms: now() - started });
    const index = new EventIndex(replay.events);
    return new FileStore({ file, fs, fd, lock, sync: options.sync !== false, logger, index, length: replay.goodLength, lines: replay.lines, lastSeq: replay.lastSeq });
  } catch (error) {
    if (fd !== undefined) await fs.close(fd).catch(() => undefined);
    lock?.release();
    throw error;
  }
}

async function openOrCreate(fs: FileSystemSeam, file: string, dataDir: string): Promise<number> {
  try {
    return await fs.open(file, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const fd = await fs.open(file, 'wx+');
  await fs.syncDirectory(dataDir);
  return fd;
}

/** Copies the bytes after the last good line to a `.torn-` file, durably, then cuts them off the log. */
async function cutTornTail(
  fs: FileSystemSeam,
  cut: { fd: number; file: string; dataDir: string; torn: TornTail; fileLength: number; now: () => number; logger: StoreLogger },
): Promise<void> {
  const stamp = new Date(cut.now()).toISOString().replace(/[:.]/g, '-');
  let tornFile = `${cut.file}.torn-${stamp}`;
  let out: number | undefined;
  for (let suffix = 1; out === undefined; suffix++) {
    try {
      out = await fs.open(tornFile, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || suffix > 100) throw error;
      tornFile = `${cut.file}.torn-${stamp}-${suffix}`;
    }
  }
  try {
    const chunk = Buffer.allocUnsafe(Math.min(4 * 1024 * 1024, Math.max(1, cut.fileLength - cut.torn.offset)));
    for (let position = cut.torn.offset; position < cut.fileLength; ) {
      const read = await fs.read(cut.fd, chunk, 0, Math.min(chunk.length, cut.fileLength - position), position);
      if (read === 0) break;
      for (let done = 0; done < read; ) {
        const written = await fs.write(out, chunk, done, read - done, position - cut.torn.offset + done);
        if (written <= 0) throw Object.assign(new Error(`write() to ${tornFile} wrote nothing`), { code: 'EIO' });
        done += written;
      }
      position += read;
    }
    await fs.fsync(out);
  } finally {
    await fs.close(out);
  }
  await fs.syncDirectory(cut.dataDir);
  await fs.ftruncate(cut.fd, cut.torn.offset);
  await fs.fsync(cut.fd);
  cut.logger.warn('the event log ended in a torn write (a crash mid-write); the incomplete tail was cut off and kept aside', {
    file: cut.file,
    torn_file: tornFile,
    line: cut.torn.line,
    cut_bytes: cut.fileLength - cut.torn.offset,
    reason: cut.torn.reason,
  });
}

function mib(bytes: number): number {
  return Math.round((bytes / 1048576) * 10) / 10;
}
