// Reads events.jsonl back into memory in byte chunks, checking every line; finds a torn tail and refuses damage elsewhere.
import * as path from 'node:path';
import { seatsOf, withRegisteredCount, type StoredEvent } from '../../events/event.js';
import { nodeFileSystem } from './file-system.js';
import { carryPartialLine } from '../../lib/line-buffer.js';
import type { FileSystemSeam } from './file-system.js';
import { decodeRecord, type DecodeOptions, type LogRecord, type MetaRecord } from '../records/jsonl-record.js';
import type { IdempotencyTable } from '../views/idempotency-table.js';
import { rememberAnswer } from '../views/remember-answer.js';
import { flatCopy } from '../views/view-scan.js';
import { RosterError } from '../views/roster.js';
import { RosterTable } from '../views/roster-table.js';
import { DocumentTable } from '../views/document-table.js';
import { PackedEvent, PackedEvents } from '../views/packed-events.js';

/** Where replay stopped trusting the log: a torn tail starts here and runs to the end of the file. */
export interface TornTail {
  /** 1-based line number of the first line that is not good. */
  line: number;
  /** Byte offset of that line (the length of the log once the tail is cut). */
  offset: number;
  reason: string;
}

/** What a replay found. */
export interface ReplayResult {
  /** The live events, in the order of their latest seq. */
  events: Map<string, StoredEvent>;
  /** The live registrations of every event. */
  rosters: RosterTable;
  /** The live documents (series) kept beside the events. */
  documents: DocumentTable;
  /** Good lines (puts and deletes), superseded ones included. */
  lines: number;
  /** The seq of the last good line; 0 for an empty log. */
  lastSeq: number;
  /** Deleted events whose del line the log still holds: id → seq of the deletion, in seq order. */
  tombstones: Map<string, number>;
  /** The newest seq of a deletion a compaction dropped (its mark line says), 0 for none. */
  horizon: number;
  /** Bytes up to the end of the last good line. */
  goodLength: number;
  /** Bytes in the file. */
  fileLength: number;
  /** Set when bytes follow the last good line (a crash mid-write). */
  torn: TornTail | undefined;
  /** Work beyond reading the lines, counted so that tests can hold replay to the cheaper way. */
  work: ReplayWork;
}

/** What replay did beyond reading: each is 0 when the log never calls for it. */
export interface ReplayWork {
  /** Events moved to the end of the map by a put of an event already in it (a first put only adds). */
  moved: number;
  /** Strings copied to be shared by the lines that name them (event ids of registration lines, organizers' e-mails). */
  interned: number;
  /** Events copied into a new map at the end, because registrations changed some after their last put. */
  recounted: number;
}

/** Progress of a long replay: lines and bytes read so far, out of `fileLength` bytes. */
export interface ReplayProgress {
  lines: number;
  bytes: number;
  fileLength: number;
}

/** Options of replayLog. */
export interface ReplayOptions {
  /** The log's path, for messages. */
  file: string;
  /** Bytes read at a time. Default 4 MiB. */
  chunkBytes?: number;
  /** Called about every `progressMs` (default 1000) while a replay runs. */
  onProgress?: (progress: ReplayProgress) => void;
  progressMs?: number;
  /** The clock for progress, ms. Default Date.now. */
  now?: () => number;
  /** Filled with the answers of Idempotency-Keys the log remembers (those younger than its TTL at `now`). */
  idempotency?: IdempotencyTable;
}

/** The log is damaged before its last good line: the store refuses to start rather than drop data. */
export class LogDamageError extends Error {
  readonly file: string;
  readonly line: number;
  readonly offset: number;
  readonly reason: string;

  constructor(file: string, line: number, offset: number, reason: string) {
    super(
      `${file}: line ${line} (byte offset ${offset}) is damaged: ${reason}. The store will not start, so that no data is ` +
        'dropped silently; restore the file from a backup, or check it with `verify`.',
    );
    this.name = 'LogDamageError';
    this.file = file;
    this.line = line;
    this.offset = offset;
    this.reason = reason;
  }
}

/** What a scan of the log hands its caller as it goes. */
export interface LogScanHandlers {
  /** Each good record, in file order. */
  onRecord?: (record: LogRecord | MetaRecord) => void;
  /** After each chunk: the bytes of the whole, good lines read in it, in file order. */
  onGoodBytes?: (bytes: Buffer) => Promise<void>;
}

/** Where a scan of the log ended. */
export interface LogScanResult {
  lines: number;
  lastSeq: number;
  goodLength: number;
  /** Bytes read: the file's length when the scan ended. */
  endOfFile: number;
  torn: TornTail | undefined;
}

