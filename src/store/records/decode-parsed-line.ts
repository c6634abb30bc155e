// The slow path of the decoder: lines and event views read by JSON.parse, every field checked. It reads the rare
// lines (cancellations, check-ins, compaction's lines, documents) and any line or view whose layout the byte path
// of decode-record.ts does not know (an escape in a string, fields in another order).
import { CATEGORIES, EVENT_STATUSES, type Category, type StoredEvent } from '../../events/event.js';
import { ServedEvent } from '../views/served-event.js';
import { REGISTRATION_ID_PATTERN, type Registration, type RegistrationStatus } from '../views/roster.js';
import type { RememberedAnswer } from '../views/idempotency-table.js';
import type { DecodeOptions, DocumentDeleteRecord, DocumentRecord, IdempotencyRecord, MetaRecord, RosterRecord } from './jsonl-record.js';
import { decodeIdemToken } from './idem-token.js';
import { COLLECTION_PATTERN, EVENT_ID_PATTERN, ID_PATTERN, SERIES_ID_PATTERN, timeMs } from './record-checks.js';

/**
 * A line read by JSON.parse, every field checked: registration lines in a layout the byte path does not read, and
 * marks, remembered answers and documents, all rare next to reads and small. From `start` up to where `,"crc"` starts.
 */
export function decodeParsedLine(buf: Buffer, start: number, end: number, seq: number, options: DecodeOptions): RosterRecord | MetaRecord | string {
  let line: unknown;
  try {
    line = JSON.parse(`${buf.toString('utf8', start, end)}}`);
  } catch {
    return 'the line is not valid JSON';
  }
  // JSON.parse gives an unknown shape: every field used below is checked before use.
  const fields = line as Record<string, unknown>;
  if (fields['op'] === 'mark') {
    const gone = fields['gone'];
    if (typeof gone !== 'number' || !Number.isSafeInteger(gone) || gone < 0 || gone > seq) return 'a mark line has no valid "gone"';
    return { seq, op: 'mark', gone };
  }
  if (fields['op'] === 'idem') return decodeIdempotencyLine(fields, seq, options);
  if (fields['op'] === 'doc' || fields['op'] === 'docstate' || fields['op'] === 'docdel') return decodeDocumentLine(fields, seq);
  const eventId = fields['event'];
  if (typeof eventId !== 'string' || !EVENT_ID_PATTERN.test(eventId)) return `a ${String(fields['op'])} line has no valid "event"`;
  switch (fields['op']) {
    case 'reg':
    case 'regstate': {
      const registration = registrationOf(fields['reg'], eventId, seq, fields['op'] === 'regstate', options);
      if (typeof registration === 'string') return `a ${fields['op']} line ${registration}`;
      if (fields['op'] === 'regstate' || fields['idem'] === undefined) return { seq, op: fields['op'], registration };
      const idem = typeof fields['idem'] === 'string' ? decodeIdemToken(fields['idem']) : undefined;
      if (idem === undefined) return 'a reg line has a malformed "idem"';
      return { seq, op: 'reg', registration, idem };
    }
    case 'cancel': {
      const id = fields['id'];
      const atMs = timeMs(fields['at']);
      const promoted = fields['promoted'];
      if (typeof id !== 'string' || !REGISTRATION_ID_PATTERN.test(id)) return 'a cancel line has no valid "id"';
      if (Number.isNaN(atMs)) return 'a cancel line has no valid "at"';
      if (!Array.isArray(promoted) || !promoted.every((each) => typeof each === 'string' && REGISTRATION_ID_PATTERN.test(each))) return 'a cancel line has no valid "promoted" list';
      return { seq, op: 'cancel', eventId, id, atMs, promoted: promoted as string[] };
    }
    case 'checkin': {
      const id = fields['id'];
      const at = fields['at'];
      if (typeof id !== 'string' || !REGISTRATION_ID_PATTERN.test(id)) return 'a checkin line has no valid "id"';
      if (Number.isNaN(timeMs(at))) return 'a checkin line has no valid "at"';
      return { seq, op: 'checkin', eventId, id, at: at as string };
    }
    default:
      return `unknown record kind "op":${JSON.stringify(fields['op'])}`;
  }
}

/** A `doc`, `docstate` or `docdel` line. */
function decodeDocumentLine(fields: Record<string, unknown>, seq: number): DocumentRecord | DocumentDeleteRecord | string {
  const { op, coll: collection, id, doc } = fields;
  if (typeof collection !== 'string' || !COLLECTION_PATTERN.test(collection)) return `a ${String(op)} line has no valid "coll"`;
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) return `a ${String(op)} line has no valid "id"`;
  if (op === 'docdel') return { seq, op, collection, id };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return `a ${String(op)} line has no "doc" object`;
  const document = { collection, id, json: JSON.stringify(doc), seq };
  if (op !== 'doc' || fields['idem'] === undefined) return { seq, op: op === 'doc' ? 'doc' : 'docstate', document };
  // Written under an Idempotency-Key (a series' create): its answer is remembered as an event's put's is.
  const idem = typeof fields['idem'] === 'string' ? decodeIdemToken(fields['idem']) : undefined;
  if (idem === undefined) return 'a doc line has a malformed "idem"';
  const atMs = timeMs(fields['at']);
  if (Number.isNaN(atMs)) return 'a doc line has no valid "at"';
  return { seq, op: 'doc', document, idem, atMs };
}

