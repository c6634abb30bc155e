// Writes the lines of events.jsonl (see jsonl-record.ts for the kinds): each sealed with its CRC-32, and each
// refused, by a throw, when replay could not read it back, so the store never writes a line that stops the next start.
import { viewJson } from '../../events/event.js';
import type { EventRecord, StoredEvent } from '../../events/event.js';
import { crc32, crc32Byte, crc32Hex } from '../../lib/crc32.js';
import { REGISTRATION_ID_PATTERN, type Registration } from '../views/roster.js';
import type { IdempotencyEntry, IdempotencyTag } from '../views/idempotency-table.js';
import type { CancelRecord, CheckInRecord, StoredDocument } from './jsonl-record.js';
import { encodeIdemToken } from './idem-token.js';
import { checkSeq, COLLECTION_PATTERN, EVENT_ID_PATTERN, ID_PATTERN, isoTime, timeMs } from './record-checks.js';

/** A put line for `record` written at `seq`; `view` is its `viewJson`, passed when the caller already has it. */
export function encodePut(seq: number, record: EventRecord, view: string = viewJson(record)): string {
  return encodeView(seq, record.created_at, record.created_at, [], view);
}

/** The put line of a stored event, at the sequence number it was written with (compaction keeps them), with the registrations it confirmed. */
export function encodeStored(stored: StoredEvent, promoted: readonly string[] = [], idem?: IdempotencyTag): string {
  return encodeView(stored.seq, stored.createdAt, isoTime(stored.modifiedMs, 'the time of a change'), promoted, stored.json, idem, stored.hiddenAt);
}

/** The line of a new registration at `lineSeq`: its own seq, or the next one when it confirms (the event's); `idem` when sent with an Idempotency-Key. */
export function encodeRegister(registration: Registration, lineSeq: number = registration.seq, idem?: IdempotencyTag): string {
  if (lineSeq < registration.seq) throw new TypeError(`a registration line at seq ${lineSeq} cannot hold a registration of seq ${registration.seq}`);
  return encodeRegistration('reg', registration, lineSeq, idem);
}

/**
 * The line of a document written at `seq` (`doc`), or compaction's copy of it at its own seq (`docstate`); a `doc`
 * written under an Idempotency-Key carries it and the time it was written (`answer`), as an event's put does.
 */
export function encodeDocument(document: StoredDocument, op: 'doc' | 'docstate' = 'doc', answer?: { idem: IdempotencyTag; atMs: number }): string {
  checkDocument(document.collection, document.id, document.json);
  const idem = answer === undefined ? '' : `"idem":"${encodeIdemToken(answer.idem)}","at":"${isoTime(answer.atMs, 'the time of a document')}",`;
  return seal(`{"seq":${checkSeq(document.seq)},"op":"${op}","coll":"${document.collection}","id":"${document.id}",${idem}"doc":${document.json}`);
}

/** The line that deletes document `id` of `collection`. */
export function encodeDocumentDelete(seq: number, collection: string, id: string): string {
  checkDocumentKey(collection, id);
  return seal(`{"seq":${checkSeq(seq)},"op":"docdel","coll":"${collection}","id":"${id}"`);
}

/**
 * One atomic group of lines, written as one line that is one JSON object (see group-line.ts): the newest seq of its
 * members, each member's length in bytes, the member lines (sealed, each with its own seq and checksum) in a list,
 * and a checksum of the whole. A line is whole or torn, so replay applies all of it or none.
 */
