// Reads events.jsonl back into memory: the live events, registrations, documents and remembered answers, from a scan
// of every line (log-scan.ts); refuses a log whose registrations contradict its events.
import { isHidden, type StoredEvent } from '../../events/event.js';
import { withRegisteredCount } from '../views/served-event.js';
import type { FileSystemSeam } from './file-system.js';
import type { DecodeOptions } from '../records/jsonl-record.js';
import type { IdempotencyTable } from '../views/idempotency-table.js';
import { rememberAnswer } from '../views/remember-answer.js';
import { flatCopy } from '../views/view-scan.js';
import { RosterError } from '../views/roster.js';
import { RosterTable } from '../views/roster-table.js';
import { DocumentTable } from '../views/document-table.js';
import { PackedEvent, PackedEvents } from '../views/packed-events.js';
import { scanLog, type ScanOptions, type TornTail } from './log-scan.js';
import { RosterInvariantError, rosterInvariantProblem } from './roster-invariant.js';

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

/** Options of replayLog: those of the scan under it (replay chooses how records are decoded), and the answers to fill. */
export interface ReplayOptions extends Omit<ScanOptions, 'decode'> {
  /** Filled with the answers of Idempotency-Keys the log remembers (those younger than its TTL at `now`). */
  idempotency?: IdempotencyTable;
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
        case 'put': {
          moveToEnd(record.stored);
          recounted.delete(record.stored.id);
          // A draft or pending event once public keeps its tombstone where it left public view (API.md §14).
          const { hiddenAt } = record.stored;
          if (hiddenAt === undefined) tombstones.delete(record.stored.id);
          else if (tombstones.get(record.stored.id) !== hiddenAt) {
            tombstones.delete(record.stored.id);
            tombstones.set(record.stored.id, hiddenAt);
          }
          rosters.apply(record);
          if (options.idempotency !== undefined) rememberAnswer(options.idempotency, record, nowMs);
          break;
        }
        case 'del': {
          const before = events.get(record.id);
          events.delete(record.id);
          recounted.delete(record.id);
          // A draft's deletion is nobody else's: only a public event leaves a tombstone (a draft once public has its own).
          if (before === undefined || !isHidden(before)) {
            tombstones.delete(record.id);
            tombstones.set(record.id, record.seq);
          }
          rosters.apply(record);
          break;
        }
        case 'mark':
          horizon = Math.max(horizon, record.gone);
          break;
        case 'doc':
        case 'docstate':
        case 'docdel':
          documents.apply(record);
          if (record.op === 'doc' && options.idempotency !== undefined) rememberAnswer(options.idempotency, record, nowMs);
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
