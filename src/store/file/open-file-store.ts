// Opening the file store: the data folder's lock, a leftover compaction file dropped, the log replayed (a torn tail cut
// off), the search index's build from the log started beside the replay, and the in-memory views built from it.
import { readdir, stat, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { availableParallelism } from 'node:os';
import { acquireLock, assertLockFree } from '../../lib/fs/lock.js';
import { type SearchLogBuild, startSearchLogBuild } from '../../search/search-log-build.js';
import { ChangeLog } from '../views/change-log.js';
import { EventIndex } from '../views/event-index.js';
import { IdempotencyTable } from '../views/idempotency-table.js';
import { cutTornTail } from './cut-torn-tail.js';
import { FileStore } from './file-store.js';
import { nodeFileSystem, type FileSystemSeam } from './file-system.js';
import { compactionTempFile } from './log-compaction.js';
import { replayLog } from './log-replay.js';
import { mib, type StoreLogger } from './store-logger.js';

/** Options of openFileStore. */
export interface FileStoreOptions {
  /** The data folder; created when missing. */
  dataDir: string;
  /** File operations; tests inject failures here. Default node:fs. */
  fs?: FileSystemSeam;
  logger?: StoreLogger;
  /** Compact once the log is over this many bytes and more than half of its lines are superseded. Default 64 MiB. */
  compactMinBytes?: number;
  /** Test only: runs before each compaction step (see COMPACTION_STEPS); throw to fail it, never resolve to freeze it as a crash would. */
  onCompactionStep?: (step: number) => void | Promise<void>;
  /** Test and benchmark only: false skips fdatasync after each batch. Default true. */
  sync?: boolean;
  /** Take DATA_DIR/LOCK while open. Default true. */
  lock?: boolean;
  /** The clock, ms since the epoch (torn-file names, progress). Default Date.now. */
  now?: () => number;
  /**
   * Open read-only, for this reason (e.g. the disk is full): no LOCK is taken (but a live owner's
   * still refuses), nothing in the folder is changed (a torn tail stays until a writable start),
   * reads are served and every write is refused with the reason.
   */
  readOnly?: { reason: unknown };
  /** Benchmark only: false builds no search index (then `q` scans the list). Default true. */
  searchIndex?: boolean;
  /**
   * The search index's build from the log in a worker thread, while replay runs (see search-log-build.ts): for a
   * log of at least `minLogBytes` (default 8 MiB) read by node:fs. False builds it on the main thread after replay.
   * `url` is for tests (a worker that fails).
   */
  searchWorker?: false | { minLogBytes?: number; url?: URL };
}

/** The name of the log inside the data folder. */
export const LOG_FILE = 'events.jsonl';

/** The default of `compactMinBytes`. */
export const DEFAULT_COMPACT_MIN_BYTES = 64 * 1024 * 1024;

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
  const created = await fs.mkdir(dataDir).catch((error: NodeJS.ErrnoException) => {
    // mkdir's own words ("EEXIST: file already exists") would not tell an operator what to change.
    const fault = error.code === 'EEXIST' ? 'is a file, not a folder' : error.code === 'ENOTDIR' ? 'lies under a file, not a folder' : undefined;
    if (fault !== undefined) throw new Error(`${dataDir} ${fault}: --data-dir (DATA_DIR) must name a folder, which is made if missing`);
    throw error;
  });
  if (created !== undefined) await fs.syncDirectory(path.dirname(created));
  const readOnly = options.readOnly;
  if (readOnly !== undefined && options.lock !== false) assertLockFree(dataDir);
  const lock = options.lock === false || readOnly !== undefined ? undefined : acquireLock(dataDir, { now });
  if (lock?.tookOver !== undefined) {
    const previous = lock.tookOver === 'unreadable' ? {} : { pid: lock.tookOver.pid, host: lock.tookOver.host, since: lock.tookOver.started_at };
    logger.warn('took over the data folder\'s LOCK, left by a process that no longer runs (a crash, kill -9 or power cut)', { file: lock.path, ...previous });
  }
  let fd: number | undefined;
  let searchBuild: SearchLogBuild | undefined;
  try {
    // Until its rename, a compaction leaves the log untouched: a leftover temporary file is just dropped.
    const temp = compactionTempFile(file);
    if (readOnly === undefined && (await fs.unlink(temp))) logger.warn('removed the temporary file of an interrupted compaction; the log itself is intact', { file: temp });
    await refuseLostLog(dataDir, file);
    // Read-only (no room, or a file system mounted read-only): the log is only read, never made.
    fd = readOnly === undefined ? await openOrCreate(fs, file, dataDir) : await fs.open(file, 'r');
    const started = now();
    searchBuild = startSearchWorker(options, file, await fs.size(fd));
    const idempotency = new IdempotencyTable();
    const replay = await replayLog(fs, fd, {
      file,
      now,
      idempotency,
      onProgress: ({ lines, bytes, fileLength }) => logger.info('replaying the event log', { file, lines, mib_read: mib(bytes), mib_total: mib(fileLength) }),
    });
    if (replay.torn !== undefined && readOnly !== undefined) {
      logger.warn('the event log ends in a torn write; started read-only, so it is left in place until a writable start cuts it off', { file, line: replay.torn.line, reason: replay.torn.reason });
    } else if (replay.torn !== undefined) await cutTornTail(fs, { fd, file, dataDir, torn: replay.torn, fileLength: replay.fileLength, now, logger });
    logger.info('event log replayed', { file, lines: replay.lines, live_events: replay.events.size, live_registrations: replay.rosters.registrations, mib: mib(replay.goodLength), ms: now() - started });
    const kept = await keptLogs(dataDir, file, readOnly === undefined);
    if (kept.length > 0) {
      logger.warn(`a log a server kept when ${LOG_FILE} was removed, moved or replaced while it ran lies beside it: keep the one you want as ${LOG_FILE} (with the server stopped), and remove or move the other`, { file, kept: kept.join(', ') });
    }
    // The worker read the log as it was: with a torn tail (cut off above), its events may not be the replay's.
    if (replay.torn !== undefined) searchBuild?.stop();
    const index = new EventIndex(replay.events, { searchIndex: options.searchIndex });
    const changes = new ChangeLog((id) => index.get(id), { events: replay.events.values(), tombstones: replay.tombstones, lastSeq: replay.lastSeq, horizon: replay.horizon });
    return new FileStore({
      changes,
      idempotency,
      file,
      fs,
      fd,
      lock,
      sync: options.sync !== false,
      logger,
      now,
      index,
      rosters: replay.rosters,
      documents: replay.documents,
      length: replay.goodLength,
      lines: replay.lines,
      lastSeq: replay.lastSeq,
      compactMinBytes: options.compactMinBytes ?? DEFAULT_COMPACT_MIN_BYTES,
      onCompactionStep: options.onCompactionStep,
      readOnly,
      searchBuild,
    });
  } catch (error) {
    searchBuild?.stop();
    if (fd !== undefined) await fs.close(fd).catch(() => undefined);
    lock?.release();
    throw error;
  }
}

