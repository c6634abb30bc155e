// The line format of events.jsonl: one JSON object per change, with its sequence number and a CRC-32.
import { CATEGORIES, viewJson } from '../../events/event.js';
import type { Category, EventRecord, StoredEvent } from '../../events/event.js';
import { crc32, crc32Byte, crc32Hex } from '../../lib/crc32.js';
import { parseUtcTime, scanStoredView, scanViewLayout } from '../views/view-scan.js';
import type { PackedEvent, PackedEvents } from '../views/packed-events.js';
import { ServedEvent } from '../views/served-event.js';
import { REGISTRATION_ID_PATTERN, type Registration, type RegistrationStatus } from '../views/roster.js';
import type { IdempotencyEntry, IdempotencyTag, RememberedAnswer } from '../views/idempotency-table.js';

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
 * whole and knows nothing of its meaning. `docstate` is compaction's copy, written ahead of the rest at the
 * seq of the document's last write, so (like an idem line) its seq need not grow.
 */
export interface DocumentRecord {
  seq: number;
  op: 'doc' | 'docstate';
  document: StoredDocument;
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

const TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ID_PATTERN = /^[A-Za-z0-9_]{1,64}$/;
const EVENT_ID_PATTERN = /^evt_[0-9A-Za-z]{16,}$/;
/** Bytes of `,"crc":"xxxxxxxx"}` at the end of every line. */
const CRC_SUFFIX_LENGTH = 18;

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

/** A put line for `record` written at `seq`; `view` is its `viewJson`, passed when the caller already has it. */
export function encodePut(seq: number, record: EventRecord, view: string = viewJson(record)): string {
  return encodeView(seq, record.created_at, record.created_at, [], view);
}

/** The put line of a stored event, at the sequence number it was written with (compaction keeps them), with the registrations it confirmed. */
export function encodeStored(stored: StoredEvent, promoted: readonly string[] = [], idem?: IdempotencyTag): string {
  return encodeView(stored.seq, stored.createdAt, isoTime(stored.modifiedMs, 'the time of a change'), promoted, stored.json, idem);
}

/** The line of a new registration at `lineSeq`: its own seq, or the next one when it confirms (the event's); `idem` when sent with an Idempotency-Key. */
export function encodeRegister(registration: Registration, lineSeq: number = registration.seq, idem?: IdempotencyTag): string {
  if (lineSeq < registration.seq) throw new TypeError(`a registration line at seq ${lineSeq} cannot hold a registration of seq ${registration.seq}`);
  return encodeRegistration('reg', registration, lineSeq, idem);
}

/** The line of a document written at `seq` (`doc`), or compaction's copy of it at its own seq (`docstate`). */
export function encodeDocument(document: StoredDocument, op: 'doc' | 'docstate' = 'doc'): string {
  checkDocumentKey(document.collection, document.id);
  if (!document.json.startsWith('{') || !document.json.endsWith('}')) throw new TypeError(`document ${document.id} must be a JSON object`);
  return seal(`{"seq":${checkSeq(document.seq)},"op":"${op}","coll":"${document.collection}","id":"${document.id}","doc":${document.json}`);
}

/** The line that deletes document `id` of `collection`. */
export function encodeDocumentDelete(seq: number, collection: string, id: string): string {
  checkDocumentKey(collection, id);
  return seal(`{"seq":${checkSeq(seq)},"op":"docdel","coll":"${collection}","id":"${id}"`);
}

/**
 * One atomic group of lines, written as one physical line: each member line (sealed, with its own seq and checksum)
 * after a tab. A tab never occurs unescaped in JSON, and a line is whole or torn, so replay applies all or none.
 */
export function encodeGroup(lines: readonly string[]): string {
  let text = '';
  for (const line of lines) text += `\t${line.slice(0, -1)}`;
  return `${text}\n`;
}

function checkDocumentKey(collection: string, id: string): void {
  if (!COLLECTION_PATTERN.test(collection) || !ID_PATTERN.test(id)) throw new TypeError(`cannot log document ${JSON.stringify(id)} of collection ${JSON.stringify(collection)}`);
}

const COLLECTION_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

/** The line compaction writes at the newest seq it dropped (see MarkRecord). */
export function encodeMark(seq: number, gone: number): string {
  if (!Number.isSafeInteger(gone) || gone < 0 || gone > seq) throw new TypeError(`a mark line's "gone" is a seq at most its own, got ${gone}`);
  return seal(`{"seq":${checkSeq(seq)},"op":"mark","gone":${gone}`);
}

/** The line compaction writes for an answer still remembered (see IdempotencyRecord). */
export function encodeIdempotency(entry: IdempotencyEntry): string {
  const answer = entry.answer;
  let payload: string;
  if (answer.kind === 'event') {
    if (Number.isNaN(timeMs(answer.createdAt))) throw new TypeError(`created_at must be YYYY-MM-DDTHH:MM:SS.sssZ, got ${JSON.stringify(answer.createdAt)}`);
    payload = `"created_at":"${answer.createdAt}","view":${JSON.stringify(answer.view)}`;
  } else {
    const r = answer.registration;
    checkIds(r.eventId, r.id, []);
    payload = `"event":"${r.eventId}","reg":${JSON.stringify({ id: r.id, name: r.name, email: r.email, status: r.status, created_at: r.createdAt, seq: r.seq })}`;
  }
  return seal(`{"seq":${checkSeq(entry.seq)},"op":"idem","idem":"${encodeIdemToken(entry)}","at":"${isoTime(entry.atMs, 'the time of an answer')}",${payload}`);
}

/** The `idem` field of a line: request hash, API key id and the base64url Idempotency-Key, dot-separated, so it needs no escaping. */
export function encodeIdemToken(tag: IdempotencyTag): string {
  if (!TOKEN_PART.test(tag.requestHash) || !ID_PATTERN.test(tag.keyId) || !LOGGABLE_KEY.test(tag.key)) throw new TypeError(`cannot log the idempotency tag of key ${JSON.stringify(tag.keyId)}`);
  return `${tag.requestHash}.${tag.keyId}.${Buffer.from(tag.key, 'latin1').toString('base64url')}`;
}

function decodeIdemToken(token: string): IdempotencyTag | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !TOKEN_PART.test(parts[0]!) || !ID_PATTERN.test(parts[1]!) || !TOKEN_PART.test(parts[2]!)) return undefined;
  const key = Buffer.from(parts[2]!, 'base64url').toString('latin1');
  if (key.length < 1 || key.length > 255) return undefined;
  return { requestHash: parts[0]!, keyId: parts[1]!, key };
}

