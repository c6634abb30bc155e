// Seeded random records of every kind and their lines, shared by the line format's tests; and the helpers that read a
// line back as replay does, seal a changed line with a good checksum, and check that damaged lines are refused.
import assert from 'node:assert/strict';
import { CATEGORIES, type EventRecord, type StoredEvent } from '../../../src/events/event.js';
import { toStored } from '../../../src/store/views/served-event.js';
import { crc32, crc32Hex } from '../../../src/lib/crc32.js';
import { decodeRecord } from '../../../src/store/records/decode-record.js';
import { encodeCancel, encodeCheckIn, encodeDelete, encodeIdempotency, encodeMark, encodePut, encodeRegister, encodeRegistrationState, encodeStored } from '../../../src/store/records/encode-record.js';
import type { LogRecord, MetaRecord } from '../../../src/store/records/jsonl-record.js';
import type { IdempotencyEntry, IdempotencyTag } from '../../../src/store/views/idempotency-table.js';
import type { Registration } from '../../../src/store/views/roster.js';

/** Generators of random records drawing from `random` (a seeded PRNG, so a failure replays from its seed). */
export function recordSamples(random: () => number) {
  /** Characters that need an escape in JSON, or take 2, 3 or 4 bytes in UTF-8, or are JSON's own punctuation. */
  const HARD = ['"', '\\', '/', '\b', '\f', '\n', '\r', '\t', '\u0000', '\u0001', '\u001f', '\u007f', 'é', '\u0800', '€', '\u2028', '\u2029', '\uffff', '😀', '𐀀', '{', '}', '[', ']', ',', ':'];
  const PLAIN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .-_@+';
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  
  function int(min: number, max: number): number {
    return min + Math.floor(random() * (max - min + 1));
  }
  function pick<T>(items: readonly T[]): T {
    return items[Math.floor(random() * items.length)]!;
  }
  /** A string of `min`–`max` characters; with `hard`, about a third of them from HARD. */
  function text(min: number, max: number, hard = true): string {
    let out = '';
    for (let n = int(min, max); n > 0; n--) out += hard && random() < 0.35 ? pick(HARD) : PLAIN[Math.floor(random() * PLAIN.length)];
    return out;
  }
  function base62(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += BASE62[Math.floor(random() * 62)];
    return out;
  }
  function time(): string {
    return new Date(int(0, 4_102_444_800_000)).toISOString();
  }
  const eventIdOf = (): string => `evt_${base62(int(16, 24))}`;
  const registrationIdOf = (): string => `reg_${base62(int(22, 30))}`;
  
  function eventRecord(hard: boolean): EventRecord {
    const start = int(0, 4_000_000_000_000);
    return {
      id: eventIdOf(),
      title: text(1, 40, hard),
      description: text(0, 80, hard),
      category: pick(CATEGORIES),
      location: text(1, 30, hard),
      start_time: new Date(start).toISOString(),
      end_time: new Date(start + int(0, 86_400_000)).toISOString(),
      capacity: int(0, 100_000),
      registered_count: int(0, 100),
      organizer: { name: text(1, 20, hard), email: `${text(1, 12, hard)}@${text(1, 12, hard)}` },
      created_at: time(),
    };
  }
  
  function registration(seq: number, hard: boolean, checkedIn = random() < 0.5): Registration {
    return {
      id: registrationIdOf(),
      eventId: eventIdOf(),
      name: text(1, 30, hard),
      email: `${text(1, 12, hard)}@${text(1, 12, hard)}`,
      status: pick(['confirmed', 'waitlisted'] as const),
      createdAt: time(),
      checkedInAt: checkedIn ? time() : null,
      seq,
    };
  }
  
  function tag(): IdempotencyTag {
    let key = '';
    for (let n = int(1, 255); n > 0; n--) key += String.fromCharCode(int(0x20, 0x7e));
    return { key, keyId: base62(int(1, 20)).replace(/^./, '_'), requestHash: base62(32).replace(/./g, (c) => (random() < 0.05 ? pick(['-', '_']) : c)) };
  }
  
  /** A random line and the record it must read back as. */
  function sample(hard: boolean): { line: string; expected: LogRecord | MetaRecord } {
    const seq = int(1, 2 ** 40);
    switch (int(0, 9)) {
      case 0: {
        const record = eventRecord(hard);
        return { line: encodePut(seq, record), expected: { seq, op: 'put', stored: toStored(record, seq) } };
      }
      case 1: {
        // A later change: its time, the registrations it confirmed and the Idempotency-Key, each there or not.
        const record = eventRecord(hard);
        const modifiedMs = Date.parse(record.created_at) + int(0, 1) * int(1, 10 ** 9);
        const stored: StoredEvent = toStored(record, seq, undefined, modifiedMs);
        const promoted = Array.from({ length: int(0, 3) }, registrationIdOf);
        const idem = random() < 0.5 ? tag() : undefined;
        const expected: LogRecord = { seq, op: 'put', stored, ...(promoted.length > 0 ? { promoted } : {}), ...(idem === undefined ? {} : { idem }) };
        return { line: encodeStored(stored, promoted, idem), expected };
      }
      case 2: {
        const id = pick([eventIdOf(), base62(int(1, 64)), `_${base62(int(0, 10))}`]);
        return { line: encodeDelete(seq, id), expected: { seq, op: 'del', id } };
      }
      case 3: {
        const own = registration(int(1, seq), hard, false);
        const lineSeq = own.status === 'confirmed' && random() < 0.5 ? own.seq + 1 : own.seq;
        const idem = random() < 0.3 ? tag() : undefined;
        return { line: encodeRegister(own, lineSeq, idem), expected: { seq: lineSeq, op: 'reg', registration: own, ...(idem === undefined ? {} : { idem }) } };
      }
      case 4: {
        const state = registration(seq, hard);
        return { line: encodeRegistrationState(state), expected: { seq, op: 'regstate', registration: state } };
      }
      case 5: {
        const cancel = { seq, eventId: eventIdOf(), id: registrationIdOf(), atMs: int(0, 4_102_444_800_000), promoted: Array.from({ length: int(0, 3) }, registrationIdOf) };
        return { line: encodeCancel(cancel), expected: { op: 'cancel', ...cancel } };
      }
      case 6: {
        const checkIn = { seq, eventId: eventIdOf(), id: registrationIdOf(), at: time() };
        return { line: encodeCheckIn(checkIn), expected: { op: 'checkin', ...checkIn } };
      }
      case 7: {
        const gone = int(0, seq);
        return { line: encodeMark(seq, gone), expected: { seq, op: 'mark', gone } };
      }
      case 8: {
        const record = eventRecord(hard);
        const entry: IdempotencyEntry = { ...tag(), atMs: int(0, 4_102_444_800_000), seq, answer: { kind: 'event', view: toStored(record, seq).json, createdAt: record.created_at } };
        return { line: encodeIdempotency(entry), expected: { seq, op: 'idem', entry } };
      }
      default: {
        const answer = registration(int(1, seq), hard, false);
        const entry: IdempotencyEntry = { ...tag(), atMs: int(0, 4_102_444_800_000), seq, answer: { kind: 'registration', registration: answer } };
        return { line: encodeIdempotency(entry), expected: { seq, op: 'idem', entry } };
      }
    }
  }

  return { int, pick, text, base62, time, eventIdOf, registrationIdOf, eventRecord, registration, tag, sample };
}

