// The durable event store: one append-only log (events.jsonl) with group commit, replayed into an in-memory index on open and compacted when mostly superseded.
import * as path from 'node:path';
import { availableParallelism } from 'node:os';
import { EventIndex } from '../views/event-index.js';
import type { EventStore } from '../event-store.js';
import type { Registration } from '../views/roster.js';
import type { RosterTable } from '../views/roster-table.js';
import type { DocumentTable } from '../views/document-table.js';
import { nodeFileSystem } from './file-system.js';
import type { FileSystemSeam } from './file-system.js';
import { acquireLock, assertLockFree } from '../../lib/fs/lock.js';
import type { Lock } from '../../lib/fs/lock.js';
import { CompactionAbandoned, compactionTempFile, compactLog } from './log-compaction.js';
import type { CompactionHost, CompactionResult, LogHandle } from './log-compaction.js';
import { replayLog } from './log-replay.js';
import { type SearchLogBuild, startSearchLogBuild } from '../../search/search-log-build.js';
import type { TornTail } from './log-replay.js';
import { copyBytes, writeFully } from './write-fully.js';
import { describeWriteError, WriteQueue } from '../views/write-queue.js';
import { ChangeLog } from '../views/change-log.js';
import { IdempotencyTable } from '../views/idempotency-table.js';
import { UncertainWriteError } from '../uncertain-write.js';
import { ChangeHistory, type ChangeHistorySource, type HistoryRead } from '../views/change-history.js';
import { readHistoryAfter } from './history-read.js';
import { QueuedStore, type QueuedViews } from '../views/queued-store.js';

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

/** Counts of the log, for compaction and for `verify`. */
export interface LogStats {
  /** Good lines in the log. */
  lines: number;
  liveEvents: number;
  liveRegistrations: number;
  /** Lines no longer needed to rebuild the state: `lines - liveEvents - liveRegistrations` less the live documents (series). */
  supersededLines: number;
  /** Bytes in the log. */
  bytes: number;
  /** The seq of the last line written. */
  lastSeq: number;
}

/** The name of the log inside the data folder. */
export const LOG_FILE = 'events.jsonl';

/** The default of `compactMinBytes`. */
export const DEFAULT_COMPACT_MIN_BYTES = 64 * 1024 * 1024;

/** An EventStore over DATA_DIR/events.jsonl. Open it with openFileStore. */
export class FileStore extends QueuedStore implements EventStore {
  readonly file: string;
  readonly #fs: FileSystemSeam;
  /** The open log; a compaction swaps it for the new file. */
  #fd: number;
  readonly #lock: Lock | undefined;
  readonly #sync: boolean;
  readonly #logger: StoreLogger;
  readonly #now: () => number;
  readonly #index: EventIndex;
  readonly #rosters: RosterTable;
  readonly #documents: DocumentTable;
  readonly #queue: WriteQueue;
  /** The change feed's index over the committed log. */
  readonly changes: ChangeLog;
  /** Each durable line with its context, for webhooks (API.md §13). */
  readonly #history = new ChangeHistory();
  readonly #idempotency: IdempotencyTable;
  protected override readonly queued: QueuedViews;
  readonly #compactMinBytes: number;
  readonly #onCompactionStep: ((step: number) => void | Promise<void>) | undefined;
  /** Bytes of the log known durable: where the next batch goes, and where a failed one is cut back to. */
  #length: number;
  #lines: number;
  /** The bytes and lines whose changes the index holds: #length and #lines as of the last commit. */
  #committed: { length: number; lines: number };
  #compaction: Promise<CompactionResult | undefined> | undefined;
  /** After a failed compaction, the next automatic one waits until the log reaches this length. */
  #compactRetryLength = 0;
  #stopping = false;
  #closing: Promise<void> | undefined;
  /** Why writes are refused, once they are (for /health). */
  #unwritableReason: string | undefined;
  /** The search index's build after the start (API.md §5 `q`), done or stopped by close. */
  readonly #searchBuilt: Promise<void>;
  /** The build from the log in a worker, if one was started and is not done: stopped by close. */
  #searchBuild: SearchLogBuild | undefined;

