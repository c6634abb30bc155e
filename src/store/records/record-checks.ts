// The rules of a line's fields that writing and reading share: the shapes of ids and times, the range of a seq, and
// what an event record must hold for replay to read it back.
import { CATEGORIES, type EventRecord } from '../../events/event.js';
import { parseUtcTime } from '../views/view-scan.js';

const TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** An id a line holds as it is, needing no escape: a deleted event's, a document's, an API key's. */
export const ID_PATTERN = /^[A-Za-z0-9_]{1,64}$/;
/** An event id as the service makes them. */
export const EVENT_ID_PATTERN = /^evt_[0-9A-Za-z]{16,}$/;
/** A document collection's name. */
export const COLLECTION_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
/** A series id as the service makes them. */
export const SERIES_ID_PATTERN = /^ser_[0-9A-Za-z]{16,}$/;

/**
 * Why replay could not read `record` back, or undefined when it can: the store checks this before
 * logging, so it never writes a line that would stop the next start.
 */
export function unloggableReason(record: EventRecord): string | undefined {
  if (typeof record.id !== 'string' || !EVENT_ID_PATTERN.test(record.id)) return `its id ${JSON.stringify(record.id)} is not evt_ + 16 or more letters and digits`;
  if (!CATEGORIES.includes(record.category)) return `its category ${JSON.stringify(record.category)} is unknown`;
  if (Number.isNaN(timeMs(record.start_time)) || Number.isNaN(timeMs(record.end_time))) return 'its start_time and end_time must be YYYY-MM-DDTHH:MM:SS.sssZ';
  if (Number.isNaN(timeMs(record.created_at))) return 'its created_at must be YYYY-MM-DDTHH:MM:SS.sssZ';
  if (!Number.isFinite(record.capacity) || !Number.isFinite(record.registered_count)) return 'its capacity and registered_count must be numbers';
  if (typeof record.organizer?.email !== 'string') return 'it has no organizer e-mail';
  return undefined;
}

/** Milliseconds of a `YYYY-MM-DDTHH:MM:SS.sssZ` string, by the same rules as replay's byte parser; NaN otherwise. */
export function timeMs(value: unknown): number {
  if (typeof value !== 'string' || !TIME_PATTERN.test(value)) return NaN;
  // The pattern allows only ASCII, so the latin1 bytes are exact; a scratch buffer spares an allocation per write.
  TIME_SCRATCH.write(value, 0, 'latin1');
  return parseUtcTime(TIME_SCRATCH, 0);
}

const TIME_SCRATCH = Buffer.alloc(24);

/** 10000-01-01T00:00:00.000Z: the first time whose ISO string has more than 4 digits of year. */
const TIME_LIMIT_MS = Date.UTC(10000, 0, 1);

/** The log's form of a time given in ms since the epoch; throws for one replay could not read back (before 1970, from 10000 on, not a whole number). */
export function isoTime(ms: number, what: string): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= TIME_LIMIT_MS) throw new TypeError(`${what} must be a whole number of ms from 1970 to 9999, got ${ms}`);
  return new Date(ms).toISOString();
}

/**
 * Whether `record` keeps the seq of the write that made it (a remembered answer, a series' state, as compaction writes
 * them; older builds wrote them ahead of the rest): the one kind of line whose seq need not grow, and which may share
 * its seq with another.
 */
export function keepsItsWriteSeq(record: { op: string }): boolean {
  return record.op === 'idem' || record.op === 'docstate';
}

/** The largest seq a line holds: the decoder reads at most 15 digits. */
const MAX_SEQ = 999_999_999_999_999;

/** `seq`, when a line may hold it (an integer from 1 to MAX_SEQ); throws otherwise. */
export function checkSeq(seq: number): number {
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > MAX_SEQ) throw new TypeError(`a sequence number is an integer from 1 to ${MAX_SEQ}, got ${seq}`);
  return seq;
}
