// Compaction of events.jsonl: the live events are written whole to a temporary file beside the log, which is then renamed over it.
import * as path from 'node:path';
import type { StoredEvent } from '../../events/event.js';
import type { FileSystemSeam } from './file-system.js';
import { snapshotLines } from '../records/snapshot-lines.js';
import type { StoredDocument } from '../records/jsonl-record.js';
import type { Registration } from '../views/roster.js';
import type { IdempotencyEntry } from '../views/idempotency-table.js';
import { copyBytes, writeFully } from './write-fully.js';
import { ReaderBehind } from '../views/change-history.js';

/**
 * The steps of a compaction, in order; the hook `onStep(n)` runs before step n (1-based). Until step
 * 7 (the rename) events.jsonl is the old log, untouched; from then on it is the new one, complete.
 * A crash at any step therefore leaves one complete, correct log, plus at most a temporary file
 * that the next start removes.
 */
export const COMPACTION_STEPS = [
  'create the temporary file',
  'write the live events and registrations to it, in seq order, in chunks',
  'fsync it, and wait for the webhooks to save positions past the snapshot',
  'pause the write queue (the batch in flight finishes)',
  'append the lines committed since the snapshot',
  'fsync it again',
  'rename it over events.jsonl (called off if events.jsonl no longer names the log)',
  'fsync the folder',
  'swap the log handle to the new file',
  'resume the write queue',
] as const;

/** The temporary file a compaction writes, beside the log; a leftover one is removed on open. */
export function compactionTempFile(logFile: string): string {
  return `${logFile}.compact-tmp`;
}

/** The log as the file store holds it. */
export interface LogHandle {
  fd: number;
  /** Bytes of durable, committed lines. */
  length: number;
  /** Good lines in those bytes. */
  lines: number;
}

/** What a compaction needs from the file store it compacts. */
export interface CompactionHost {
  readonly fs: FileSystemSeam;
  /** The log's path. */
  readonly file: string;
  /** False skips every fsync (tests and benchmarks only). */
  readonly sync: boolean;
  /**
   * The committed state at this moment: the live events in seq order, the live registrations (any
   * order), and the part of the log that holds them.
   */
  committed(): CommittedState;
  /**
   * Resolves once the log's readers (webhooks) no longer need its lines through `throughSeq` as they are, before the
   * rewritten log is renamed into place; a rejection calls the compaction off, the log untouched.
   */
  settle(throughSeq: number): Promise<void>;
  /** Pauses the write queue, waiting for the batch in flight; resolves with the log then, or undefined when the store cannot write any more. */
  pause(): Promise<LogHandle | undefined>;
  /** Makes the new file the log; every deletion up to `compactedThrough` (the snapshot's last seq) is gone from it. */
  swap(log: LogHandle, compactedThrough: number): void;
  resume(): void;
  /** Refuses every queued and later write: after the rename, the old handle no longer names the log. */
  refuse(error: unknown): void;
  /** True once the store is closing: a compaction that has not paused the queue yet gives up. */
  stopping(): boolean;
  /**
   * Whether the log's name still names the open log `fd`. Asked just before the rename: one replaced or removed by
   * hand calls the compaction off, else its rename would put the rewritten log over the file someone put there.
   */
  namesLog(fd: number): Promise<boolean>;
  /** Test only: runs before each step (1-based, see COMPACTION_STEPS); may throw, or never resolve to freeze as a crash would. */
  onStep?: (step: number) => void | Promise<void>;
}

/** The committed state a compaction writes, taken in one synchronous step. */
export interface CommittedState {
  /** The live events, in seq order. */
  events: readonly StoredEvent[];
  /** The live registrations, any order. */
  registrations: Registration[];
  /** The part of the log that holds them. */
  log: LogHandle;
  /** The seq of the last committed line. */
  lastSeq: number;
  /** Deleted events' tombstones (id → seq of the del line): compaction drops them all. */
  tombstones?: ReadonlyMap<string, number>;
  /** The newest seq of a deletion an earlier compaction dropped. */
  horizon?: number;
  /** Answers of Idempotency-Keys still remembered: kept, in idem lines. */
  answers?: readonly IdempotencyEntry[];
  /** The live documents (series): kept, in docstate lines at the seq that wrote each. */
  documents?: readonly StoredDocument[];
}

/** How a compaction went. */
export interface CompactionResult {
  linesBefore: number;
  bytesBefore: number;
  linesAfter: number;
  bytesAfter: number;
  /** Lines committed while the snapshot was written, copied after it. */
  tailLines: number;
}

/** Thrown when a compaction gives up because the store is closing or can no longer write; the log is untouched. */
export class CompactionAbandoned extends Error {
  override readonly name = 'CompactionAbandoned';
}

