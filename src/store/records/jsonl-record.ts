// The line format of events.jsonl, which both engines write and read: one JSON object per change, with its sequence
// number and a CRC-32. These are the kinds of line; encode-record.ts writes them and decode-record.ts reads them back.
import type { StoredEvent } from '../../events/event.js';
import type { PackedEvents } from '../views/packed-events.js';
import type { Registration } from '../views/roster.js';
import type { IdempotencyEntry, IdempotencyTag } from '../views/idempotency-table.js';

/** A line that puts (creates or replaces) an event. */
export interface PutRecord {
  seq: number;
  op: 'put';
  stored: StoredEvent;
  /** Waitlisted registrations this change confirmed (a capacity raised), oldest first. */
  promoted?: readonly string[];
  /** The Idempotency-Key the create was sent with, if any: its answer is remembered from this line. */
  idem?: IdempotencyTag;
}

/**
 * A line that registers an attendee, confirmed or waitlisted as the line says (API.md §8). A
 * confirmation changes the event too: the event takes the line's seq, the registration the one
 * before it (written as `"seq"` inside `reg`), so compaction can write each at its own.
 */
export interface RegisterRecord {
  seq: number;
  op: 'reg';
  registration: Registration;
  /** The Idempotency-Key the registration was sent with, if any. */
  idem?: IdempotencyTag;
}

/** A line that cancels a registration, and confirms the waitlisted ones its seat went to, oldest first. */
export interface CancelRecord {
  seq: number;
  op: 'cancel';
  eventId: string;
  id: string;
  /** When it was cancelled (ms since the epoch). */
  atMs: number;
  promoted: readonly string[];
}

/** A line that checks a confirmed attendee in. */
export interface CheckInRecord {
  seq: number;
  op: 'checkin';
  eventId: string;
  id: string;
  at: string;
}

/**
 * A registration as it stands, written by compaction at the seq that created it: replay takes its
 * status and check-in as they are, and it changes nothing of its event (the event's own line says that).
 */
export interface RegistrationStateRecord {
  seq: number;
  op: 'regstate';
  registration: Registration;
}

/** A line that deletes an event. */
export interface DeleteRecord {
  seq: number;
  op: 'del';
  id: string;
  /** When the event was deleted (lines written before 2026-11-30 have no time: the time they are read stands in). */
  atMs?: number;
}

/** Every kind of line the log holds. */
export type LogRecord = PutRecord | DeleteRecord | RegisterRecord | CancelRecord | CheckInRecord | RegistrationStateRecord;

/**
 * Written by compaction, at the newest seq it dropped: `gone` is the newest seq of a deletion dropped
 * (the change feed answers 410 before it), and the line's own seq keeps the last seq from going back.
 */
export interface MarkRecord {
  seq: number;
  op: 'mark';
  gone: number;
}

/**
 * Written by compaction, at the start of the new log: an answer to an Idempotency-Key still remembered.
 * Its seq is the seq of the write it answers, so it need not grow like the seq of a change.
 */
export interface IdempotencyRecord {
  seq: number;
  op: 'idem';
  entry: IdempotencyEntry;
}

/**
 * A document of a named collection kept beside the events (a recurring series, say): the store keeps its JSON
 * whole and knows nothing of its meaning. `docstate` is compaction's copy, at the seq of the document's last write
 * and where that seq falls (older builds wrote it ahead of the rest, so, like an idem line, its seq need not grow).
 */
export interface DocumentRecord {
  seq: number;
  op: 'doc' | 'docstate';
  document: StoredDocument;
  /** A `doc` line written under an Idempotency-Key (a series' create): the key, and when it was written. */
  idem?: IdempotencyTag;
  atMs?: number;
}

/** A line that deletes a document. */
export interface DocumentDeleteRecord {
  seq: number;
  op: 'docdel';
  collection: string;
  id: string;
}

/** A document as the store holds it: its collection, id, JSON text and the seq of the line that wrote it. */
export interface StoredDocument {
  readonly collection: string;
  readonly id: string;
  readonly json: string;
  readonly seq: number;
}

/** Lines that change no event nor registration: what compaction writes to keep what it drops from mattering, and documents. */
export type MetaRecord = MarkRecord | IdempotencyRecord | DocumentRecord | DocumentDeleteRecord;

/** The kinds of line that change registrations. */
export type RosterRecord = RegisterRecord | CancelRecord | CheckInRecord | RegistrationStateRecord;

/** Options of `decodeRecord`. */
export interface DecodeOptions {
  /**
   * Returns one shared copy of equal strings (organizer e-mails repeat across events), to keep replay
   * memory small. It gets a string that may point into the event's view: it must keep a copy.
   */
  intern?: (value: string) => string;
  /** Where replay packs the views it reads (see PackedEvents); without it every view is kept as a string. */
  pack?: PackedEvents;
}