export function encodeGroup(lines: readonly string[]): string {
  let seq = 0;
  const sizes: number[] = [];
  const members: string[] = [];
  for (const line of lines) {
    const member = line.endsWith('\n') ? line.slice(0, -1) : line;
    const named = /^\{"seq":(\d{1,15}),/.exec(member);
    if (named === null) throw new TypeError(`a member of a group must be a sealed line, got ${JSON.stringify(member.slice(0, 40))}`);
    seq = Math.max(seq, Number(named[1]));
    sizes.push(Buffer.byteLength(member));
    members.push(member);
  }
  if (members.length === 0) throw new TypeError('a group holds at least one line');
  return seal(`{"seq":${checkSeq(seq)},"op":"group","sizes":[${sizes.join(',')}],"lines":[${members.join(',')}]`);
}

function checkDocumentKey(collection: string, id: string): void {
  if (!COLLECTION_PATTERN.test(collection) || !ID_PATTERN.test(id)) throw new TypeError(`cannot log document ${JSON.stringify(id)} of collection ${JSON.stringify(collection)}`);
}

/** A document a line may hold whole: a key replay reads back, and a JSON object. */
function checkDocument(collection: string, id: string, json: string): void {
  checkDocumentKey(collection, id);
  if (!json.startsWith('{') || !json.endsWith('}')) throw new TypeError(`document ${id} must be a JSON object`);
}

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
  } else if (answer.kind === 'document') {
    checkDocument(answer.collection, answer.id, answer.json);
    payload = `"coll":"${answer.collection}","id":"${answer.id}","doc":${answer.json}`;
  } else {
    const r = answer.registration;
    checkIds(r.eventId, r.id, []);
    payload = `"event":"${r.eventId}","reg":${JSON.stringify({ id: r.id, name: r.name, email: r.email, status: r.status, created_at: r.createdAt, seq: r.seq })}`;
  }
  return seal(`{"seq":${checkSeq(entry.seq)},"op":"idem","idem":"${encodeIdemToken(entry)}","at":"${isoTime(entry.atMs, 'the time of an answer')}",${payload}`);
}

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
export function encodeDelete(seq: number, id: string, atMs?: number): string {
  if (!ID_PATTERN.test(id)) throw new TypeError(`cannot log a delete of id ${JSON.stringify(id)}: ids are letters, digits and _`);
  const at = atMs === undefined ? '' : `,"at":"${isoTime(atMs, 'the time of a deletion')}"`;
  return seal(`{"seq":${checkSeq(seq)},"op":"del","id":"${id}"${at}`);
}

/** A put line; `at` (the time of the change) and `promoted` are left out when they add nothing, as lines before them had neither. */
function encodeView(seq: number, createdAt: string, at: string, promoted: readonly string[], view: string, idem?: IdempotencyTag, hiddenAt?: number): string {
  if (Number.isNaN(timeMs(createdAt))) throw new TypeError(`created_at must be YYYY-MM-DDTHH:MM:SS.sssZ, got ${JSON.stringify(createdAt)}`);
  for (const id of promoted) if (!REGISTRATION_ID_PATTERN.test(id)) throw new TypeError(`cannot log registration id ${JSON.stringify(id)}`);
  if (hiddenAt !== undefined && (checkSeq(hiddenAt) > seq)) throw new TypeError(`a put line at seq ${seq} cannot say its event was hidden at the later seq ${hiddenAt}`);
  const atField = at === createdAt ? '' : `,"at":"${at}"`;
  const idemField = idem === undefined ? '' : `,"idem":"${encodeIdemToken(idem)}"`;
  const promotedField = promoted.length === 0 ? '' : `,"promoted":${JSON.stringify(promoted)}`;
  // Only on a draft or pending event that was public before (API.md §14): the seq of its tombstone in the change feed.
  const hiddenField = hiddenAt === undefined ? '' : `,"hidden":${hiddenAt}`;
  return seal(`{"seq":${checkSeq(seq)},"op":"put","created_at":"${createdAt}"${atField}${idemField}${promotedField}${hiddenField},"event":${view}`);
}

/** Closes the object `head` opened: its CRC covers `head + "}"`, then `,"crc":"…"}` and the newline follow. */
function seal(head: string): string {
  return `${head},"crc":"${crc32Hex(crc32Byte(crc32(head), CLOSE_BRACE))}"}\n`;
}

const CLOSE_BRACE = 0x7d;