  /** @internal Use openFileStore. */
  constructor(init: {
    file: string;
    fs: FileSystemSeam;
    fd: number;
    lock: Lock | undefined;
    sync: boolean;
    logger: StoreLogger;
    now: () => number;
    index: EventIndex;
    rosters: RosterTable;
    documents: DocumentTable;
    length: number;
    lines: number;
    lastSeq: number;
    changes: ChangeLog;
    idempotency: IdempotencyTable;
    compactMinBytes: number;
    onCompactionStep: ((step: number) => void | Promise<void>) | undefined;
    readOnly?: { reason: unknown } | undefined;
    searchBuild?: SearchLogBuild | undefined;
  }) {
    super();
    this.file = init.file;
    this.#fs = init.fs;
    this.#fd = init.fd;
    this.#lock = init.lock;
    this.#sync = init.sync;
    this.#logger = init.logger;
    this.#now = init.now;
    this.#index = init.index;
    this.#rosters = init.rosters;
    this.#documents = init.documents;
    this.#length = init.length;
    this.#lines = init.lines;
    this.#committed = { length: init.length, lines: init.lines };
    this.#compactMinBytes = init.compactMinBytes;
    this.#onCompactionStep = init.onCompactionStep;
    this.changes = init.changes;
    this.#idempotency = init.idempotency;
    this.#queue = new WriteQueue({
      history: this.#history,
      changes: init.changes,
      idempotency: init.idempotency,
      index: init.index,
      rosters: init.rosters,
      documents: init.documents,
      now: init.now,
      nextSeq: init.lastSeq + 1,
      persist: (text, count) => this.#append(text, count),
      onCommit: () => this.#afterCommit(),
    });
    this.queued = { index: init.index, rosters: init.rosters, idempotency: init.idempotency, queue: this.#queue };
    const buildStarted = init.now();
    this.#searchBuild = init.searchBuild;
    this.#searchBuilt = init.index.buildSearchIndex(() => this.#stopping, init.searchBuild?.result).then(
      (notTaken) => {
        // Its result (the built arrays no longer needed once placed) goes with it.
        this.#searchBuild = undefined;
        const by = notTaken === undefined ? 'a worker thread, during replay' : `the main thread (${notTaken})`;
        if (!this.#stopping) this.#logger.info('search index built', { file: init.file, live_events: init.index.size, ms: init.now() - buildStarted, by });
      },
      // A bug, never a state of the data: q stays a 503 until a restart, and everything else works on.
      (error: unknown) => this.#logger.warn('the search index could not be built; q is unavailable until a restart', { file: init.file, error: String(error) }),
    );
    if (init.readOnly !== undefined) {
      this.#unwritableReason = `started read-only: ${describeWriteError(init.readOnly.reason)}`;
      this.#queue.fail(init.readOnly.reason);
    }
  }

  /** Why the store refuses writes (a failed write, a read-only start), or undefined while it writes. */
  get unwritableReason(): string | undefined {
    return this.#queue.writable ? undefined : (this.#unwritableReason ?? 'the store is closing');
  }

  get history(): ChangeHistorySource {
    return {
      subscribe: (listener) => this.#history.subscribe(listener),
      onCompacted: (listener) => this.#history.onCompacted(listener),
      readAfter: (since, limit): Promise<HistoryRead> => readHistoryAfter(this.#fs, this.file, { since, through: this.changes.lastSeq, limit }, this.#now()),
    };
  }

  /** Counts of the durable log; compaction runs when superseded lines are more than half of it. */
  get stats(): LogStats {
    const liveRegistrations = this.#rosters.registrations;
    return {
      lines: this.#lines,
      liveEvents: this.#index.size,
      liveRegistrations,
      supersededLines: this.#lines - this.#index.size - liveRegistrations - this.#documents.size,
      bytes: this.#length,
      lastSeq: this.#queue.nextSeq - 1,
    };
  }

  /**
   * Compacts the log now, whatever its size (the store does it by itself after a commit once the log
   * is over `compactMinBytes` and mostly superseded). Resolves with the sizes before and after, or
   * undefined when the store is closing or cannot write; joins a compaction already running.
   */
  compact(): Promise<CompactionResult | undefined> {
    if (this.#compaction !== undefined) return this.#compaction;
    if (this.#stopping || !this.#queue.writable) return Promise.resolve(undefined);
    const running = this.#runCompaction();
    this.#compaction = running;
    const done = (): void => {
      this.#compaction = undefined;
    };
    running.then(done, done);
    return running;
  }

  /** Refuses new writes, waits for queued ones (and a compaction running), closes the log and releases the lock. */
  /** Resolves once the search index holds every event of the start (until then `q` is answered without it). */
  whenSearchReady(): Promise<void> {
    return this.#searchBuilt;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        this.#stopping = true;
        this.#searchBuild?.stop();
        await this.#searchBuilt;
        await this.#compaction?.catch(() => undefined);
        await this.#queue.close();
        await this.#fs.close(this.#fd);
      } finally {
        this.#lock?.release();
      }
    })();
    return this.#closing;
  }

  /** After each durable batch: note what the index now holds, and compact when the log calls for it. */
  #afterCommit(): void {
    this.#committed = { length: this.#length, lines: this.#lines };
    const superseded = this.#lines - this.#index.size - this.#rosters.registrations - this.#documents.size;
    if (this.#compaction !== undefined || this.#stopping || this.#length <= this.#compactMinBytes || this.#length < this.#compactRetryLength) return;
    if (superseded * 2 <= this.#lines) return;
    // Failures are logged by #runCompaction; the writes go on either way.
    this.compact().catch(() => undefined);
  }

  async #runCompaction(): Promise<CompactionResult> {
    const started = this.#now();
    this.#logger.info('compacting the event log', {
      file: this.file,
      lines: this.#lines,
      live_events: this.#index.size,
      live_registrations: this.#rosters.registrations,
      superseded_lines: this.#lines - this.#index.size - this.#rosters.registrations,
      mib: mib(this.#length),
    });
    let renamedThenFailed = false;
    const host: CompactionHost = {
      fs: this.#fs,
      file: this.file,
      sync: this.#sync,
      // The index and #committed change together, in one synchronous step after each batch.
      committed: () => ({
        events: [...this.#index.values()],
        registrations: this.#liveRegistrations(),
        documents: this.#documents.all(),
        log: { fd: this.#fd, ...this.#committed },
        lastSeq: this.changes.lastSeq,
        tombstones: new Map(this.changes.tombstones),
        horizon: this.changes.horizon,
        answers: this.#idempotency.live(this.#now()),
      }),
      pause: async () => {
        await this.#queue.pause();
        return this.#queue.writable ? { fd: this.#fd, ...this.#committed } : undefined;
      },
      swap: (log: LogHandle, compactedThrough: number) => {
        this.#fd = log.fd;
        this.#length = log.length;
        this.#lines = log.lines;
        this.#committed = { length: log.length, lines: log.lines };
        // The new log no longer holds these deletions: the change feed answers 410 before the newest of them.
        this.changes.dropDeletionsThrough(compactedThrough);
        this.#history.compacted(compactedThrough);
      },
      resume: () => this.#queue.resume(),
      refuse: (error) => {
        renamedThenFailed = true;
        this.#unwritableReason = describeWriteError(error);
        this.#queue.fail(error);
      },
      stopping: () => this.#stopping,
      onStep: this.#onCompactionStep,
    };
    try {
      const result = await compactLog(host);
      this.#logger.info('compacted the event log', {
        file: this.file,
        lines_before: result.linesBefore,
        lines_after: result.linesAfter,
        mib_before: mib(result.bytesBefore),
        mib_after: mib(result.bytesAfter),
        lines_written_meanwhile: result.tailLines,
        ms: this.#now() - started,
      });
      return result;
    } catch (error) {
      this.#compactRetryLength = Math.floor(this.#length * 1.5);
      if (error instanceof CompactionAbandoned) {
        this.#logger.info('compaction abandoned; the log is unchanged', { file: this.file, reason: error.message });
      } else if (!renamedThenFailed) {
        this.#logger.warn(this.#queue.writable ? 'compaction failed; the log is intact and writes go on' : 'compaction failed before its rename; the log is intact', {
          file: this.file,
          error: describeWriteError(error),
          detail: String(error),
        });
      } else {
        this.#logger.warn('compaction failed after renaming the new log into place: writes are refused until restart, reads go on', {
          file: this.file,
          error: describeWriteError(error),
          detail: String(error),
        });
      }
      throw error;
    }
  }

  #liveRegistrations(): Registration[] {
    const all: Registration[] = [];
    for (const [, roster] of this.#rosters.entries()) for (const registration of roster.values()) all.push(registration);
    return all;
  }

  /** One batch: one write (looping on short writes) and one fdatasync. On failure, cut back to the last good length. */
  async #append(text: string, lineCount: number): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    try {
      await writeFully(this.#fs, this.#fd, bytes, this.#length, this.file);
      if (this.#sync) await this.#fs.fdatasync(this.#fd);
    } catch (error) {
      this.#logger.warn('a write to the event log failed: writes are refused until restart, reads go on', { file: this.file, error: describeWriteError(error), detail: String(error) });
      this.#unwritableReason = describeWriteError(error);
      const undoError = await this.#cutBack();
      if (undoError !== undefined) {
        this.#unwritableReason += '; undoing it failed too, so whether the last writes were saved is uncertain until restart';
        throw new UncertainWriteError(error, undoError);
      }
      throw error;
    }
    this.#length += bytes.length;
    this.#lines += lineCount;
  }

  /** Drops whatever part of the failed batch reached the file; resolves with the error if that failed too. The failed sync is never retried. */
  async #cutBack(): Promise<unknown> {
    try {
      await this.#fs.ftruncate(this.#fd, this.#length);
      return undefined;
    } catch (error) {
      this.#logger.warn('could not cut the event log back to its last good line: the refused writes may be there after a restart', { file: this.file, length: this.#length, error: String(error) });
      return error;
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
  const readOnly = options.readOnly;
  if (readOnly !== undefined && options.lock !== false) assertLockFree(dataDir);
  const lock = options.lock === false || readOnly !== undefined ? undefined : acquireLock(dataDir, { now });
  let fd: number | undefined;
  let searchBuild: SearchLogBuild | undefined;
  try {
    // Until its rename, a compaction leaves the log untouched: a leftover temporary file is just dropped.
    const temp = compactionTempFile(file);
    if (readOnly === undefined && (await fs.unlink(temp))) logger.warn('removed the temporary file of an interrupted compaction; the log itself is intact', { file: temp });
    fd = await openOrCreate(fs, file, dataDir);
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
    await copyBytes(fs, { from: cut.fd, start: cut.torn.offset, end: cut.fileLength, to: out, toPosition: 0, what: tornFile });
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