const TOKEN_PART = /^[A-Za-z0-9_-]{1,400}$/;
/** The keys replay reads back: 1 to 255 characters, each one byte in latin1 (HTTP allows only printable ASCII). */
const LOGGABLE_KEY = /^[\u0000-\u00ff]{1,255}$/;

/** The line compaction writes for a live registration: its state now, at the seq that created it. */
export function encodeRegistrationState(registration: Registration): string {
  return encodeRegistration('regstate', registration, registration.seq);
}

/** The line of a cancelled registration and the waitlisted ones confirmed in its place. */
export function encodeCancel(record: Omit<CancelRecord, 'op'>): string {
  checkIds(record.eventId, record.id, record.promoted);
  const at = isoTime(record.atMs, 'the time of a cancellation');
  return seal(`{"seq":${checkSeq(record.seq)},"op":"cancel","event":"${record.eventId}","at":"${at}","id":"${record.id}","promoted":${JSON.stringify(record.promoted)}`);
}

/** The line of a check-in. */
export function encodeCheckIn(record: Omit<CheckInRecord, 'op'>): string {
  checkIds(record.eventId, record.id, []);
  if (Number.isNaN(timeMs(record.at))) throw new TypeError(`a check-in time must be YYYY-MM-DDTHH:MM:SS.sssZ, got ${JSON.stringify(record.at)}`);
  return seal(`{"seq":${checkSeq(record.seq)},"op":"checkin","event":"${record.eventId}","at":"${record.at}","id":"${record.id}"`);
}