/** Starts the search index's build from the log in a worker, when the options and the log's size call for it. */
function startSearchWorker(options: FileStoreOptions, file: string, length: number): SearchLogBuild | undefined {
  const worker = options.searchWorker;
  if (worker === false || options.searchIndex === false || options.fs !== undefined) return undefined;
  if (length < (worker?.minLogBytes ?? DEFAULT_SEARCH_WORKER_MIN_BYTES)) return undefined;
  // On one core the worker would only take its CPU from the replay, delaying the start to listening.
  if (worker === undefined && availableParallelism() < 2) return undefined;
  return startSearchLogBuild(file, length, worker?.url);
}

/** Below this, the main thread builds the search index in a few steps (a small log's first step is done before listening). */
const DEFAULT_SEARCH_WORKER_MIN_BYTES = 8 * 1024 * 1024;

/**
 * The logs a server kept beside events.jsonl when it lost its name (lost-log.ts), but a second name of events.jsonl
 * itself (a stop between the copy's two names), which is dropped when `tidy`.
 */
async function keptLogs(dataDir: string, file: string, tidy: boolean): Promise<string[]> {
  const names = (await readdir(dataDir).catch(() => [])).filter((name) => name.startsWith(`${LOG_FILE}.removed-`));
  const log = await stat(file).catch(() => undefined);
  const kept: string[] = [];
  for (const name of names) {
    const copy = await stat(path.join(dataDir, name)).catch(() => undefined);
    if (log !== undefined && copy !== undefined && copy.ino === log.ino && copy.dev === log.dev) {
      if (tidy) await unlink(path.join(dataDir, name)).catch(() => undefined);
    } else kept.push(name);
  }
  return kept;
}

/** A folder with no log but a kept one: a server stopped while writing its log back. Starting empty would bury it. */
async function refuseLostLog(dataDir: string, file: string): Promise<void> {
  if (await stat(file).then(() => true, () => false)) return;
  const kept = (await readdir(dataDir).catch(() => [])).filter((name) => name.startsWith(`${LOG_FILE}.removed-`));
  if (kept.length === 0) return;
  throw new Error(`${dataDir} has no ${LOG_FILE} but ${kept.join(', ')}, which a server kept when ${LOG_FILE} was removed while it ran: rename the one you want to ${LOG_FILE} (a copy cut short is read up to its last whole line) and start again`);
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