/**
 * Reads the log open on `fd` from its start in byte chunks (never as one string), checking every
 * line: its checksum and shape, and that seq strictly grows. A bad line followed by a good one is
 * damage (LogDamageError); bad bytes at the end are a torn tail, reported, not thrown.
 */
export async function scanLog(fs: FileSystemSeam, fd: number, options: ReplayOptions & { decode?: DecodeOptions }, handlers: LogScanHandlers): Promise<LogScanResult> {
  const now = options.now ?? Date.now;
  const progressMs = options.progressMs ?? 1000;
  const fileLength = options.onProgress === undefined ? 0 : await fs.size(fd);
  let buffer = Buffer.allocUnsafe(options.chunkBytes ?? 4 * 1024 * 1024);
  let filled = 0;
  /** File offset of buffer[0]. */
  let bufferOffset = 0;
  let lineNumber = 0;
  let lines = 0;
  let lastSeq = 0;
  let goodLength = 0;
  let firstBad: TornTail | undefined;
  let nextProgress = now() + progressMs;

  for (;;) {
    const read = await fs.read(fd, buffer, filled, buffer.length - filled, bufferOffset + filled);
    filled += read;
    const view = buffer.subarray(0, filled);
    let lineStart = 0;
    for (let newline = view.indexOf(10); newline !== -1; newline = view.indexOf(10, lineStart)) {
      lineNumber++;
      const offset = bufferOffset + lineStart;
      // A line starting with a tab is an atomic group (encodeGroup): every member good, or the whole line is bad.
      const decoded = buffer[lineStart] === TAB ? decodeGroup(buffer, lineStart, newline, options.decode) : decodeRecord(buffer, lineStart, newline, options.decode);
      if (typeof decoded === 'string') {
        lineStart = newline + 1;
        firstBad ??= { line: lineNumber, offset, reason: decoded };
        continue;
      }
      if (firstBad !== undefined) {
        throw new LogDamageError(options.file, firstBad.line, firstBad.offset, `${firstBad.reason}; line ${lineNumber} after it is good, so this is not a torn tail`);
      }
      lineStart = newline + 1;
      const records = Array.isArray(decoded) ? decoded : [decoded];
      for (const record of records) {
        // An idem or docstate line carries the seq of the write it keeps, written by compaction ahead of the rest: its seq need not grow.
        if (record.op !== 'idem' && record.op !== 'docstate') {
          if (record.seq <= lastSeq) {
            throw new LogDamageError(options.file, lineNumber, offset, `its sequence number ${record.seq} is not greater than the ${lastSeq} of the line before`);
          }
          lastSeq = record.seq;
        }
      }
      lines += records.length;
      goodLength = bufferOffset + lineStart;
      try {
        for (const record of records) handlers.onRecord?.(record);
      } catch (error) {
        // A line whose change does not fit the state before it (a registration of an unknown one, say) is damage too.
        if (error instanceof RosterError) throw new LogDamageError(options.file, lineNumber, offset, error.message);
        throw error;
      }
    }
    // The good lines of this chunk end at the last good line (nothing once a bad line was met).
    const goodEnd = goodLength - bufferOffset;
    if (handlers.onGoodBytes !== undefined && goodEnd > 0) await handlers.onGoodBytes(buffer.subarray(0, goodEnd));
    if (read === 0) {
      if (lineStart < filled) firstBad ??= { line: lineNumber + 1, offset: bufferOffset + lineStart, reason: 'the last line is incomplete (no newline)' };
      break;
    }
    buffer = carryPartialLine(buffer, lineStart, filled);
    filled -= lineStart;
    bufferOffset += lineStart;
    if (options.onProgress !== undefined && now() >= nextProgress) {
      nextProgress = now() + progressMs;
      options.onProgress({ lines: lineNumber, bytes: bufferOffset, fileLength });
    }
  }
  return { lines, lastSeq, goodLength, endOfFile: bufferOffset + filled, torn: firstBad };
}

const TAB = 0x09;

/** The members of a group line (see encodeGroup), or why it is bad. */
function decodeGroup(buf: Buffer, start: number, end: number, decode: DecodeOptions | undefined): (LogRecord | MetaRecord)[] | string {
  const records: (LogRecord | MetaRecord)[] = [];
  for (let member = start + 1; member <= end; ) {
    let next = buf.indexOf(TAB, member);
    if (next < 0 || next > end) next = end;
    const record = decodeRecord(buf, member, next, decode);
    if (typeof record === 'string') return `member ${records.length + 1} of an atomic group: ${record}`;
    records.push(record);
    member = next + 1;
  }
  return records.length === 0 ? 'an atomic group line holds no lines' : records;
}

