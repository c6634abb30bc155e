// The line format of events.jsonl: one JSON object per change, with its sequence number and a CRC-32.
import { CATEGORIES, viewJson } from '../events/event.js';
import type { Category, EventRecord, StoredEvent } from '../events/event.js';
import { crc32, crc32Byte, crc32Hex } from '../lib/crc32.js';
import { looksLikeUtcTime, parseUtcTime, scanStoredView } from './view-scan.js';

/** A line that puts (creates or replaces) an event. */
export interface PutRecord {
  seq: number;
  op: 'put';
  stored: StoredEvent;
}

/** A line that deletes an event. */
export interface DeleteRecord {
  seq: number;
  op: 'del';
  id: string;
}

/** Every kind of line the log holds today; registrations (API.md §8) will add `reg` kinds here and in OP_DECODERS. */
export type LogRecord = PutRecord | DeleteRecord;

/** Options of `decodeRecord`. */
export interface DecodeOptions {
  /**
   * Returns one shared copy of equal strings (organizer e-mails repeat across events), to keep replay
   * memory small. It gets a string that may point into the event's view: it must keep a copy.
   */
  intern?: (value: string) => string;
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
  if (typeof record.created_at !== 'string' || !TIME_PATTERN.test(record.created_at)) return 'its created_at must be YYYY-MM-DDTHH:MM:SS.sssZ';
  if (!Number.isFinite(record.capacity) || !Number.isFinite(record.registered_count)) return 'its capacity and registered_count must be numbers';
  if (typeof record.organizer?.email !== 'string') return 'it has no organizer e-mail';
  return undefined;
}

/** A put line for `record` written at `seq`; `view` is its `viewJson`, passed when the caller already has it. */
export function encodePut(seq: number, record: EventRecord, view: string = viewJson(record)): string {
  return encodeView(seq, record.created_at, view);
}

/** The put line of a stored event, at the sequence number it was written with (compaction keeps them). */
export function encodeStored(stored: StoredEvent): string {
  return encodeView(stored.seq, stored.createdAt, stored.json);
}

/** A delete line for event `id` at `seq`. */
export function encodeDelete(seq: number, id: string): string {
  if (!ID_PATTERN.test(id)) throw new TypeError(`cannot log a delete of id ${JSON.stringify(id)}: ids are letters, digits and _`);
  return seal(`{"seq":${checkSeq(seq)},"op":"del","id":"${id}"`);
}

function encodeView(seq: number, createdAt: string, view: string): string {
  if (!TIME_PATTERN.test(createdAt)) throw new TypeError(`created_at must be YYYY-MM-DDTHH:MM:SS.sssZ, got ${JSON.stringify(createdAt)}`);
  return seal(`{"seq":${checkSeq(seq)},"op":"put","created_at":"${createdAt}","event":${view}`);
}

function checkSeq(seq: number): number {
  if (!Number.isSafeInteger(seq) || seq < 1) throw new TypeError(`a sequence number is a positive integer, got ${seq}`);
  return seq;
}

/** Closes the object `head` opened: its CRC covers `head + "}"`, then `,"crc":"…"}` and the newline follow. */
function seal(head: string): string {
  return `${head},"crc":"${crc32Hex(crc32Byte(crc32(head), CLOSE_BRACE))}"}\n`;
}

type OpDecoder = (buf: Buffer, pos: number, end: number, seq: number, options: DecodeOptions) => LogRecord | string;

/** One decoder per `op`: each gets the bytes after `"op":"NAME"` up to where `,"crc"` starts. */
const OP_DECODERS: Record<string, OpDecoder> = { put: decodePut, del: decodeDelete };

/**
 * Decodes the line held in `buf` from `start` to `end` (the newline excluded). Returns the record,
 * or a sentence saying why the line is damaged (bad checksum, bad structure, unknown kind).
 */
