// One compaction of the file store's log (log-compaction.ts does the work), told to the store's logger: its start, its
// result, or why it failed and what that means for writes.
import { describeWriteError } from '../store-errors.js';
import { CompactionAbandoned, compactLog, type CompactionHost, type CompactionResult } from './log-compaction.js';
import { mib, type StoreLogger } from './store-logger.js';

/** How runCompaction reports, and what the store's messages say of the log as the compaction starts. */
export interface CompactionReport {
  logger: StoreLogger;
  now: () => number;
  start: { lines: number; liveEvents: number; liveRegistrations: number; bytes: number };
  /** Whether the store still takes writes (after a failure: the message says whether writes go on). */
  writable: () => boolean;
  /** Called first when the compaction fails, with why, before the failure is logged and thrown on. */
  failed: (error: unknown) => void;
}

/**
 * Runs compactLog(host), logging its start and its result. On failure: logs whether the log is unchanged (abandoned),
 * intact (failed before its rename), or in place with writes refused (failed after it: the host's `refuse` was
 * called), and throws the error on.
 */
export async function runCompaction(host: CompactionHost, report: CompactionReport): Promise<CompactionResult> {
  const { logger, start } = report;
  const started = report.now();
  logger.info('compacting the event log', {
    file: host.file,
    lines: start.lines,
    live_events: start.liveEvents,
    live_registrations: start.liveRegistrations,
    superseded_lines: start.lines - start.liveEvents - start.liveRegistrations,
    mib: mib(start.bytes),
  });
  let renamedThenFailed = false;
  const watched: CompactionHost = {
    ...host,
    refuse: (error) => {
      renamedThenFailed = true;
      host.refuse(error);
    },
  };
  try {
    const result = await compactLog(watched);
    logger.info('compacted the event log', {
      file: host.file,
      lines_before: result.linesBefore,
      lines_after: result.linesAfter,
      mib_before: mib(result.bytesBefore),
      mib_after: mib(result.bytesAfter),
      lines_written_meanwhile: result.tailLines,
      ms: report.now() - started,
    });
    return result;
  } catch (error) {
    report.failed(error);
    if (error instanceof CompactionAbandoned) {
      logger.info('compaction abandoned; the log is unchanged', { file: host.file, reason: error.message });
    } else if (!renamedThenFailed) {
      logger.warn(report.writable() ? 'compaction failed; the log is intact and writes go on' : 'compaction failed before its rename; the log is intact', {
        file: host.file,
        error: describeWriteError(error),
        detail: String(error),
      });
    } else {
      logger.warn('compaction failed after renaming the new log into place: writes are refused until restart, reads go on', {
        file: host.file,
        error: describeWriteError(error),
        detail: String(error),
      });
    }
    throw error;
  }
}
