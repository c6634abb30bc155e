// The file store's compactions of its log: when one starts by itself, one at a time, what it sees and changes of the
// store, and when it is tried again after a failure. log-compaction.ts does the work; run-compaction.ts tells it.
import { ReaderBehind, type ChangeHistory } from '../views/change-history.js';
import type { ChangeLog } from '../views/change-log.js';
import type { DocumentTable } from '../views/document-table.js';
import type { EventIndex } from '../views/event-index.js';
import type { IdempotencyTable } from '../views/idempotency-table.js';
import type { Registration } from '../views/roster.js';
import type { RosterTable } from '../views/roster-table.js';
import type { WriteQueue } from '../write/write-queue.js';
import type { FileSystemSeam } from './file-system.js';
import { CompactionAbandoned, type CompactionHost, type CompactionResult, type LogHandle } from './log-compaction.js';
import { runCompaction } from './run-compaction.js';
import type { StoreLogger } from './store-logger.js';

/** What StoreCompactions sees of the file store: its views, its queue, and its open log as it is now. */
export interface StoreCompactionsDeps {
  fs: FileSystemSeam;
  file: string;
  sync: boolean;
  logger: StoreLogger;
  now: () => number;
  index: EventIndex;
  rosters: RosterTable;
  documents: DocumentTable;
  changes: ChangeLog;
  idempotency: IdempotencyTable;
  history: ChangeHistory;
  queue: WriteQueue;
  /** A compaction starts by itself only once the log is over this many bytes. */
  minBytes: number;
  onStep: ((step: number) => void | Promise<void>) | undefined;
  /** The log's bytes now. */
  length: () => number;
  /** The log's good lines now. */
  lines: () => number;
  /** The open log as the index holds it: its fd, and its bytes and lines as of the last commit. */
  committedLog: () => LogHandle;
  /** Makes a compaction's new file the log. */
  swap: (log: LogHandle) => void;
  /** Refuses every queued and later write, saying why (see CompactionHost.refuse). */
  refuse: (error: unknown) => void;
  /** True once the store is closing. */
  stopping: () => boolean;
  /** True while a check of the log's name holds the queue: no compaction starts meanwhile. */
  checkingName: () => boolean;
  /** Whether the log's name still names the open log `fd`. */
  namesLog: (fd: number) => Promise<boolean>;
}

/**
 * Compacts the store's log: by itself after a commit once the log is over `minBytes` and mostly superseded (unless a
 * webhook holds it back), or by hand whatever its size; one compaction at a time.
 */
export class StoreCompactions {
  readonly #deps: StoreCompactionsDeps;
  #running: Promise<CompactionResult | undefined> | undefined;
  /** After a failed compaction, the next automatic one waits until the log reaches this length. */
  #retryLength = 0;
  /** Set when a webhook called the last compaction off: the next starts only once no webhook is behind. */
  #waitForWebhooks = false;

  constructor(deps: StoreCompactionsDeps) {
    this.#deps = deps;
  }

  /** The compaction running, if any. */
  get running(): Promise<CompactionResult | undefined> | undefined {
    return this.#running;
  }

