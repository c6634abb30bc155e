// The write path both stores share: a change runs against the latest queued state, its line goes out in a group, then the index sees it.
import { toStored } from '../events/event.js';
import type { StoredEvent } from '../events/event.js';
import { ApiError } from '../http/errors.js';
import type { EventChange } from './event-store.js';
import type { EventIndex } from './event-index.js';
import { encodeDelete, encodeStored, unloggableReason } from './jsonl-record.js';
import { UncertainWriteError } from './uncertain-write.js';

/** Makes a group of log lines durable; rejects when they could not be (and then none of them counts). */
export type PersistBatch = (text: string, lineCount: number) => Promise<void>;

/** Options of a WriteQueue. */
export interface WriteQueueOptions {
  /** The committed state; changed only after a batch is durable. */
  index: EventIndex;
  /** The sequence number of the next line (one more than the last in the log). */
  nextSeq: number;
  persist: PersistBatch;
  /** A batch stops growing past this many characters of lines. Default 1 MiB. */
  maxBatchChars?: number;
  /** Called after each batch is durable and applied to the index (the file store checks for compaction here). */
  onCommit?: () => void;
}

interface QueuedChange {
  readonly id: string;
  /** The event after the change; null when it deletes. */
  readonly state: StoredEvent | null;
  readonly line: string;
  readonly resolve: (state: StoredEvent | null) => void;
  readonly reject: (error: unknown) => void;
}

/** The sentence every refused write gets once the store cannot write (API.md §7); `uncertain` when the failed batch could not be undone. */
export function cannotWriteError(reason: string, uncertain = false): ApiError {
  if (uncertain) {
    return new ApiError('unavailable', `The store cannot write (${reason}), and undoing a failed write failed too: whether the last writes were saved is uncertain until the server is restarted. Writes are refused until then.`);
  }
  return new ApiError('unavailable', `The store cannot write (${reason}); nothing of this request was saved. Writes are refused until the server is restarted.`);
}

/** A short, safe description of a failed write or sync, e.g. `ENOSPC: no space left on the disk`. */
export function describeWriteError(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return 'an unexpected write error';
  return IO_ERRORS[code] === undefined ? code : `${code}: ${IO_ERRORS[code]}`;
}

const IO_ERRORS: Record<string, string> = {
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'the log reached the largest file size allowed',
  EIO: 'input/output error on the disk',
  EROFS: 'the file system is read-only',
};

/**
 * One in-process queue with group commit: every change queued while a batch is being written goes
 * out together in the next batch, as one persist call. A write resolves only after its batch is
 * durable and applied to the index. A failed batch fails it and everything queued after it, and
 * every later write: the queue never retries.
 */
export class WriteQueue {
  readonly #index: EventIndex;
  readonly #persist: PersistBatch;
  readonly #maxBatchChars: number;
  readonly #onCommit: (() => void) | undefined;
  /** The latest queued (not yet durable) change of each id: what the next change to that id sees. */
  readonly #overlay = new Map<string, QueuedChange>();
  #queue: QueuedChange[] = [];
  #nextSeq: number;
  #running: Promise<void> | undefined;
  #paused = false;
  #idleWaiters: (() => void)[] = [];
  /** Set once writes are refused: the error each refused write gets. */
  #refusal: (() => ApiError) | undefined;

  constructor(options: WriteQueueOptions) {
    this.#index = options.index;
    this.#nextSeq = options.nextSeq;
    this.#persist = options.persist;
    this.#maxBatchChars = options.maxBatchChars ?? 1024 * 1024;
    this.#onCommit = options.onCommit;
  }

  /** False once a write failed or the queue was closed. */
  get writable(): boolean {
    return this.#refusal === undefined;
  }

  /** The sequence number the next change will get. */
  get nextSeq(): number {
    return this.#nextSeq;
  }