function encodeRegistration(op: 'reg' | 'regstate', registration: Registration, lineSeq: number, idem?: IdempotencyTag): string {
  checkIds(registration.eventId, registration.id, []);
  if (Number.isNaN(timeMs(registration.createdAt))) throw new TypeError(`created_at must be YYYY-MM-DDTHH:MM:SS.sssZ, got ${JSON.stringify(registration.createdAt)}`);
  const fields = {
    id: registration.id,
    name: registration.name,
    email: registration.email,
    status: registration.status,
    created_at: registration.createdAt,
    ...(op === 'regstate' ? { checked_in_at: registration.checkedInAt } : { seq: registration.seq }),
  };
  const idemField = idem === undefined ? '' : `,"idem":"${encodeIdemToken(idem)}"`;
  return seal(`{"seq":${checkSeq(lineSeq)},"op":"${op}","event":"${registration.eventId}","reg":${JSON.stringify(fields)}${idemField}`);
}

function checkIds(eventId: string, registrationId: string, promoted: readonly string[]): void {
  if (!EVENT_ID_PATTERN.test(eventId)) throw new TypeError(`cannot log a registration of event id ${JSON.stringify(eventId)}`);
  for (const id of [registrationId, ...promoted]) {
    if (!REGISTRATION_ID_PATTERN.test(id)) throw new TypeError(`cannot log registration id ${JSON.stringify(id)}: it is reg_ + letters and digits`);
  }
}

/** A delete line for event `id` at `seq`. */
export function encodeDelete(seq: number, id: string): string {
  if (!ID_PATTERN.test(id)) throw new TypeError(`cannot log a delete of id ${JSON.stringify(id)}: ids are letters, digits and _`);
  return seal(`{"seq":${checkSeq(seq)},"op":"del","id":"${id}"`);
}

/** A put line; `at` (the time of the change) and `promoted` are left out when they add nothing, as lines before them had neither. */
function encodeView(seq: number, createdAt: string, at: string, promoted: readonly string[], view: string, idem?: IdempotencyTag): string {
  if (Number.isNaN(timeMs(createdAt))) throw new TypeError(`created_at must be YYYY-MM-DDTHH:MM:SS.sssZ, got ${JSON.stringify(createdAt)}`);
  for (const id of promoted) if (!REGISTRATION_ID_PATTERN.test(id)) throw new TypeError(`cannot log registration id ${JSON.stringify(id)}`);
  const atField = at === createdAt ? '' : `,"at":"${at}"`;
  const idemField = idem === undefined ? '' : `,"idem":"${encodeIdemToken(idem)}"`;
  const promotedField = promoted.length === 0 ? '' : `,"promoted":${JSON.stringify(promoted)}`;
  return seal(`{"seq":${checkSeq(seq)},"op":"put","created_at":"${createdAt}"${atField}${idemField}${promotedField},"event":${view}`);
}

/** The largest seq a line holds: the decoder reads at most 15 digits. */
const MAX_SEQ = 999_999_999_999_999;

function checkSeq(seq: number): number {
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > MAX_SEQ) throw new TypeError(`a sequence number is an integer from 1 to ${MAX_SEQ}, got ${seq}`);
  return seq;
}

/** Closes the object `head` opened: its CRC covers `head + "}"`, then `,"crc":"…"}` and the newline follow. */
function seal(head: string): string {
  return `${head},"crc":"${crc32Hex(crc32Byte(crc32(head), CLOSE_BRACE))}"}\n`;
}

type OpDecoder = (buf: Buffer, pos: number, end: number, seq: number, options: DecodeOptions) => LogRecord | MetaRecord | string;

/** One decoder per `op`: each gets the bytes after `"op":"NAME"` up to where `,"crc"` starts. */
const OP_DECODERS: Record<string, OpDecoder> = {
  put: decodePut,
  del: decodeDelete,
  reg: decodeRosterLine,
  cancel: decodeRosterLine,
  checkin: decodeRosterLine,
  regstate: decodeRosterLine,
  mark: decodeRosterLine,
  idem: decodeRosterLine,
  doc: decodeRosterLine,
  docstate: decodeRosterLine,
  docdel: decodeRosterLine,
};

/**
 * Decodes the line held in `buf` from `start` to `end` (the newline excluded). Returns the record,
 * or a sentence saying why the line is damaged (bad checksum, bad structure, unknown kind).
 */
