// events.jsonl removed, moved away or replaced while the server holds it open (an operator's `rm events.jsonl*`, a
// backup copied in while it runs): the open log is written back to disk, and writes stop until a restart.
import path from 'node:path';
import type { FileSystemSeam } from './file-system.js';
import { createKeptFile, fileStamp } from './kept-file.js';
import type { StoreLogger } from './store-logger.js';
import { copyBytes } from './write-fully.js';
import { describeWriteError } from '../store-errors.js';

/** A write refused because the log lost its name; its message says where the log's lines are. */
export class LogRemoved extends Error {
  override readonly name = 'LogRemoved';
}

/** How often a write-back that failed (no room) is tried again, in ms. */
const RETRY_MS = 5_000;

/** The open log, written up to `written`, of which `acknowledged` bytes were answered. */
export interface OpenLog {
  fd: number;
  /** Bytes whose writes were answered. */
  acknowledged: number;
  /** Bytes written and synced. */
  written: number;
}

/**
 * Tells whether the log's name still names the open log, and writes the open log back when it does not: under the
 * log's name when that is free, else beside the file that took the name as `events.jsonl.removed-<time>`, holding
 * what was acknowledged (a batch not yet acknowledged is refused, and cut off the open log). Either way later writes
 * are refused until a restart. A write-back that fails (no room) is tried again every 5 s, and once
 * more when the store closes.
 */
export class LostLogGuard {
  readonly #fs: FileSystemSeam;
  readonly #file: string;
  readonly #logger: StoreLogger;
  readonly #now: () => number;
  readonly #retryMs: number;
  #retry: NodeJS.Timeout | undefined;
  /** Why writes are refused since the log lost its name (undefined while it has it). */
  reason: string | undefined;
  /** Set once the log was written back under its name: what refuses every later write. */
  refuseLater: LogRemoved | undefined;
  /** True once the open log is written back (under its name or beside it). */
  #kept = false;

  constructor(deps: { fs: FileSystemSeam; file: string; logger: StoreLogger; now: () => number; retryMs?: number }) {
    this.#fs = deps.fs;
    this.#file = deps.file;
    this.#logger = deps.logger;
    this.#now = deps.now;
    this.#retryMs = deps.retryMs ?? RETRY_MS;
  }

