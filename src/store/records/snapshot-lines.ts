// The lines of a state written whole: what a compaction writes to events.jsonl, and a PostgreSQL checkpoint holds.
import type { StoredEvent } from '../../events/event.js';
import type { IdempotencyEntry } from '../views/idempotency-table.js';
import type { Registration } from '../views/roster.js';
import { encodeDocument, encodeGroup, encodeIdempotency, encodeMark, encodeRegistrationState, encodeStored } from './encode-record.js';
import type { StoredDocument } from './jsonl-record.js';

/** A state to write whole. */
export interface SnapshotState {
  /** The live events, in seq order. */
  readonly events: readonly StoredEvent[];
  /** The live registrations, in seq order. */
  readonly registrations: readonly Registration[];
  /** The Idempotency-Key answers still remembered. */
  readonly answers: readonly IdempotencyEntry[];
  /** The live documents (series). */
  readonly documents: readonly StoredDocument[];
  /** The mark line: at the newest seq no live line holds, saying the newest deletion forgotten; none when nothing was dropped. */
  readonly mark: { seq: number; gone: number } | undefined;
}

/** One line, and the records it holds (a group line holds several). */
export interface SnapshotLine {
  readonly text: string;
  readonly records: number;
}

/**
 * Every line of `state` in seq order, so that sequence numbers only grow from line to line (API.md §7): the put line
 * of every event, the state line of every registration, the mark, and the remembered answers and live series, which
 * keep the seqs of the writes that made them and go where those fall. Lines that share a seq (an answer and the event
 * it created, unchanged since; a series and the mark) go out as one group line, whose seq is theirs, kept ones first.
 * Throws when the live state is not in seq order (`writer` names who found it): replay would refuse the log, and stop
 * the next start.
 */
export function* snapshotLines(state: SnapshotState, writer: string): Generator<SnapshotLine> {
  const { events, registrations, mark } = state;
  const kept: { seq: number; line: () => string }[] = [
    ...state.answers.map((answer) => ({ seq: answer.seq, line: () => encodeIdempotency(answer) })),
    ...state.documents.map((document) => ({ seq: document.seq, line: () => encodeDocument(document, 'docstate') })),
  ].sort((a, b) => a.seq - b.seq);
  let nextEvent = 0;
  let nextRegistration = 0;
  let nextKept = 0;
  let markWritten = mark === undefined;
  let lastSeq = 0;
  while (nextEvent < events.length || nextRegistration < registrations.length || nextKept < kept.length || !markWritten) {
    const event = events[nextEvent];
    const registration = registrations[nextRegistration];
    const seq = Math.min(event?.seq ?? Infinity, registration?.seq ?? Infinity, kept[nextKept]?.seq ?? Infinity, markWritten ? Infinity : mark!.seq);
    const together: string[] = [];
    while (kept[nextKept]?.seq === seq) together.push(kept[nextKept++]!.line());
    // At most one line of the live state at a seq: each was written by a write of its own.
    let own: string | undefined;
    if (!markWritten && mark!.seq === seq) {
      own = encodeMark(mark!.seq, mark!.gone);
      markWritten = true;
    } else if (event?.seq === seq) {
      own = encodeStored(event);
      nextEvent++;
    } else if (registration?.seq === seq) {
      own = encodeRegistrationState(registration);
      nextRegistration++;
    }
    if (own !== undefined) {
      if (seq <= lastSeq) throw new Error(`${writer} found seq ${seq} after seq ${lastSeq}: the live state is not in seq order`);
      lastSeq = seq;
      together.push(own);
    }
    yield { text: together.length === 1 ? together[0]! : encodeGroup(together), records: together.length };
  }
}
