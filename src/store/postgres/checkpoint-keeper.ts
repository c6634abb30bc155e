// An instance's part in checkpoints: the newest it knows of, when the next may be due, and writing it (one at a time).
import type { Views } from '../views/apply-record.js';
import type { CompactionHold } from '../views/change-history.js';
import type { Registration } from '../views/roster.js';
import { describeDatabaseError, type Database } from './client.js';
import type { CheckpointState } from './checkpoint-lines.js';
import type { Checkpoint } from './checkpoint-table.js';
import { checkpointDue, writeCheckpoint, type CheckpointOutcome } from './checkpoint-write.js';

/** Bytes a row is taken to hold before any was read: about an event's put line. */
const ROW_BYTES_GUESS = 512;
/** A checkpoint a webhook called off is considered again this much later, writes or not: a campus gone quiet has none to prompt it. */
const CALLED_OFF_RETRY_MS = 10_000;

/** What the keeper needs of its store. */
export interface CheckpointKeeperHost {
  readonly db: Database;
  readonly now: () => number;
  readonly logger: Readonly<Record<'info' | 'warn', (message: string, fields?: Record<string, string | number>) => void>>;
  /** §7's threshold (`--compact-min-bytes`). */
  readonly minBytes: number;
  /** Test only: see CHECKPOINT_STEPS. */
  readonly onStep: ((step: number) => void | Promise<void>) | undefined;
  /** The views as they are now (replaced in place by a restart from a checkpoint). */
  views(): Views;
  /** The seq of the newest record the views hold. */
  lastSeq(): number;
  /** False while the store is closing or the database cannot be reached. */
  writable(): boolean;
  /** Waits for the views' turn; resolves with the function that ends it. */
  turn(): Promise<() => void>;
  /** Catches up with the log now (the views then take in a checkpoint just written). */
  catchUp(): Promise<unknown>;
  /** What holds a checkpoint due back (a webhook still needs the rows it would drop), or undefined; `warn` as ChangeHistory.compactionHeld. */
  held(warn: (reason: string) => void): CompactionHold | undefined;
}

/**
 * The newest checkpoint an instance's views know of, and the next one: considered after each write and catch-up by
 * an estimate of §7's rule (cheap, in memory), then written by writeCheckpoint, which counts exactly under its lock.
 */
export class CheckpointKeeper {
  readonly #host: CheckpointKeeperHost;
  #known: Checkpoint;
  /** Rows and bytes read from campus_log since the known checkpoint: the size of a row, for the estimate. */
  #rowsRead = 0;
  #bytesRead = 0;
  /** No checkpoint is considered before the views reach this seq (after one was found not due, or failed). */
  #considerAfter = 0;
  #writing: Promise<CheckpointOutcome> | undefined;
  /** Whether the checkpoint being written was asked for whatever §7's rule says (not only when due). */
  #writingForced = false;
  /** The next look after a checkpoint a webhook called off. */
  #retry: NodeJS.Timeout | undefined;
  /** Whether a webhook calling checkpoints off was warned of since the last one written (once a run of them). */
  #warnedCalledOff = false;

  constructor(host: CheckpointKeeperHost, known: Checkpoint) {
    this.#host = host;
    this.#known = known;
  }

  /** The newest checkpoint the views know of (seq 0: none yet). */
  get known(): Checkpoint {
    return this.#known;
  }

  /** The views took in a newer checkpoint: the log is counted from it. */
  adopt(checkpoint: Checkpoint): void {
    this.#known = checkpoint;
    this.#rowsRead = 0;
    this.#bytesRead = 0;
    this.#considerAfter = 0;
  }

  /** Rows and bytes of campus_log a catch-up read. */
  read(rows: number, bytes: number): void {
    this.#rowsRead += rows;
    this.#bytesRead += bytes;
  }

