// Reads a line of events.jsonl back (see jsonl-record.ts for the kinds): the checksum first, then the common lines
// (put, del, reg) from their bytes, with no string made of what it need not keep; anything else, and any layout the
// byte path does not know, by JSON.parse in decode-parsed-line.ts. Every field is checked on either path.
import type { StoredEvent } from '../../events/event.js';
import { crc32, crc32Byte, crc32Hex } from '../../lib/crc32.js';
import { parseUtcTime, scanStoredView, scanViewLayout } from '../views/view-scan.js';
import type { PackedEvent, PackedEvents } from '../views/packed-events.js';
import { REGISTRATION_ID_PATTERN, type RegistrationStatus } from '../views/roster.js';
import type { IdempotencyTag } from '../views/idempotency-table.js';
import type { DecodeOptions, DeleteRecord, LogRecord, MetaRecord, PutRecord, RegisterRecord } from './jsonl-record.js';
import { decodeParsedLine, storedFromView } from './decode-parsed-line.js';
import { decodeIdemToken } from './idem-token.js';
import { EVENT_ID_PATTERN, ID_PATTERN } from './record-checks.js';

/** Bytes of `,"crc":"xxxxxxxx"}` at the end of every line. */
const CRC_SUFFIX_LENGTH = 18;

type OpDecoder = (buf: Buffer, pos: number, end: number, seq: number, options: DecodeOptions) => LogRecord | MetaRecord | string;

/** One decoder per `op`: each gets the bytes after `"op":"NAME"` up to where `,"crc"` starts. */
const OP_DECODERS: Record<string, OpDecoder> = {
  put: decodePut,
  del: decodeDelete,
  reg: decodeParsedLine,
  cancel: decodeParsedLine,
  checkin: decodeParsedLine,
  regstate: decodeParsedLine,
  mark: decodeParsedLine,
  idem: decodeParsedLine,
  doc: decodeParsedLine,
  docstate: decodeParsedLine,
  docdel: decodeParsedLine,
};

/**
 * Decodes the line held in `buf` from `start` to `end` (the newline excluded). Returns the record,
 * or a sentence saying why the line is damaged (bad checksum, bad structure, unknown kind).
 */
export function decodeRecord(buf: Buffer, start: number, end: number, options: DecodeOptions = {}): LogRecord | MetaRecord | string {
  const crcStart = checkedSeal(buf, start, end);
  if (typeof crcStart === 'string') return crcStart;
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
  if (decoder === decodeParsedLine) return decodeParsedLine(buf, start, crcStart, seq, options);
  return decoder(buf, pos + 1, crcStart, seq, options);
}

/** Where the checksum of line `buf[start, end)` begins (`,"crc":"…"}`, which covers the bytes before it and a `}`), or why it does not hold. */
export function checkedSeal(buf: Buffer, start: number, end: number): number | string {
  const crcStart = end - CRC_SUFFIX_LENGTH;
  if (crcStart <= start || !matches(buf, crcStart, CRC_OPEN) || buf[end - 2] !== QUOTE || buf[end - 1] !== CLOSE_BRACE) {
    return 'the line does not end with its checksum ,"crc":"…"}';
  }
  const written = parseHex(buf, crcStart + CRC_OPEN.length);
  if (written < 0) return 'the checksum is not 8 lowercase hex digits';
  const actual = crc32Byte(crc32(buf.subarray(start, crcStart)), CLOSE_BRACE);
  if (written !== actual) return `the checksum does not match (written ${crc32Hex(written)}, computed ${crc32Hex(actual)})`;
  return crcStart;
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
  // A draft or pending event that was public before says when it was hidden (API.md §14), just before its view.
  let hiddenAt: number | undefined;
  if (matches(buf, pos + 1, HIDDEN_OPEN, end)) {
    pos += 1 + HIDDEN_OPEN.length;
    const digitsStart = pos;
    hiddenAt = 0;
    while (pos < end && buf[pos]! >= 0x30 && buf[pos]! <= 0x39) hiddenAt = hiddenAt * 10 + (buf[pos++]! - 0x30);
    if (pos === digitsStart || pos - digitsStart > 15 || buf[digitsStart] === 0x30 || hiddenAt > seq) return 'a put line has a malformed "hidden"';
    if (!matches(buf, pos, BARE_EVENT_OPEN, end - 2)) return 'a put line lacks "event" after "hidden"';
    pos += BARE_EVENT_OPEN.length;
  } else {
    const eventOpen = promoted === undefined ? EVENT_OPEN : LIST_EVENT_OPEN;
    if (!matches(buf, pos, eventOpen, end - 2)) return 'a put line lacks "event" after "created_at"';
    pos += eventOpen.length;
  }
  if (buf[pos] !== OPEN_BRACE || buf[end - 1] !== CLOSE_BRACE) return 'the "event" is not a JSON object';
  // A hidden event's view ends in its status, a layout the packed columns never take.
  const packed = options.pack === undefined || hiddenAt !== undefined ? undefined : packView(buf, pos, end, createdMs, seq, modifiedMs, options.pack);
  if (packed !== undefined) return putRecord(seq, packed, promoted, idem);
  // toString copies the bytes into a new flat string: nothing keeps the read buffer alive.
  const json = buf.toString('utf8', pos, end);
  const stored = (hiddenAt === undefined ? scanStoredView(buf, pos, end, json, createdAt, seq, modifiedMs, options.intern) : undefined) ?? storedFromView(json, createdAt, seq, modifiedMs, options, hiddenAt);
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
 * a string, an idempotency tag) so JSON.parse reads it; the same checks as registrationOf (decode-parsed-line.ts) either way.
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
  // Since 2026-11-30 the deletion's time follows the id: `"id":"evt_…","at":"2026-11-30T10:00:00.000Z"`.
  const timed = end - 1 - 24 - AT_OPEN.length > pos + ID_OPEN.length && matches(buf, end - 1 - 24 - AT_OPEN.length, AT_OPEN, end);
  const idEnd = timed ? end - 1 - 24 - AT_OPEN.length : end - 1;
  const id = buf.toString('latin1', pos + ID_OPEN.length, idEnd);
  if (!ID_PATTERN.test(id)) return `the id of a del line is malformed: ${JSON.stringify(id)}`;
  if (!timed) return { seq, op: 'del', id };
  const atMs = parseUtcTime(buf, end - 1 - 24, end);
  if (Number.isNaN(atMs)) return `"at" is not a UTC time: ${JSON.stringify(buf.toString('utf8', end - 1 - 24, end - 1))}`;
  return { seq, op: 'del', id, atMs };
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
const HIDDEN_OPEN = Buffer.from(',"hidden":');
const BARE_EVENT_OPEN = Buffer.from(',"event":');
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