  /**
   * Whether the log's name names the open log `fd` ('ours'), nothing, or another file. The open log's identity is read
   * anew each time, not kept by its descriptor: two compactions swap the log twice, and the second may be given the
   * first one's descriptor number, whose old identity then named a file gone (a log "replaced" that was ours).
   */
  async named(fd: number): Promise<'ours' | 'absent' | 'other'> {
    const [holder, own] = await Promise.all([this.#fs.pathId(this.#file), this.#fs.fileId(fd)]);
    return holder === own ? 'ours' : holder === undefined ? 'absent' : 'other';
  }

  /**
   * With the open log written up to `written` (synced), of which `acknowledged` was answered: `named` tells whether the
   * log's name still names it, and whether anything holds that name. Resolves when what was written may be
   * acknowledged (the log is back under its name); rejects with LogRemoved when it may not.
   */
  async keep(log: OpenLog, named: 'ours' | 'absent' | 'other'): Promise<void> {
    if (named === 'ours') return;
    const name = path.basename(this.#file);
    try {
      const kept = await this.#writeBack(log, named === 'absent');
      if (kept === this.#file) {
        this.reason = `${name} was removed or moved away while the server ran: it was written again from the server's open copy, and nothing acknowledged is lost`;
        this.#logger.warn('the event log was removed or moved away while the server ran: it was written again from the open copy; writes are refused until restart', { file: this.#file });
        this.refuseLater = new LogRemoved(this.reason);
        return;
      }
      this.reason = `${name} was replaced while the server ran: the log it had until then is kept as ${path.basename(kept)}`;
      this.#logger.warn('the event log was replaced while the server ran: the log until then is kept beside it; writes are refused until restart', { file: this.#file, kept });
    } catch (error) {
      this.reason = `${name} was removed, moved or replaced while the server ran, and writing the open log back failed (${describeWriteError(error)}); the server tries again every ${this.#retryMs / 1000} s: do not stop it before then`;
      this.#logger.warn('the event log was removed, moved or replaced while the server ran, and writing it back failed; trying again', { file: this.#file, error: String(error) });
      this.#retryLater({ ...log, written: log.acknowledged });
    }
    // What was not acknowledged is refused: off the open log too, so whatever keeps it (a moved file, a later write-back) holds only acknowledged writes.
    await this.#fs.ftruncate(log.fd, log.acknowledged).catch(() => undefined);
    throw new LogRemoved(this.reason);
  }

  /**
   * The store closes: the open log is written back now if it lost its name and is not yet (a removal no write met, a
   * write-back still failing). Rejects when that fails, keeping what could be copied: the process must not end
   * saying all is well while the only whole copy of the log goes with it.
   */
  async close(log: OpenLog, named: 'ours' | 'absent' | 'other'): Promise<void> {
    clearInterval(this.#retry);
    if (named === 'ours' || this.#kept) return;
    const kept = await this.#writeBack(log, named === 'absent', { keepPartial: true }).catch(async (error: unknown) => {
      // The whole folder gone (its keys too): there is nowhere to write to, and whoever removed it meant the data to go.
      if ((await this.#fs.pathId(path.dirname(this.#file)).catch(() => 'unknown')) === undefined) {
        this.#logger.warn('the data folder was removed while the server ran: the event log goes with it', { file: this.#file });
        return undefined;
      }
      throw new Error(`${path.basename(this.#file)} was removed, moved or replaced while the server ran, and writing the open log back failed at the stop (${describeWriteError(error)}): what could be copied is kept beside it as ${path.basename(this.#file)}.removed-<time>, cut short`, { cause: error });
    });
    if (kept !== undefined) this.#logger.warn('the event log had lost its name; it was written back at the stop', { file: this.#file, kept });
  }

  #retryLater(log: OpenLog): void {
    this.#retry ??= setInterval(() => {
      this.#fs
        .pathId(this.#file)
        .then((holder) => this.#writeBack(log, holder === undefined))
        .then(
          (kept) => {
            clearInterval(this.#retry);
            this.reason = `${path.basename(this.#file)} was removed, moved or replaced while the server ran: the open log was written back as ${path.basename(kept)}, and nothing acknowledged is lost`;
            this.#logger.warn('the event log was written back after all; writes are refused until restart', { file: this.#file, kept });
          },
          () => undefined,
        );
    }, this.#retryMs).unref();
  }

  /**
   * Copies the open log to `FILE.removed-STAMP` and syncs it, then gives the copy the log's name when `takeName` and
   * the name is still free (the whole log, this batch included), else keeps it beside (only what was acknowledged);
   * resolves with where it is. A copy that could not be made whole is removed.
   */
  async #writeBack(log: OpenLog, takeName: boolean, options: { keepPartial?: boolean } = {}): Promise<string> {
    const fs = this.#fs;
    const { fd: out, file: copy } = await createKeptFile(fs, `${this.#file}.removed-${fileStamp(this.#now())}`);
    let named = false;
    try {
      try {
        await copyBytes(fs, { from: log.fd, start: 0, end: takeName ? log.written : log.acknowledged, to: out, toPosition: 0, what: copy });
        await fs.fsync(out);
        if (takeName) named = await fs.link(copy, this.#file).then(() => true, (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
          return false;
        });
        if (takeName && !named) {
          await fs.ftruncate(out, log.acknowledged);
          await fs.fsync(out);
        }
      } finally {
        await fs.close(out);
      }
    } catch (error) {
      if (options.keepPartial !== true) await fs.unlink(copy).catch(() => undefined);
      throw error;
    }
    if (named) await fs.unlink(copy);
    await fs.syncDirectory(path.dirname(this.#file));
    this.#kept = true;
    return named ? this.#file : copy;
  }
}
