// Who a pid is: the boot it belongs to and when it started, so a lock outlives neither a reboot nor a reused pid.
import * as fs from 'node:fs';

/** This machine's boot id (Linux: /proc/sys/kernel/random/boot_id), or undefined where there is none. */
export function currentBootId(): string | undefined {
  try {
    const id = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return id === '' ? undefined : id;
  } catch {
    return undefined;
  }
}

/**
 * When process `pid` started, in clock ticks after boot (Linux: field 22 of /proc/PID/stat), as
 * text; undefined when it does not run or the system does not say. Two processes that had the
 * same pid in one boot have different start times.
 */
export function processStartTime(pid: number): string | undefined {
  const start = statField(pid, 22);
  return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}

/**
 * True when process `pid` has ended but its parent has not yet collected it (Linux: state Z or X in /proc/PID/stat):
 * a server killed with SIGKILL is such a zombie until whoever started it waits for it, and it holds nothing.
 */
export function processIsZombie(pid: number): boolean {
  const state = statField(pid, 3);
  return state === 'Z' || state === 'X';
}

/** Field `n` of /proc/PID/stat (numbered as in proc(5), from 3 on), or undefined where there is none. */
function statField(pid: number, n: number): string | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ")": count from the last ")".
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[n - 3];
}