export function decodeRecord(buf: Buffer, start: number, end: number, options: DecodeOptions = {}): LogRecord | MetaRecord | string {
  const crcStart = end - CRC_SUFFIX_LENGTH;
  if (crcStart <= start || !matches(buf, crcStart, CRC_OPEN) || buf[end - 2] !== QUOTE || buf[end - 1] !== CLOSE_BRACE) {
    return 'the line does not end with its checksum ,"crc":"…"}';
  }
  const written = parseHex(buf, crcStart + CRC_OPEN.length);
  if (written < 0) return 'the checksum is not 8 lowercase hex digits';
  const actual = crc32Byte(crc32(buf.subarray(start, crcStart)), CLOSE_BRACE);
  if (written !== actual) return `the checksum does not match (written ${crc32Hex(written)}, computed ${crc32Hex(actual)})`;
  if (!matches(buf, start, SEQ_OPEN, crcStart)) return 'the line does not start with {"seq":';
  let pos = start + SEQ_OPEN.length;
  let seq = 0;
  const digitsStart = pos;
  while (pos < crcStart && buf[pos]! >= 0x30 && buf[pos]! <= 0x39) seq = seq * 10 + (buf[pos++]! - 0x30);
  // A leading zero is not JSON: the line was not written by encode*.
  if (pos === digitsStart || pos - digitsStart > 15 || seq < 1 || buf[digitsStart] === 0x30) return 'the sequence number is not a positive integer';
  if (!matches(buf, pos, OP_OPEN, crcStart)) return 'the "op" field does not follow "seq"';
  pos += OP_OPEN.length;
  // The common kinds are matched on their bytes, sparing a string per line.
  if (matches(buf, pos, PUT_OP, crcStart)) return decodePut(buf, pos + PUT_OP.length, crcStart, seq, options);
  if (matches(buf, pos, DEL_OP, crcStart)) return decodeDelete(buf, pos + DEL_OP.length, crcStart, seq);
  // Registrations outnumber events: their usual layout is read from the bytes too, anything else by JSON.parse.
  if (matches(buf, pos, REG_OP, crcStart)) {
    const scanned = scanRegisterLine(buf, pos + REG_OP.length, crcStart, seq, options);
    if (scanned !== undefined) return scanned;
  }
  const nameStart = pos;
  while (pos < crcStart && pos - nameStart <= 16 && buf[pos] !== QUOTE) pos++;
  const op = buf.toString('latin1', nameStart, pos);
  const decoder = Object.hasOwn(OP_DECODERS, op) ? OP_DECODERS[op] : undefined;
  if (decoder === undefined || buf[pos] !== QUOTE) return `unknown record kind "op":${JSON.stringify(op)}`;
  if (decoder === decodeRosterLine) return decodeRosterLine(buf, start, crcStart, seq, options);
  return decoder(buf, pos + 1, crcStart, seq, options);
}

