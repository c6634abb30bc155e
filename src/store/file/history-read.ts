// Reads the durable changes after a position back from events.jsonl, for webhooks that were behind when the server stopped.
import type { FileSystemSeam } from './file-system.js';
import { scanLog } from './log-scan.js';
import { HistoryWalk, type HistoryRead } from '../views/change-history.js';

/** Stops a scan once a read has what it asked for. */
class Enough extends Error {}

/**
 * Walks the log at `file` from its start (rebuilding the state each line applies to) and returns the
 * changes after `since`, up to `through` (the last durable seq when asked: lines appended meanwhile come
 * to listeners instead), at most `limit`. A compaction's mark and registration-state lines say how far it
 * rewrote history.
 */
export async function readHistoryAfter(fs: FileSystemSeam, file: string, range: { since: number; through: number; limit?: number | undefined }, nowMs: number): Promise<HistoryRead> {
  const { since, through, limit = Infinity } = range;
  const walk = new HistoryWalk(since, limit, nowMs);
  const fd = await fs.open(file, 'r');
  try {
    await scanLog(fs, fd, { file }, {
      onRecord(record) {
        if (record.seq <= through && !walk.take(record)) throw new Enough();
      },
    });
  } catch (error) {
    if (!(error instanceof Enough)) throw error;
  } finally {
    await fs.close(fd).catch(() => undefined);
  }
  return walk.result;
}