export function decodeRecord(buf: Buffer, start: number, end: number, options: DecodeOptions = {}): LogRecord | string {
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
  if (pos === digitsStart || pos - digitsStart > 15 || seq < 1) return 'the sequence number is not a positive integer';
  if (!matches(buf, pos, OP_OPEN, crcStart)) return 'the "op" field does not follow "seq"';
  pos += OP_OPEN.length;
  // The common kinds are matched on their bytes, sparing a string per line.
  if (matches(buf, pos, PUT_OP, crcStart)) return decodePut(buf, pos + PUT_OP.length, crcStart, seq, options);
  if (matches(buf, pos, DEL_OP, crcStart)) return decodeDelete(buf, pos + DEL_OP.length, crcStart, seq);
  const nameStart = pos;
  while (pos < crcStart && pos - nameStart <= 16 && buf[pos] !== QUOTE) pos++;
  const op = buf.toString('latin1', nameStart, pos);
  const decoder = Object.hasOwn(OP_DECODERS, op) ? OP_DECODERS[op] : undefined;
  if (decoder === undefined || buf[pos] !== QUOTE) return `unknown record kind "op":${JSON.stringify(op)}`;
  return decoder(buf, pos + 1, crcStart, seq, options);
}

function decodePut(buf: Buffer, pos: number, end: number, seq: number, options: DecodeOptions): PutRecord | string {
  if (!matches(buf, pos, CREATED_OPEN, end - 24)) return 'a put line lacks "created_at"';
  pos += CREATED_OPEN.length;
  if (!looksLikeUtcTime(buf, pos, end)) return `created_at is not a UTC time: ${JSON.stringify(buf.toString('utf8', pos, pos + 24))}`;
  const createdAt = buf.toString('latin1', pos, pos + 24);
  pos += 24;
  if (!matches(buf, pos, EVENT_OPEN, end - 2)) return 'a put line lacks "event" after "created_at"';
  pos += EVENT_OPEN.length;
  if (buf[pos] !== OPEN_BRACE || buf[end - 1] !== CLOSE_BRACE) return 'the "event" is not a JSON object';
  // toString copies the bytes into a new flat string: nothing keeps the read buffer alive.
  const json = buf.toString('utf8', pos, end);
  const stored = scanStoredView(buf, pos, end, json, createdAt, seq, options.intern) ?? storedFromView(json, createdAt, seq, options);
  return typeof stored === 'string' ? stored : { seq, op: 'put', stored };
}

function decodeDelete(buf: Buffer, pos: number, end: number, seq: number): DeleteRecord | string {
  if (!matches(buf, pos, ID_OPEN, end - 1) || buf[end - 1] !== QUOTE) return 'a del line lacks "id"';
  const id = buf.toString('latin1', pos + ID_OPEN.length, end - 1);
  if (!ID_PATTERN.test(id)) return `the id of a del line is malformed: ${JSON.stringify(id)}`;
  return { seq, op: 'del', id };
}

/** The compact form of a logged view, checking the fields the index and the role checks rely on. */
function storedFromView(json: string, createdAt: string, seq: number, options: DecodeOptions): StoredEvent | string {
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
  return {
    id,
    startMs,
    endMs,
    category: category satisfies Category,
    organizerEmail: options.intern === undefined ? organizerEmail : options.intern(organizerEmail),
    createdAt,
    seq,
    json,
  };
}

/** Milliseconds of a `YYYY-MM-DDTHH:MM:SS.sssZ` string, by the same rules as replay's byte parser; NaN otherwise. */
function timeMs(value: unknown): number {
  if (typeof value !== 'string' || !TIME_PATTERN.test(value)) return NaN;
  // The pattern allows only ASCII, so the latin1 bytes are exact; a scratch buffer spares an allocation per write.
  TIME_SCRATCH.write(value, 0, 'latin1');
  return parseUtcTime(TIME_SCRATCH, 0);
}

const TIME_SCRATCH = Buffer.alloc(24);

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
const ID_OPEN = Buffer.from(',"id":"');
const CRC_OPEN = Buffer.from(',"crc":"');
const PUT_OP = Buffer.from('put"');
const DEL_OP = Buffer.from('del"');
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