function decodePut(buf: Buffer, pos: number, end: number, seq: number, options: DecodeOptions): PutRecord | string {
  if (!matches(buf, pos, CREATED_OPEN, end - 24)) return 'a put line lacks "created_at"';
  pos += CREATED_OPEN.length;
  // A real time from 1970 on, as timeMs reads one (replay's byte parser): NaN for anything else.
  const createdMs = parseUtcTime(buf, pos, end);
  if (Number.isNaN(createdMs)) return `created_at is not a UTC time: ${JSON.stringify(buf.toString('utf8', pos, pos + 24))}`;
  const createdAt = buf.toString('latin1', pos, pos + 24);
  let modifiedMs = createdMs;
  pos += 24;
  if (matches(buf, pos, AT_OPEN, end - 24)) {
    pos += AT_OPEN.length;
    modifiedMs = parseUtcTime(buf, pos, end);
    if (Number.isNaN(modifiedMs)) return `"at" is not a UTC time: ${JSON.stringify(buf.toString('utf8', pos, pos + 24))}`;
    pos += 24;
  }
  let idem: IdempotencyTag | undefined;
  if (matches(buf, pos, IDEM_OPEN, end)) {
    const close = buf.indexOf(QUOTE, pos + IDEM_OPEN.length);
    if (close < 0 || close >= end) return 'a put line has an unclosed "idem"';
    idem = decodeIdemToken(buf.toString('latin1', pos + IDEM_OPEN.length, close));
    if (idem === undefined) return 'a put line has a malformed "idem"';
    pos = close;
  }
  let promoted: string[] | undefined;
  if (matches(buf, pos, PROMOTED_OPEN, end)) {
    const close = buf.indexOf(CLOSE_BRACKET, pos + PROMOTED_OPEN.length);
    if (close < 0 || close >= end) return 'a put line has an unclosed "promoted" list';
    promoted = parseIdList(buf.toString('latin1', pos + PROMOTED_OPEN.length - 1, close + 1));
    if (promoted === undefined) return 'a put line has a malformed "promoted" list';
    pos = close;
  }
  const eventOpen = promoted === undefined ? EVENT_OPEN : LIST_EVENT_OPEN;
  if (!matches(buf, pos, eventOpen, end - 2)) return 'a put line lacks "event" after "created_at"';
  pos += eventOpen.length;
  if (buf[pos] !== OPEN_BRACE || buf[end - 1] !== CLOSE_BRACE) return 'the "event" is not a JSON object';
  const packed = options.pack === undefined ? undefined : packView(buf, pos, end, createdMs, seq, modifiedMs, options.pack);
  if (packed !== undefined) return putRecord(seq, packed, promoted, idem);
  // toString copies the bytes into a new flat string: nothing keeps the read buffer alive.
  const json = buf.toString('utf8', pos, end);
  const stored = scanStoredView(buf, pos, end, json, createdAt, seq, modifiedMs, options.intern) ?? storedFromView(json, createdAt, seq, modifiedMs, options);
  if (typeof stored === 'string') return stored;
  return putRecord(seq, stored, promoted, idem);
}

function putRecord(seq: number, stored: StoredEvent, promoted: string[] | undefined, idem: IdempotencyTag | undefined): PutRecord {
  const record: PutRecord = promoted === undefined ? { seq, op: 'put', stored } : { seq, op: 'put', stored, promoted };
  if (idem !== undefined) record.idem = idem;
  return record;
}

/** The view in `buf[start, end)` packed into `pack`, when it has the usual layout and packs exactly; else undefined. */
function packView(buf: Buffer, start: number, end: number, createdMs: number, seq: number, modifiedMs: number, pack: PackedEvents): PackedEvent | undefined {
  const layout = scanViewLayout(buf, start, end);
  if (layout === undefined) return undefined;
  return pack.pack(buf, layout, buf.toString('latin1', layout.idStart, layout.idEnd), createdMs, seq, modifiedMs);
}

/**
 * A `reg` line as encodeRegister writes it, read from its bytes: `,"event":"evt_…","reg":{"id":…,"name":…,
 * "email":…,"status":…,"created_at":…,"seq":N}` and nothing after. Undefined for any other layout (an escape in
 * a string, an idempotency tag) so JSON.parse reads it; the same checks as registrationOf either way.
 */