export function decode(line: string, pad = 0): LogRecord | MetaRecord | string {
  const bytes = Buffer.from(line, 'utf8');
  assert.equal(bytes[bytes.length - 1], 0x0a, 'a line ends with a newline');
  // Somewhere in a larger buffer, as replay reads it.
  const buf = Buffer.concat([Buffer.alloc(pad, 0x7b), bytes, Buffer.from('{"seq":1')]);
  return decodeRecord(buf, pad, pad + bytes.length - 1);
}

/** A line with the same fields as `line` but `change` applied to its parsed object, sealed with a good checksum. */
export function reseal(line: string, change: (fields: Record<string, any>) => void): string {
  const fields = JSON.parse(line) as Record<string, any>;
  delete fields['crc'];
  change(fields);
  const head = JSON.stringify(fields).slice(0, -1);
  return `${head},"crc":"${crc32Hex(crc32(`${head}}`))}"}\n`;
}

/** Values that no field of a line may hold where a string, an id, a time or a seq is expected. */
export const NOT_A_TIME = [undefined, null, 5, '', 'x', '2026-08-01T12:00:00Z', '2026-08-01T12:00:00.000+01:00', '2026-08-01 12:00:00.000Z', ['2026-08-01T12:00:00.000Z']];
export const NOT_AN_EVENT_ID = [undefined, null, 7, '', 'evt_short', 'abc_0000000000000000', 'evt_000000000000000!', ['evt_0000000000000000'], 'xevt_0000000000000000', 'evt_0000000000000000!'];
export const NOT_A_REGISTRATION_ID = [undefined, null, 7, '', 'reg_short', 'xyz_0000000000000000000000', `reg_${'0'.repeat(65)}`, 'reg_0000000000000000000000!', [`reg_${'0'.repeat(22)}`]];
export const NOT_A_SEQ = [undefined, null, 0, -1, 1.5, '1', [1], 2 ** 53];
export const NOT_A_TAG = [null, 5, '', 'hash.key.A', 'a.b', 'a.b.c.d', 'h!.key.a2V5', 'hash.bad key.a2V5', 'hash.key.', 'hash.key.a2V5!', `hash.key.${'A'.repeat(401)}`, `hash.key.${Buffer.from('k'.repeat(256), 'latin1').toString('base64url')}`];

export interface Corruption {
  path: string;
  values: readonly unknown[];
}

export function setPath(fields: Record<string, any>, path: string, value: unknown): void {
  const parts = path.split('.');
  let target = fields;
  for (const part of parts.slice(0, -1)) target = target[part];
  if (value === undefined) delete target[parts.at(-1)!];
  else target[parts.at(-1)!] = value;
}

export function assertAllRefused(kind: string, line: string, corruptions: readonly Corruption[]): number {
  let count = 0;
  assert.equal(typeof decode(line), 'object', `${kind}: the good line reads`);
  for (const { path, values } of corruptions) {
    for (const value of values) {
      const bad = reseal(line, (fields) => setPath(fields, path, value));
      const decoded = decode(bad);
      assert.equal(typeof decoded, 'string', `${kind}: ${path} = ${JSON.stringify(value)} must be refused, got ${JSON.stringify(decoded)} from ${bad}`);
      assert.match(decoded as string, /^[a-z"].{15,}/, `${kind}: ${path} = ${JSON.stringify(value)}: the reason is a sentence`);
      count++;
    }
  }
  return count;
}

/** `seq` and `op` made wrong; `ops` the other kinds whose fields this line cannot hold. */
export const SEQ_AND_OP = (ops: readonly string[]): Corruption[] => [
  { path: 'seq', values: NOT_A_SEQ },
  { path: 'op', values: [undefined, null, 5, '', 'PUT', 'nope', 'constructor', '__proto__', ...ops] },
];