/**
 * Replays the log open on `fd` from its start. Resolves with the live events and where the good
 * lines end; throws LogDamageError for a damaged line followed by a good one, or for a seq that
 * does not grow. Changes nothing on disk: cutting a torn tail is the caller's move.
 */
export async function replayLog(fs: FileSystemSeam, fd: number, options: ReplayOptions): Promise<ReplayResult> {
  const fileLength = await fs.size(fd);
  const events = new Map<string, StoredEvent>();
  const emails = new Map<string, string>();
  const work: ReplayWork = { moved: 0, interned: 0, recounted: 0 };
  const decode: DecodeOptions = {
    pack: new PackedEvents(),
    intern(email: string): string {
      let shared = emails.get(email);
      if (shared === undefined) {
        emails.set(email, (shared = flatCopy(email)));
        work.interned++;
      }
      return shared;
    },
  };
  const rosters = new RosterTable();
  const documents = new DocumentTable();
  const tombstones = new Map<string, number>();
  let horizon = 0;
  const nowMs = (options.now ?? Date.now)();
  /**
   * Events whose registered_count registrations changed after their last put, with the seq and time of the
   * latest such change: their view is rewritten, and their place in seq order taken, once, at the end.
   */
  const recounted = new Map<string, { seq: number; modifiedMs: number }>();
  const moveToEnd = (stored: StoredEvent): void => {
    // Keep the map in the order of each event's latest seq: a change moves the event to the end. Most puts are
    // an event's first: set alone finds that out (one probe of a map of a million ids, not two).
    const size = events.size;
    events.set(stored.id, stored);
    if (events.size === size) {
      work.moved++;
      events.delete(stored.id);
      events.set(stored.id, stored);
    }
  };
  const scan = await scanLog(fs, fd, { ...options, decode }, {
    onRecord(record) {
      switch (record.op) {
        case 'put':
          moveToEnd(record.stored);
          recounted.delete(record.stored.id);
          tombstones.delete(record.stored.id);
          rosters.apply(record);
          if (options.idempotency !== undefined) rememberAnswer(options.idempotency, record, nowMs);
          break;
        case 'del':
          events.delete(record.id);
          recounted.delete(record.id);
          tombstones.delete(record.id);
          tombstones.set(record.id, record.seq);
          rosters.apply(record);
          break;
        case 'mark':
          horizon = Math.max(horizon, record.gone);
          break;
        case 'doc':
        case 'docstate':
        case 'docdel':
          documents.apply(record);
          break;
        case 'idem':
          options.idempotency?.remember(record.entry, nowMs);
          break;
        case 'regstate':
          // Written by compaction: the registration as it stands; its event's line says its count.
          rosters.apply(record);
          break;
        case 'reg':
        case 'cancel':
        case 'checkin': {
          const eventId = record.op === 'reg' ? record.registration.eventId : record.eventId;
          const event = events.get(eventId);
          if (event === undefined) throw new RosterError(`it changes the registrations of event ${eventId}, which is not in the log before it`);
          const before = rosters.get(eventId).confirmed;
          rosters.apply(record);
          if (options.idempotency !== undefined) rememberAnswer(options.idempotency, record, nowMs);
          if (rosters.get(eventId).confirmed !== before) {
            const modifiedMs = record.op === 'reg' ? Date.parse(record.registration.createdAt) : record.op === 'cancel' ? record.atMs : Date.parse(record.at);
            const change = recounted.get(eventId);
            if (change === undefined) recounted.set(eventId, { seq: record.seq, modifiedMs });
            else {
              change.seq = record.seq;
              change.modifiedMs = modifiedMs;
            }
          }
          break;
        }
        default: {
          const unhandled: never = record;
          throw new Error(`replay does not handle the record ${JSON.stringify(unhandled)}`);
        }
      }
    },
  });
  const live = recounted.size === 0 ? events : recount(events, recounted, rosters);
  if (live !== events) work.recounted = live.size;
  const broken = rosterInvariantProblem(live, rosters);
  if (broken !== undefined) throw new RosterInvariantError(options.file, broken);
  const { lines, lastSeq, goodLength, torn } = scan;
  return { events: live, rosters, documents, lines, lastSeq, tombstones, horizon, goodLength, fileLength: Math.max(fileLength, scan.endOfFile), torn, work };
}