function scanRegisterLine(buf: Buffer, pos: number, end: number, seq: number, options: DecodeOptions): RegisterRecord | string | undefined {
  if (!matches(buf, pos, REG_EVENT_OPEN, end)) return undefined;
  const eventStart = pos + REG_EVENT_OPEN.length;
  const eventEnd = buf.indexOf(QUOTE, eventStart);
  if (eventEnd < 0 || eventEnd >= end || !matches(buf, eventEnd, REG_ID_OPEN, end)) return undefined;
  const idStart = eventEnd + REG_ID_OPEN.length;
  const idEnd = buf.indexOf(QUOTE, idStart);
  if (idEnd < 0 || !matches(buf, idEnd, NAME_OPEN, end)) return undefined;
  const nameStart = idEnd + NAME_OPEN.length;
  const nameEnd = plainStringEnd(buf, nameStart, end);
  if (nameEnd < 0 || !matches(buf, nameEnd, EMAIL_OPEN, end)) return undefined;
  const emailStart = nameEnd + EMAIL_OPEN.length;
  const emailEnd = plainStringEnd(buf, emailStart, end);
  if (emailEnd < 0 || !matches(buf, emailEnd, STATUS_OPEN, end)) return undefined;
  let statusEnd = emailEnd + STATUS_OPEN.length;
  let status: RegistrationStatus;
  if (matches(buf, statusEnd, CONFIRMED, end)) status = 'confirmed';
  else if (matches(buf, statusEnd, WAITLISTED, end)) status = 'waitlisted';
  else return undefined;
  statusEnd += status.length;
  if (!matches(buf, statusEnd, CREATED_AT_OPEN, end)) return undefined;
  const createdStart = statusEnd + CREATED_AT_OPEN.length;
  if (!matches(buf, createdStart + 24, OWN_SEQ_OPEN, end)) return undefined;
  let digits = createdStart + 24 + OWN_SEQ_OPEN.length;
  const digitsStart = digits;
  let ownSeq = 0;
  while (digits < end && buf[digits]! >= 0x30 && buf[digits]! <= 0x39) ownSeq = ownSeq * 10 + (buf[digits++]! - 0x30);
  if (digits !== end - 1 || buf[digits] !== CLOSE_BRACE || digits === digitsStart || digits - digitsStart > 15 || buf[digitsStart] === 0x30) return undefined;
  const eventId = buf.toString('latin1', eventStart, eventEnd);
  const id = buf.toString('latin1', idStart, idEnd);
  const email = buf.toString('utf8', emailStart, emailEnd);
  if (!EVENT_ID_PATTERN.test(eventId)) return 'a reg line has no valid "event"';
  if (!REGISTRATION_ID_PATTERN.test(id)) return 'a reg line has no valid registration "id"';
  if (!email.includes('@')) return `a reg line has no valid "name" and "email" for ${id}`;
  if (Number.isNaN(parseUtcTime(buf, createdStart, end))) return `a reg line has no valid "created_at" for ${id}`;
  if (ownSeq < 1 || ownSeq > seq) return 'a reg line has no valid registration "seq"';
  return {
    seq,
    op: 'reg',
    registration: {
      id,
      eventId: options.intern === undefined ? eventId : options.intern(eventId),
      name: buf.toString('utf8', nameStart, nameEnd),
      email,
      status,
      createdAt: buf.toString('latin1', createdStart, createdStart + 24),
      checkedInAt: null,
      seq: ownSeq,
    },
  };
}

/** Where a JSON string starting at `pos` ends (its closing quote), or -1 when it holds an escape or a control character. */
function plainStringEnd(buf: Buffer, pos: number, end: number): number {
  for (let i = pos; i < end; i++) {
    const byte = buf[i]!;
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH || byte < 0x20) return -1;
  }
  return -1;
}

/** The registration lines are rare next to reads and small: JSON.parse reads them, and every field is checked. */
function decodeRosterLine(buf: Buffer, start: number, end: number, seq: number, options: DecodeOptions): RosterRecord | MetaRecord | string {
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
  return { seq, op: op === 'doc' ? 'doc' : 'docstate', document: { collection, id, json: JSON.stringify(doc), seq } };
}

/** An `idem` line: the remembered answer of an Idempotency-Key, as compaction wrote it. */
function decodeIdempotencyLine(fields: Record<string, unknown>, seq: number, options: DecodeOptions): IdempotencyRecord | string {
  const tag = typeof fields['idem'] === 'string' ? decodeIdemToken(fields['idem']) : undefined;
  if (tag === undefined) return 'an idem line has no valid "idem"';
  const atMs = timeMs(fields['at']);
  if (Number.isNaN(atMs)) return 'an idem line has no valid "at"';
  let answer: RememberedAnswer;
  if (typeof fields['view'] === 'string') {
    const createdAt = fields['created_at'];
    if (typeof createdAt !== 'string' || Number.isNaN(timeMs(createdAt))) return 'an idem line has no valid "created_at"';
    answer = { kind: 'event', view: fields['view'], createdAt };
  } else {
    const eventId = fields['event'];
    if (typeof eventId !== 'string' || !EVENT_ID_PATTERN.test(eventId)) return 'an idem line has neither a "view" nor a valid "event"';
    const registration = registrationOf(fields['reg'], eventId, seq, false, options);
    if (typeof registration === 'string') return `an idem line ${registration}`;
    answer = { kind: 'registration', registration };
  }
  return { seq, op: 'idem', entry: { ...tag, atMs, seq, answer } };
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

/** A JSON list of registration ids, or undefined. */
function parseIdList(text: string): string[] | undefined {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(list) || !list.every((each) => typeof each === 'string' && REGISTRATION_ID_PATTERN.test(each))) return undefined;
  return list as string[];
}