/** An `idem` line: the remembered answer of an Idempotency-Key, as compaction wrote it. */
function decodeIdempotencyLine(fields: Record<string, unknown>, seq: number, options: DecodeOptions): IdempotencyRecord | string {
  const tag = typeof fields['idem'] === 'string' ? decodeIdemToken(fields['idem']) : undefined;
  if (tag === undefined) return 'an idem line has no valid "idem"';
  const atMs = timeMs(fields['at']);
  if (Number.isNaN(atMs)) return 'an idem line has no valid "at"';
  let answer: RememberedAnswer;
  if (fields['doc'] !== undefined) {
    const { coll: collection, id, doc } = fields;
    if (typeof collection !== 'string' || !COLLECTION_PATTERN.test(collection) || typeof id !== 'string' || !ID_PATTERN.test(id)) return 'an idem line has a "doc" without a valid "coll" and "id"';
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return 'an idem line has a "doc" that is no object';
    answer = { kind: 'document', collection, id, json: JSON.stringify(doc) };
  } else if (typeof fields['view'] === 'string') {
    const createdAt = fields['created_at'];
    if (typeof createdAt !== 'string' || Number.isNaN(timeMs(createdAt))) return 'an idem line has no valid "created_at"';
    answer = { kind: 'event', view: fields['view'], createdAt };
  } else {
    const eventId = fields['event'];
    if (typeof eventId !== 'string' || !EVENT_ID_PATTERN.test(eventId)) return 'an idem line has no "view", "doc" nor a valid "event"';
    const registration = registrationOf(fields['reg'], eventId, seq, false, options);
    if (typeof registration === 'string') return `an idem line ${registration}`;
    answer = { kind: 'registration', registration };
  }
  // Fields named one by one, as remember-answer.ts does: on Node 20 a spread plus new fields gives each entry a hidden class of its own.
  return { seq, op: 'idem', entry: { key: tag.key, keyId: tag.keyId, requestHash: tag.requestHash, atMs, seq, answer } };
}

const STATUSES: readonly RegistrationStatus[] = ['confirmed', 'waitlisted'];

function registrationOf(value: unknown, eventId: string, seq: number, withCheckIn: boolean, options: DecodeOptions): Registration | string {
  if (typeof value !== 'object' || value === null) return 'lacks "reg"';
  const fields = value as Record<string, unknown>;
  const { id, name, email, status, created_at: createdAt } = fields;
  const checkedInAt = withCheckIn ? fields['checked_in_at'] : null;
  // A reg line names the registration's own seq; a regstate line is written at it.
  const ownSeq = withCheckIn ? seq : fields['seq'];
  if (typeof ownSeq !== 'number' || !Number.isSafeInteger(ownSeq) || ownSeq < 1 || ownSeq > seq) return 'has no valid registration "seq"';
  if (typeof id !== 'string' || !REGISTRATION_ID_PATTERN.test(id)) return 'has no valid registration "id"';
  if (typeof name !== 'string' || typeof email !== 'string' || !email.includes('@')) return `has no valid "name" and "email" for ${id}`;
  const known = STATUSES.find((each) => each === status);
  if (known === undefined) return `has an unknown "status" for ${id}`;
  if (Number.isNaN(timeMs(createdAt))) return `has no valid "created_at" for ${id}`;
  if (checkedInAt !== null && Number.isNaN(timeMs(checkedInAt))) return `has no valid "checked_in_at" for ${id}`;
  return {
    id,
    eventId: options.intern === undefined ? eventId : options.intern(eventId),
    name,
    email,
    status: known,
    createdAt: createdAt as string,
    checkedInAt: checkedInAt as string | null,
    seq: ownSeq,
  };
}

/**
 * The compact form of a logged view, checking the fields the index and the role checks rely on; `hiddenAt` is the
 * put line's own (see StoredEvent.hiddenAt).
 */
export function storedFromView(json: string, createdAt: string, seq: number, modifiedMs: number, options: DecodeOptions, hiddenAt?: number): StoredEvent | string {
  let view: unknown;
  try {
    view = JSON.parse(json);
  } catch {
    return 'the "event" is not valid JSON';
  }
  // JSON.parse gives an unknown shape: every field used below is checked before use.
  const fields = view as Record<string, unknown> & { organizer?: { email?: unknown } | null };
  const id = fields['id'];
  if (typeof id !== 'string' || !EVENT_ID_PATTERN.test(id)) return 'the event has no valid "id"';
  const category = CATEGORIES.find((known) => known === fields['category']);
  if (category === undefined) return `event ${id} has an unknown "category"`;
  const startMs = timeMs(fields['start_time']);
  const endMs = timeMs(fields['end_time']);
  if (Number.isNaN(startMs) || Number.isNaN(endMs)) return `event ${id} has a malformed "start_time" or "end_time"`;
  if (typeof fields['capacity'] !== 'number' || typeof fields['registered_count'] !== 'number') return `event ${id} lacks "capacity" or "registered_count"`;
  const email = typeof fields.organizer === 'object' && fields.organizer !== null ? fields.organizer.email : undefined;
  if (typeof email !== 'string') return `event ${id} has no organizer e-mail`;
  const organizerEmail = email.toLowerCase();
  const seriesId = fields['series_id'];
  if (seriesId !== undefined && (typeof seriesId !== 'string' || !SERIES_ID_PATTERN.test(seriesId))) return `event ${id} has a malformed "series_id"`;
  // Views written before API.md §14 have no status: published.
  const status = fields['status'] === undefined ? undefined : EVENT_STATUSES.find((known) => known === fields['status']);
  if (fields['status'] !== undefined && status === undefined) return `event ${id} has an unknown "status"`;
  if (hiddenAt !== undefined && status !== 'draft' && status !== 'pending') return `event ${id} is ${status ?? 'published'}, yet its line says when it was hidden`;
  const shared = options.intern === undefined ? organizerEmail : options.intern(organizerEmail);
  return new ServedEvent(id, startMs, endMs, category satisfies Category, shared, createdAt, seq, modifiedMs, json, seriesId as string | undefined, status, hiddenAt);
}