  /** Writes a checkpoint when the log may be due: the seqs since the known one are at least its rows. */
  consider(): void {
    const lastSeq = this.#host.lastSeq();
    if (this.#writing !== undefined || !this.#host.writable() || lastSeq < this.#considerAfter) return;
    const known = this.#known;
    const rows = lastSeq - known.seq;
    const seenLines = known.lines + this.#rowsRead;
    const rowBytes = seenLines === 0 ? ROW_BYTES_GUESS : (known.bytes + this.#bytesRead) / seenLines;
    if (!checkpointDue({ lines: known.lines + rows, bytes: known.bytes + rows * rowBytes, live: this.#live() }, this.#host.minBytes)) return;
    // A webhook delivering in good order is waited for by the write (at most a few seconds); one paused, failing or
    // retrying holds the checkpoint back for long: none is tried meanwhile.
    if (this.#host.held((reason) => this.#host.logger.warn('a checkpoint is held back: campus_log grows until it is released', { reason }))?.lasting === true) return;
    this.write({ due: true, byItself: true }).catch(() => undefined);
  }

  /**
   * Writes one now (with `due`: only if §7's rule says so); joins one under way, or, when asked for one whatever the
   * rule says while one that is only due runs, waits for it and writes again if it found the log not due. Resolves
   * once the views took it in.
   */
  write(options: { due?: boolean; byItself?: boolean } = {}): Promise<CheckpointOutcome> {
    const force = options.due !== true;
    const running = this.#writing;
    if (running !== undefined && force && !this.#writingForced) return running.then((outcome) => ('written' in outcome ? outcome : this.write(options)));
    if (running !== undefined) return running;
    this.#writingForced = force;
    const writing = this.#write(force, options.byItself === true).finally(() => (this.#writing = undefined));
    this.#writing = writing;
    return writing;
  }

  /** Resolves once no checkpoint is being written here. */
  async settled(): Promise<void> {
    await this.#writing?.catch(() => undefined);
  }

  async #write(force: boolean, byItself: boolean): Promise<CheckpointOutcome> {
    const host = this.#host;
    const started = host.now();
    try {
      const outcome = await writeCheckpoint(
        { db: host.db, known: () => this.#known, live: () => this.#live(), snapshot: () => this.#snapshot(), writable: () => host.writable(), onStep: host.onStep },
        { minBytes: host.minBytes, force, byItself },
      );
      if (!('written' in outcome)) {
        this.#backOff();
        if (byItself && outcome.skipped.startsWith('webhook ')) this.#calledOff(outcome.skipped);
        return outcome;
      }
      this.#warnedCalledOff = false;
      const { written } = outcome;
      host.logger.info('checkpoint written; the rows at or before it were dropped', { seq: written.seq, lines: written.lines, mib: Math.round(written.bytes / 2 ** 20), rows_dropped: outcome.rowsDropped, ms: host.now() - started });
      // Taken in as every instance takes it in: by the catch-up that finds it.
      await host.catchUp();
      return outcome;
    } catch (error) {
      host.logger.warn('a checkpoint could not be written; the database is as it was and writes go on', { error: describeDatabaseError(error) });
      this.#backOff();
      throw error;
    }
  }

  /**
   * A webhook had not acknowledged the rows in time: said once a run of such (a receiver always more than 10 s behind
   * keeps campus_log from being bounded, as a paused webhook does), and looked at again in a while even with no write.
   */
  #calledOff(reason: string): void {
    if (!this.#warnedCalledOff) this.#host.logger.warn('a checkpoint was called off: a webhook is more than 10 s behind the writes; campus_log grows until it keeps up', { reason });
    this.#warnedCalledOff = true;
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => {
      this.#considerAfter = 0;
      this.consider();
    }, CALLED_OFF_RETRY_MS).unref();
  }

  /** The next checkpoint is considered once the log has grown by a sixteenth (at least 64 seqs): the exact count is a query. */
  #backOff(): void {
    const lastSeq = this.#host.lastSeq();
    const lines = this.#known.lines + lastSeq - this.#known.seq;
    this.#considerAfter = lastSeq + Math.max(64, Math.floor(lines / 16));
  }

  /** Live events, registrations, documents and remembered Idempotency-Key answers: what a checkpoint keeps a line for. */
  #live(): number {
    const views = this.#host.views();
    return views.index.size + views.rosters.registrations + views.documents.size + views.idempotency.liveCount(this.#host.now());
  }

  /** The views' state, taken in their turn: no batch applies records meanwhile. */
  async #snapshot(): Promise<CheckpointState> {
    const end = await this.#host.turn();
    try {
      const { index, rosters, documents, idempotency, changes } = this.#host.views();
      let gone = changes.horizon;
      // Deleted events' tombstones: a draft once public keeps its own with its put line (API.md §14).
      for (const seq of changes.deletions().values()) if (seq > gone) gone = seq;
      const registrations: Registration[] = [];
      for (const [, roster] of rosters.entries()) for (const registration of roster.values()) registrations.push(registration);
      return { seq: this.#host.lastSeq(), gone, events: [...index.values()], registrations, documents: documents.all(), answers: idempotency.live(this.#host.now()) };
    } finally {
      end();
    }
  }
}