function decodeDelete(buf: Buffer, pos: number, end: number, seq: number): DeleteRecord | string {
  if (!matches(buf, pos, ID_OPEN, end - 1) || buf[end - 1] !== QUOTE) return 'a del line lacks "id"';
  const id = buf.toString('latin1', pos + ID_OPEN.length, end - 1);
  if (!ID_PATTERN.test(id)) return `the id of a del line is malformed: ${JSON.stringify(id)}`;
  return { seq, op: 'del', id };
}

/** The compact form of a logged view, checking the fields the index and the role checks rely on. */
function storedFromView(json: string, createdAt: string, seq: number, modifiedMs: number, options: DecodeOptions): StoredEvent | string {
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
  const shared = options.intern === undefined ? organizerEmail : options.intern(organizerEmail);
  return new ServedEvent(id, startMs, endMs, category satisfies Category, shared, createdAt, seq, modifiedMs, json, seriesId as string | undefined);
}

const SERIES_ID_PATTERN = /^ser_[0-9A-Za-z]{16,}$/;

/** Milliseconds of a `YYYY-MM-DDTHH:MM:SS.sssZ` string, by the same rules as replay's byte parser; NaN otherwise. */
function timeMs(value: unknown): number {
  if (typeof value !== 'string' || !TIME_PATTERN.test(value)) return NaN;
  // The pattern allows only ASCII, so the latin1 bytes are exact; a scratch buffer spares an allocation per write.
  TIME_SCRATCH.write(value, 0, 'latin1');
  return parseUtcTime(TIME_SCRATCH, 0);
}

const TIME_SCRATCH = Buffer.alloc(24);

/** 10000-01-01T00:00:00.000Z: the first time whose ISO string has more than 4 digits of year. */
const TIME_LIMIT_MS = Date.UTC(10000, 0, 1);

/** The log's form of a time given in ms since the epoch; throws for one replay could not read back (before 1970, from 10000 on, not a whole number). */
function isoTime(ms: number, what: string): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= TIME_LIMIT_MS) throw new TypeError(`${what} must be a whole number of ms from 1970 to 9999, got ${ms}`);
  return new Date(ms).toISOString();
}

function parseHex(buf: Buffer, pos: number): number {
  let value = 0;
  for (let i = pos; i < pos + 8; i++) {
    const byte = buf[i]!;
    const digit = byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : byte >= 0x61 && byte <= 0x66 ? byte - 0x57 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** True when `literal` is at `pos`, wholly before `limit`. */
function matches(buf: Buffer, pos: number, literal: Buffer, limit: number = buf.length): boolean {
  if (pos + literal.length > limit) return false;
  for (let i = 0; i < literal.length; i++) if (buf[pos + i] !== literal[i]) return false;
  return true;
}

const SEQ_OPEN = Buffer.from('{"seq":');
const OP_OPEN = Buffer.from(',"op":"');
const CREATED_OPEN = Buffer.from(',"created_at":"');
const EVENT_OPEN = Buffer.from('","event":');
const LIST_EVENT_OPEN = Buffer.from('],"event":');
const AT_OPEN = Buffer.from('","at":"');
const PROMOTED_OPEN = Buffer.from('","promoted":[');
const IDEM_OPEN = Buffer.from('","idem":"');
const ID_OPEN = Buffer.from(',"id":"');
const CRC_OPEN = Buffer.from(',"crc":"');
const PUT_OP = Buffer.from('put"');
const DEL_OP = Buffer.from('del"');
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const BACKSLASH = 0x5c;
const REG_OP = Buffer.from('reg"');
const REG_EVENT_OPEN = Buffer.from(',"event":"');
const REG_ID_OPEN = Buffer.from('","reg":{"id":"');
const NAME_OPEN = Buffer.from('","name":"');
const EMAIL_OPEN = Buffer.from('","email":"');
const STATUS_OPEN = Buffer.from('","status":"');
const CONFIRMED = Buffer.from('confirmed');
const WAITLISTED = Buffer.from('waitlisted');
const CREATED_AT_OPEN = Buffer.from('","created_at":"');
const OWN_SEQ_OPEN = Buffer.from('","seq":');
