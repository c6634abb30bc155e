// CPU time of a throwaway PostgreSQL server: the postmaster and every process it forked (backends, WAL writer, checkpointer).
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { processCpuMs } from './server-process.js';

/** The parent pid of `pid` from /proc/PID/stat, or undefined once it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** A reader of the server's CPU so far, in ms (of the processes alive when read: backends that ended take theirs along). */
export function postgresCpu(dataDir: string): () => number {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return () => {
    let total = processCpuMs(postmaster);
    for (const name of readdirSync('/proc')) {
      const pid = Number(name);
      if (Number.isInteger(pid) && parentOf(pid) === postmaster) total += processCpuMs(pid) || 0;
    }
    return total;
  };
}
