// The durable event store over one append-only log (events.jsonl): each batch of the write queue appended and synced
// (group commit), the in-memory views moved on after it, the log compacted when mostly superseded (store-compactions.ts).
// openFileStore (open-file-store.ts) opens it.
import type { Lock } from '../../lib/fs/lock.js';
import type { SearchLogBuild } from '../../search/search-log-build.js';
import type { EventStore } from '../event-store.js';
import { UncertainWriteError } from '../uncertain-write.js';
import { ChangeHistory, type ChangeHistorySource, type HistoryRead } from '../views/change-history.js';
import type { ChangeLog } from '../views/change-log.js';
import type { DocumentTable } from '../views/document-table.js';
import type { EventIndex } from '../views/event-index.js';
import type { IdempotencyTable } from '../views/idempotency-table.js';
import { QueuedStore, type QueuedViews } from '../write/queued-store.js';
import type { RosterTable } from '../views/roster-table.js';
import { WriteQueue } from '../write/write-queue.js';
import { describeWriteError } from '../store-errors.js';
import type { FileSystemSeam } from './file-system.js';
import { readHistoryAfter } from './history-read.js';
import type { CompactionResult } from './log-compaction.js';
import { StoreCompactions } from './store-compactions.js';
import type { StoreLogger } from './store-logger.js';
import { writeFully } from './write-fully.js';
import { LostLogGuard } from './lost-log.js';

/** How often the log's name is checked between batches, in ms (and at the stop). */
const NAME_CHECK_MS = 1_000;

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

