// The `verify` command's check of a data folder's log: a replay that changes nothing, summed up.
import * as path from 'node:path';
import { nodeFileSystem, type FileSystemSeam } from './file-system.js';
import { markOf } from './log-compaction.js';
import { replayLog, type ReplayResult } from './log-replay.js';
import type { TornTail } from './log-scan.js';
import { IdempotencyTable } from '../views/idempotency-table.js';
import type { Registration } from '../views/roster.js';

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
  /** Answers of Idempotency-Keys younger than 24 h: compaction keeps them, as it keeps the live records. */
  rememberedAnswers: number;
  /** The records a compaction would save: beyond one for each live record and each remembered answer, and its mark line. */
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
export async function verifyLog(dataDir: string, options: { fs?: FileSystemSeam; now?: () => number } = {}): Promise<LogReport> {
  const fs = options.fs ?? nodeFileSystem;
  const file = path.resolve(dataDir, 'events.jsonl');
  let fd: number;
  try {
    fd = await fs.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return { file, exists: false, lines: 0, liveEvents: 0, liveRegistrations: 0, liveDocuments: 0, rememberedAnswers: 0, supersededLines: 0, lastSeq: 0, goodLength: 0, fileLength: 0, torn: undefined };
  }
  try {
    const now = options.now ?? Date.now;
    const idempotency = new IdempotencyTable();
    const result = await replayLog(fs, fd, { file, idempotency, now });
    const liveEvents = result.events.size;
    const liveRegistrations = result.rosters.registrations;
    const liveDocuments = result.documents.size;
    const rememberedAnswers = idempotency.liveCount(now());
    const { lines, lastSeq, goodLength, fileLength, torn } = result;
    // What a compaction would save: it writes each live record and each answer once (an answer apart, as an idem line),
    // and a mark line when it drops any (so a log it just wrote has none superseded).
    const kept = liveEvents + liveRegistrations + liveDocuments + rememberedAnswers + (writesMark(result) ? 1 : 0);
    const supersededLines = Math.max(0, lines - kept);
    return { file, exists: true, lines, liveEvents, liveRegistrations, liveDocuments, rememberedAnswers, supersededLines, lastSeq, goodLength, fileLength, torn };
  } finally {
    await fs.close(fd);
  }
}

/** Whether a compaction of the replayed log would write a mark line (when any seq is held by no live event or registration). */
function writesMark(result: ReplayResult): boolean {
  const registrations: Registration[] = [];
  for (const [, roster] of result.rosters.entries()) for (const registration of roster.values()) registrations.push(registration);
  return markOf({ events: [...result.events.values()], registrations, lastSeq: result.lastSeq, tombstones: result.tombstones, horizon: result.horizon }) !== undefined;
}