  /** Queues a change to event `id` (see EventStore.write). A change that throws queues nothing. */
  write(id: string, change: EventChange): Promise<StoredEvent | null> {
    if (this.#refusal !== undefined) return Promise.reject(this.#refusal());
    const queued = this.#overlay.get(id);
    const current = queued === undefined ? this.#index.get(id) : (queued.state ?? undefined);
    let state: StoredEvent | null;
    let line: string;
    try {
      const next = change(current);
      if (next === null) {
        if (current === undefined) throw new TypeError(`a change deleted event ${id}, which does not exist`);
        state = null;
        line = encodeDelete(this.#nextSeq, id);
      } else {
        if (next.id !== id) throw new TypeError(`a change to event ${id} returned event ${next.id}`);
        const unloggable = unloggableReason(next);
        if (unloggable !== undefined) throw new TypeError(`the store cannot log event ${id}: ${unloggable}`);
        state = toStored(next, this.#nextSeq);
        // A change that changes nothing of a committed event writes nothing, so its ETag stays.
        if (queued === undefined && current !== undefined && state.json === current.json && state.createdAt === current.createdAt) {
          return Promise.resolve(current);
        }
        line = encodeStored(state);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    this.#nextSeq++;
    return new Promise((resolve, reject) => {
      const entry: QueuedChange = { id, state, line, resolve, reject };
      this.#queue.push(entry);
      this.#overlay.set(id, entry);
      this.#kick();
    });
  }

  /** Resolves once nothing is queued or being written (waits through a pause). */
  drain(): Promise<void> {
    if (this.#running === undefined && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Lets the batch in flight finish, then holds later ones until `resume()`; writes still queue.
   * For compaction: while paused, the log file can be swapped.
   */
  async pause(): Promise<void> {
    this.#paused = true;
    await this.#running;
  }

  /** Starts writing again after `pause()`. */
  resume(): void {
    this.#paused = false;
    if (this.#queue.length > 0) this.#kick();
    else if (this.#running === undefined) this.#wakeIdleWaiters();
  }

  /**
   * Refuses every queued write and every later one with a 503 naming `error`, as a failed batch does.
   * For a failure outside a batch that leaves the log unsafe to append to (a failed compaction swap).
   */
  fail(error: unknown): void {
    this.#fail([], error);
  }

  /** Refuses new writes, then waits for the queued ones. */
  async close(): Promise<void> {
    this.#refusal ??= () => new ApiError('unavailable', 'The server is shutting down; nothing of this request was saved. Retry in a moment.');
    await this.drain();
  }

  #kick(): void {
    if (this.#running === undefined && !this.#paused) this.#running = this.#run();
  }

  async #run(): Promise<void> {
    // Wait one turn of the event loop, so the writes of every request read in this turn go out together.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#queue.length > 0 && !this.#paused) {
      const batch = this.#takeBatch();
      let text = '';
      for (const entry of batch) text += entry.line;
      try {
        await this.#persist(text, batch.length);
      } catch (error) {
        this.#fail(batch, error);
        break;
      }
      this.#commit(batch);
      this.#onCommit?.();
    }
    this.#running = undefined;
    if (this.#queue.length === 0) this.#wakeIdleWaiters();
  }

  #wakeIdleWaiters(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }

  #takeBatch(): QueuedChange[] {
    let chars = 0;
    let count = 0;
    while (count < this.#queue.length && (count === 0 || chars + this.#queue[count]!.line.length <= this.#maxBatchChars)) {
      chars += this.#queue[count]!.line.length;
      count++;
    }
    if (count === this.#queue.length) {
      const batch = this.#queue;
      this.#queue = [];
      return batch;
    }
    return this.#queue.splice(0, count);
  }

  /** Memory after disk: the index changes only now, then the writers hear back. */
  #commit(batch: readonly QueuedChange[]): void {
    for (const entry of batch) {
      if (entry.state === null) this.#index.delete(entry.id);
      else this.#index.put(entry.state);
      if (this.#overlay.get(entry.id) === entry) this.#overlay.delete(entry.id);
    }
    for (const entry of batch) entry.resolve(entry.state);
  }

  #fail(batch: readonly QueuedChange[], error: unknown): void {
    const reason = describeWriteError(error);
    const uncertain = error instanceof UncertainWriteError;
    this.#refusal = () => cannotWriteError(reason, uncertain);
    const failed = [...batch, ...this.#queue];
    this.#queue = [];
    this.#overlay.clear();
    for (const entry of failed) entry.reject(cannotWriteError(reason, uncertain));
  }
}