/** What openFileStore hands a FileStore: the open log, what replay found, and the options as they apply. */
export interface FileStoreInit {
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
}

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
  readonly #queue: WriteQueue;
  /** The change feed's index over the committed log. */
  readonly changes: ChangeLog;
  /** Each durable line with its context, for webhooks (API.md §13). */
  readonly #history = new ChangeHistory();
  protected override readonly queued: QueuedViews;
  /** Bytes of the log known durable: where the next batch goes, and where a failed one is cut back to. */
  #length: number;
  #lines: number;
  /** The bytes and lines whose changes the index holds: #length and #lines as of the last commit. */
  #committed: { length: number; lines: number };
  readonly #compactions: StoreCompactions;
  #stopping = false;
  #closing: Promise<void> | undefined;
  /** Why writes are refused, once they are (for /health). */
  #unwritableReason: string | undefined;
  /** Writes the open log back when its name no longer names it (removed, moved away, replaced). */
  readonly #lost: LostLogGuard;
  /** Checks between batches that the log's name still names the open log, so a removal no write meets is found too. */
  #nameWatch: NodeJS.Timeout | undefined;
  /** That check while it runs: it and a compaction each hold the queue, never both. */
  #nameCheck: Promise<void> | undefined;
  /** The search index's build after the start (API.md §5 `q`), done or stopped by close. */
  readonly #searchBuilt: Promise<void>;
  #searchReady = false;
  /** The build from the log in a worker, if one was started and is not done: stopped by close. */
  #searchBuild: SearchLogBuild | undefined;

  /** @internal Use openFileStore. */
  constructor(init: FileStoreInit) {
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
    this.#length = init.length;
    this.#lines = init.lines;
    this.#committed = { length: init.length, lines: init.lines };
    this.#lost = new LostLogGuard({ fs: init.fs, file: init.file, logger: init.logger, now: init.now });
    // A webhook that caught up may have been all that held a compaction due back.
    this.#history.onCompactionRecheck(() => this.#compactions.compactIfDue());
    this.changes = init.changes;
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
    this.#compactions = new StoreCompactions({
      fs: init.fs, file: init.file, sync: init.sync, logger: init.logger, now: init.now,
      index: init.index, rosters: init.rosters, documents: init.documents, changes: init.changes, idempotency: init.idempotency,
      history: this.#history,
      queue: this.#queue,
      minBytes: init.compactMinBytes,
      onStep: init.onCompactionStep,
      length: () => this.#length,
      lines: () => this.#lines,
      committedLog: () => ({ fd: this.#fd, ...this.#committed }),
      swap: (log) => {
        this.#fd = log.fd;
        this.#length = log.length;
        this.#lines = log.lines;
        this.#committed = { length: log.length, lines: log.lines };
      },
      refuse: (error) => {
        this.#unwritableReason = describeWriteError(error);
        this.#queue.fail(error);
      },
      stopping: () => this.#stopping,
      checkingName: () => this.#nameCheck !== undefined,
      // A check that fails (a stat refused for a moment) lets the compaction go on, as the once-a-second check does.
      namesLog: async (fd) => (await this.#lost.named(fd).catch(() => 'ours' as const)) === 'ours',
    });
    const buildStarted = init.now();
    this.#searchBuild = init.searchBuild;
    this.#searchBuilt = init.index.buildSearchIndex(() => this.#stopping, init.searchBuild?.result).then(
      (notTaken) => {
        // Its result (the built arrays no longer needed once placed) goes with it.
        this.#searchBuild = undefined;
        this.#searchReady = true;
        const by = notTaken === undefined ? 'a worker thread, during replay' : `the main thread (${notTaken})`;
        if (!this.#stopping) this.#logger.info('search index built', { file: init.file, live_events: init.index.size, ms: init.now() - buildStarted, by });
      },
      // A bug, never a state of the data: q is answered by the slower scan until a restart, and everything else works on.
      (error: unknown) => this.#logger.warn('the search index could not be built; q is answered by a slower scan until a restart', { file: init.file, error: String(error) }),
    );
    if (init.readOnly !== undefined) {
      this.#unwritableReason = `started read-only: ${describeWriteError(init.readOnly.reason)}`;
      this.#queue.fail(init.readOnly.reason);
    } else {
      this.#nameWatch = setInterval(() => void this.checkLogName(), NAME_CHECK_MS).unref();
    }
  }

  /** Why the store refuses writes (a failed write, a read-only start), or undefined while it writes. */
  get unwritableReason(): string | undefined {
    return this.#queue.writable ? undefined : (this.#lost.reason ?? this.#unwritableReason ?? 'the store is closing');
  }

  get history(): ChangeHistorySource {
    return {
      subscribe: (listener) => this.#history.subscribe(listener),
      onCompacted: (listener) => this.#history.onCompacted(listener),
      holdCompaction: (hold, settle) => this.#history.holdCompaction(hold, settle),
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
      supersededLines: this.#compactions.superseded(),
      bytes: this.#length,
      lastSeq: this.#queue.nextSeq - 1,
    };
  }

  /**
   * Compacts the log now, whatever its size (the store does it by itself after a commit once the log is over
   * `compactMinBytes` and mostly superseded). Resolves with the sizes before and after, or undefined when the store is
   * closing or cannot write; joins a compaction already running, and waits for a check of the log's name under way.
   */
  async compact(): Promise<CompactionResult | undefined> {
    while (this.#nameCheck !== undefined) await this.#nameCheck.catch(() => undefined);
    return this.#compactions.compact(true);
  }

  /** True once the search index holds every event of the start (until then `q` is answered by a scan). */
  get searchReady(): boolean {
    return this.#searchReady;
  }

  /** Resolves once the search index holds every event of the start (until then `q` is answered without it). */
  whenSearchReady(): Promise<void> {
    return this.#searchBuilt;
  }

  /** Refuses new writes, waits for queued ones (and a compaction running), closes the log and releases the lock. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        this.#stopping = true;
        clearInterval(this.#nameWatch);
        this.#searchBuild?.stop();
        await this.#searchBuilt;
        await this.#compactions.running?.catch(() => undefined);
        await this.#queue.close();
        // A removal no write met, or a write-back still failing: the open log is written back before it is let go.
        const named = await this.#lost.named(this.#fd).catch(() => 'ours' as const);
        await this.#lost.close({ fd: this.#fd, acknowledged: this.#length, written: this.#length }, named);
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
    this.#compactions.compactIfDue();
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

  /**
   * Between batches (the queue held, no compaction): the open log written back if its name no longer names it, and
   * writes refused. Runs every second by itself, and at the stop; not in a batch's path, where its stat cost a write
   * about 1 µs (a write acknowledged meanwhile is in the open log, and so in what is written back).
   */
  async checkLogName(): Promise<void> {
    if (this.#stopping || this.#nameCheck !== undefined || this.#compactions.running !== undefined || !this.#queue.writable) return;
    await (this.#nameCheck = this.#checkLogName());
  }

  async #checkLogName(): Promise<void> {
    try {
      await this.#queue.pause();
      const named = await this.#lost.named(this.#fd).catch(() => 'ours' as const);
      if (named !== 'ours' && this.#queue.writable && !this.#stopping) {
        const log = { fd: this.#fd, acknowledged: this.#length, written: this.#length };
        const refused = await this.#lost.keep(log, named).then(() => this.#lost.refuseLater, (error: unknown) => error);
        this.#queue.fail(refused);
      }
    } finally {
      this.#nameCheck = undefined;
      this.#queue.resume();
    }
    // A compaction due meanwhile was not started (the check held the queue), and no write or webhook may come to ask again.
    this.#compactions.compactIfDue();
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