/**
 * The events in the order of their latest seq, those whose registrations changed them last rewritten with their
 * count, seq and time: the others keep the order of their put lines, and the recounted ones are merged in by seq.
 */
function recount(events: Map<string, StoredEvent>, recounted: Map<string, { seq: number; modifiedMs: number }>, rosters: RosterTable): Map<string, StoredEvent> {
  const changed = [...recounted].sort((a, b) => a[1].seq - b[1].seq);
  const ordered = new Map<string, StoredEvent>();
  let next = 0;
  const takeChangedBefore = (seq: number): void => {
    for (; next < changed.length && changed[next]![1].seq < seq; next++) {
      const [id, change] = changed[next]!;
      const event = events.get(id)!;
      const confirmed = rosters.get(id).confirmed;
      ordered.set(id, event instanceof PackedEvent ? event.recounted(confirmed, change.seq, change.modifiedMs) : withRegisteredCount(event, confirmed, change.seq, change.modifiedMs));
    }
  };
  for (const [id, event] of events) {
    if (recounted.has(id)) continue;
    takeChangedBefore(event.seq);
    ordered.set(id, event);
  }
  takeChangedBefore(Infinity);
  return ordered;
}

/** The log is whole, but its registrations contradict its events (API.md §8's invariant): the store refuses to start. */
export class RosterInvariantError extends Error {
  override readonly name = 'RosterInvariantError';
  readonly file: string;

  constructor(file: string, problem: string) {
    super(`${file}: the registrations contradict the events: ${problem}. The store will not start; restore the file from a backup.`);
    this.file = file;
  }
}

/**
 * Checks API.md §8's invariant for every event: registered_count equals the confirmed registrations and
 * never exceeds capacity, and nobody waits while a seat is free; every roster belongs to a live event.
 * Returns the first problem, or undefined.
 */
export function rosterInvariantProblem(events: ReadonlyMap<string, StoredEvent>, rosters: RosterTable): string | undefined {
  for (const [eventId] of rosters.entries()) {
    if (!events.has(eventId)) return `event ${eventId} has registrations but is not live`;
  }
  for (const event of events.values()) {
    const { capacity, registered } = seatsOf(event);
    const roster = rosters.get(event.id);
    if (registered !== roster.confirmed) return `event ${event.id} says registered_count ${registered}, but ${roster.confirmed} registrations are confirmed`;
    if (registered > capacity) return `event ${event.id} has ${registered} confirmed registrations for ${capacity} seats`;
    if (roster.waitlisted > 0 && registered < capacity) return `event ${event.id} has ${roster.waitlisted} waitlisted while ${capacity - registered} seats are free`;
  }
  return undefined;
}

/** What `verifyLog` found in a data folder. */
export interface LogReport {
  file: string;
  /** False when the folder has no log yet (an empty store). */
  exists: boolean;
  lines: number;
  liveEvents: number;
  /** Live registrations over all events. */
  liveRegistrations: number;
  /** Live documents (series). */
  liveDocuments: number;
  supersededLines: number;
  lastSeq: number;
  /** Bytes of good lines, and of the whole file. */
  goodLength: number;
  fileLength: number;
  /** A torn tail the next start will cut off (and keep aside). */
  torn: TornTail | undefined;
}

/**
 * Checks `dataDir/events.jsonl` offline, changing nothing (works while a server runs: it only reads).
 * Throws LogDamageError, naming the line, when the log is damaged before its end.
 */
export async function verifyLog(dataDir: string, options: { fs?: FileSystemSeam } = {}): Promise<LogReport> {
  const fs = options.fs ?? nodeFileSystem;
  const file = path.resolve(dataDir, 'events.jsonl');
  let fd: number;
  try {
    fd = await fs.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return { file, exists: false, lines: 0, liveEvents: 0, liveRegistrations: 0, liveDocuments: 0, supersededLines: 0, lastSeq: 0, goodLength: 0, fileLength: 0, torn: undefined };
  }
  try {
    const result = await replayLog(fs, fd, { file });
    const liveEvents = result.events.size;
    const liveRegistrations = result.rosters.registrations;
    const liveDocuments = result.documents.size;
    const { lines, lastSeq, goodLength, fileLength, torn } = result;
    return { file, exists: true, lines, liveEvents, liveRegistrations, liveDocuments, supersededLines: lines - liveEvents - liveRegistrations - liveDocuments, lastSeq, goodLength, fileLength, torn };
  } finally {
    await fs.close(fd);
  }
}