  /**
   * Starts a compaction, or joins the one running; resolves with the sizes before and after, or undefined when the store
   * is closing, checking the log's name or cannot write. `forced`: asked for by hand, past what holds compaction
   * back; else started by compactIfDue.
   */
  compact(forced: boolean): Promise<CompactionResult | undefined> {
    if (this.#running !== undefined) return this.#running;
    if (this.#deps.stopping() || this.#deps.checkingName() || !this.#deps.queue.writable) return Promise.resolve(undefined);
    const running = this.#run(forced);
    this.#running = running;
    // A compaction that went through ends the wait for the webhooks a called-off one began.
    running.finally(() => (this.#running = undefined)).then(() => (this.#waitForWebhooks = false), () => undefined);
    return running;
  }

  /** Compacts when the log is over its threshold, mostly superseded, and nothing holds it back (see holdCompaction). */
  compactIfDue(): void {
    const length = this.#deps.length();
    if (this.#running !== undefined || this.#deps.checkingName() || this.#deps.stopping() || length <= this.#deps.minBytes || length < this.#retryLength) return;
    if (this.superseded() * 2 <= this.#deps.lines()) return;
    // A webhook delivering in good order is waited for by the compaction (settle, at most 10 s), unless one called the
    // last compaction off; one paused, failing or retrying holds it back for long: none is started meanwhile.
    const held = this.#deps.history.compactionHeld((reason) => this.#deps.logger.warn('compaction is held back: the log grows until it is released', { file: this.#deps.file, reason }));
    if (held !== undefined && (held.lasting || this.#waitForWebhooks)) return;
    // Failures are logged by runCompaction (run-compaction.ts); the writes go on either way.
    this.compact(false).catch(() => undefined);
  }

  /** Lines a compaction would not write again; remembered answers (kept 24 h) count as kept, or a log of them compacted at every write. */
  superseded(): number {
    const { index, rosters, documents, idempotency } = this.#deps;
    return this.#deps.lines() - index.size - rosters.registrations - documents.size - idempotency.liveCount(this.#deps.now());
  }

  #run(forced: boolean): Promise<CompactionResult> {
    return runCompaction(this.#host(forced), {
      logger: this.#deps.logger,
      now: this.#deps.now,
      start: { lines: this.#deps.lines(), liveEvents: this.#deps.index.size, liveRegistrations: this.#deps.rosters.registrations, bytes: this.#deps.length() },
      writable: () => this.#deps.queue.writable,
      failed: (error) => {
        // Called off by a webhook behind at the deadline: tried again once every webhook caught up (their saves make the
        // store look again), not after the log grew by half; said once a run of them, where the operator looks.
        if (!(error instanceof CompactionAbandoned && error.cause instanceof ReaderBehind)) this.#retryLength = Math.floor(this.#deps.length() * 1.5);
        else if (!this.#waitForWebhooks && !error.cause.stopping) {
          this.#waitForWebhooks = true;
          this.#deps.logger.warn('a compaction was called off: a webhook is more than 10 s behind the writes; the log grows until it keeps up', { file: this.#deps.file, reason: error.message });
        }
      },
    });
  }

  /** What a compaction may see and do of the store: the committed state, and the queue paused while it swaps the log. */
  #host(forced: boolean): CompactionHost {
    const { changes, history, queue } = this.#deps;
    return {
      fs: this.#deps.fs,
      file: this.#deps.file,
      sync: this.#deps.sync,
      // The index and the committed log change together, in one synchronous step after each batch.
      committed: () => ({
        events: [...this.#deps.index.values()],
        registrations: this.#liveRegistrations(),
        documents: this.#deps.documents.all(),
        log: this.#deps.committedLog(),
        lastSeq: changes.lastSeq,
        // Deleted events' tombstones (a draft once public keeps its own: its put line, which stays, says where it is).
        tombstones: changes.deletions(),
        horizon: changes.horizon,
        answers: this.#deps.idempotency.live(this.#deps.now()),
      }),
      pause: async () => {
        await queue.pause();
        return queue.writable ? this.#deps.committedLog() : undefined;
      },
      swap: (log: LogHandle, compactedThrough: number) => {
        this.#deps.swap(log);
        // The new log no longer holds these deletions: the change feed answers 410 before the newest of them.
        changes.dropDeletionsThrough(compactedThrough);
        history.compacted(compactedThrough);
      },
      settle: (throughSeq) => history.settleCompaction(throughSeq, forced),
      resume: () => queue.resume(),
      refuse: this.#deps.refuse,
      stopping: this.#deps.stopping,
      namesLog: this.#deps.namesLog,
      onStep: this.#deps.onStep,
    };
  }

  #liveRegistrations(): Registration[] {
    const all: Registration[] = [];
    for (const [, roster] of this.#deps.rosters.entries()) for (const registration of roster.values()) all.push(registration);
    return all;
  }
}