/** Characters of lines per write of the snapshot: the event loop gets a turn between chunks. */
const CHUNK_CHARS = 1024 * 1024;

/**
 * Rewrites the log as its live events plus the lines committed meanwhile (sequence numbers kept).
 * Writes keep arriving throughout; they wait only while the tail is copied and the file renamed.
 * On a failure before the rename, the temporary file is removed and the log goes on as before; after
 * it, writes are refused until restart (reads go on), as after any failed write.
 */
export async function compactLog(host: CompactionHost): Promise<CompactionResult> {
  const { fs, file } = host;
  const temp = compactionTempFile(file);
  const step = async (n: number): Promise<void> => {
    await host.onStep?.(n);
  };
  await step(1);
  const fd = await fs.open(temp, 'w+');
  let paused = false;
  let renamed = false;
  let swapped = false;
  try {
    await step(2);
    const snapshot = host.committed();
    const written = await writeSnapshot(host, fd, snapshot, temp);
    let length = written.length;
    await step(3);
    if (host.sync) await fs.fsync(fd);
    // A webhook restarted from a position before the snapshot would read its rewritten lines as other messages.
    await host.settle(snapshot.lastSeq).catch((error: unknown) => {
      throw error instanceof ReaderBehind ? new CompactionAbandoned(error.message, { cause: error }) : error;
    });
    await step(4);
    if (host.stopping()) throw new CompactionAbandoned('the store is closing');
    const log = await host.pause();
    paused = true;
    if (log === undefined) throw new CompactionAbandoned('the store can no longer write');
    await step(5);
    await copyBytes(fs, { from: log.fd, start: snapshot.log.length, end: log.length, to: fd, toPosition: length, what: temp });
    length += log.length - snapshot.log.length;
    await step(6);
    if (host.sync) await fs.fsync(fd);
    await step(7);
    // The store's check of the name (which waits for a compaction) then finds what happened, as it would without one.
    if (!(await host.namesLog(log.fd))) throw new CompactionAbandoned('the log lost its name while it was compacted');
    await fs.rename(temp, file);
    renamed = true;
    await step(8);
    if (host.sync) await fs.syncDirectory(path.dirname(file));
    await step(9);
    const tailLines = log.lines - snapshot.log.lines;
    const lines = written.lines + tailLines;
    host.swap({ fd, length, lines }, snapshot.lastSeq);
    swapped = true;
    await fs.close(log.fd).catch(() => undefined);
    await step(10);
    paused = false;
    host.resume();
    return { linesBefore: log.lines, bytesBefore: log.length, linesAfter: lines, bytesAfter: length, tailLines };
  } catch (error) {
    if (!swapped) await fs.close(fd).catch(() => undefined);
    if (!renamed) await fs.unlink(temp).catch(() => undefined);
    else if (!swapped) host.refuse(error);
    if (paused) host.resume();
    throw error;
  }
}

/**
 * Where the mark line goes and what it says: at the newest seq not held by a live line (so the last seq
 * never goes back, even when the newest lines are dropped), saying the newest deletion dropped.
 * Undefined when nothing was dropped at all.
 */
export function markOf(state: Pick<CommittedState, 'events' | 'registrations' | 'lastSeq' | 'tombstones' | 'horizon'>): { seq: number; gone: number } | undefined {
  let gone = state.horizon ?? 0;
  for (const seq of state.tombstones?.values() ?? []) if (seq > gone && seq <= state.lastSeq) gone = seq;
  const live = new Set<number>();
  for (const event of state.events) live.add(event.seq);
  for (const registration of state.registrations) live.add(registration.seq);
  let seq = state.lastSeq;
  while (seq > 0 && live.has(seq)) seq--;
  return seq > 0 ? { seq, gone } : undefined;
}

/**
 * Writes the lines of the state in seq order (see snapshotLines), in chunks; returns the bytes and records written.
 * Gives up when the store starts closing.
 */
async function writeSnapshot(host: CompactionHost, fd: number, state: CommittedState, temp: string): Promise<{ length: number; lines: number }> {
  const registrations = state.registrations.sort((a, b) => a.seq - b.seq);
  const lines = snapshotLines({ events: state.events, registrations, answers: state.answers ?? [], documents: state.documents ?? [], mark: markOf(state) }, 'compaction');
  let records = 0;
  let length = 0;
  for (let next = lines.next(); !next.done; ) {
    let text = '';
    for (; !next.done && text.length < CHUNK_CHARS; next = lines.next()) {
      text += next.value.text;
      records += next.value.records;
    }
    const bytes = Buffer.from(text, 'utf8');
    await writeFully(host.fs, fd, bytes, length, temp);
    length += bytes.length;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (host.stopping()) throw new CompactionAbandoned('the store is closing');
  }
  return { length, lines: records };
}
