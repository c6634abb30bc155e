// What a checkpoint holds, as record lines: the lines the file store's compaction writes for the same state (API.md §7).
import type { StoredEvent } from '../../events/event.js';
import { snapshotLines } from '../records/snapshot-lines.js';
import type { StoredDocument } from '../records/jsonl-record.js';
import type { IdempotencyEntry } from '../views/idempotency-table.js';
import type { Registration } from '../views/roster.js';

/** The committed state of an instance's views at one seq, taken in one synchronous step. */
export interface CheckpointState {
  /** The seq of the newest record the views hold. */
  readonly seq: number;
  /** The newest seq of a deletion forgotten by this checkpoint or an earlier one (0 for none). */
  readonly gone: number;
  /** The live events, in seq order. */
  readonly events: readonly StoredEvent[];
  /** The live registrations, any order. */
  readonly registrations: readonly Registration[];
  /** The live documents (series). */
  readonly documents: readonly StoredDocument[];
  /** The Idempotency-Key answers still remembered. */
  readonly answers: readonly IdempotencyEntry[];
}

/** A piece of a checkpoint: whole lines. */
export interface CheckpointChunk {
  readonly text: string;
  readonly lines: number;
  readonly bytes: number;
}

/** Characters of lines per part (about a MiB): few rows to read back, and the event loop gets a turn between them. */
export const PART_CHARS = 1024 * 1024;

/**
 * The lines of `state` in parts, as a compacted events.jsonl holds them (see snapshotLines): in seq order, lines that
 * share a seq as one group line; `lines` counts records, as replay and loadCheckpoint count them. The mark goes at the
 * newest seq no live line holds (so the log's last seq never goes back), saying the newest deletion forgotten; none
 * when every seq up to `state.seq` is live.
 */
export function* checkpointChunks(state: CheckpointState, partChars: number = PART_CHARS): Generator<CheckpointChunk> {
  const events = inSeqOrder(state.events);
  const registrations = [...state.registrations].sort((a, b) => a.seq - b.seq);
  const seq = markSeq(state, events, registrations);
  const mark = seq === undefined ? undefined : { seq, gone: state.gone };
  let text = '';
  let lines = 0;
  for (const line of snapshotLines({ events, registrations, answers: state.answers, documents: state.documents, mark }, 'a checkpoint')) {
    text += line.text;
    lines += line.records;
    if (text.length < partChars) continue;
    yield { text, lines, bytes: Buffer.byteLength(text) };
    text = '';
    lines = 0;
  }
  if (lines > 0) yield { text, lines, bytes: Buffer.byteLength(text) };
}

/** The events in seq order (the index keeps them so; sorted only if not). */
function inSeqOrder(events: readonly StoredEvent[]): readonly StoredEvent[] {
  for (let i = 1; i < events.length; i++) if (events[i]!.seq <= events[i - 1]!.seq) return [...events].sort((a, b) => a.seq - b.seq);
  return events;
}

/** The newest seq up to `state.seq` that no live line holds, or undefined when there is none. */
function markSeq(state: CheckpointState, events: readonly StoredEvent[], registrations: readonly Registration[]): number | undefined {
  // Only the newest seqs can be live above the mark: walk down from the top while they are.
  for (let i = events.length - 1, j = registrations.length - 1, seq = state.seq; seq > 0; seq--) {
    while (i >= 0 && events[i]!.seq > seq) i--;
    while (j >= 0 && registrations[j]!.seq > seq) j--;
    if (!((i >= 0 && events[i]!.seq === seq) || (j >= 0 && registrations[j]!.seq === seq))) return seq;
  }
  return undefined;
}
