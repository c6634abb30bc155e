// DATA_DIR/LOCK: one writer per data folder; a lock left by a process that no longer runs is taken over.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { currentBootId, processIsZombie, processStartTime } from './process-identity.js';
import { errorCode } from '../error-code.js';
import { readTextIfPresentSync } from './read-text.js';

/** What a lock file says about its owner. */
export interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
  /** The boot the owner ran in (Linux), so a lock from before a reboot or power cut is known stale. */
  boot_id?: string;
  /** The owner's start time in clock ticks after boot (Linux), so a pid reused by another process is not taken for the owner. */
  process_start?: string;
}

/** A held lock. */
export interface Lock {
  readonly path: string;
  readonly owner: LockOwner;
  /** The lock this one replaced: left by a process that no longer runs (`unreadable`: a file that named none). */
  readonly tookOver: LockOwner | 'unreadable' | undefined;
  /** Removes the lock file (if it is still ours). Safe to call twice. */
  release(): void;
}

/** Options of acquireLock; the defaults describe this process. */
export interface LockOptions {
  pid?: number;
  host?: string;
  /** The clock, ms since the epoch, for `started_at`. */
  now?: () => number;
  /** The lock file's name inside the folder. Default `LOCK`. */
  file?: string;
  /** Whether a process runs on this host. Default: `process.kill(pid, 0)` does not fail with ESRCH, and it is no zombie. */
  isRunning?: (pid: number) => boolean;
  /** This machine's boot id; undefined where unknown. Default: read from /proc (Linux). */
  bootId?: string | undefined;
  /** When a running process started (ticks after boot), or undefined if unknown. Default: read from /proc (Linux). */
  startTimeOf?: (pid: number) => string | undefined;
}

/** Thrown when another live process holds the lock; its message names the owner's pid. */
export class LockHeldError extends Error {
  readonly owner: LockOwner;

  constructor(lockPath: string, owner: LockOwner) {
    // The same process holds it when an embedding program opens one folder twice: deleting the lock would be wrong then.
    const ours = owner.pid === process.pid && owner.host === os.hostname();
    super(
      ours
        ? `The data folder ${path.dirname(lockPath)} is already open in this process (since ${owner.started_at}): one writer per folder. Close the app that has it open first.`
        : `The data folder ${path.dirname(lockPath)} is in use by process ${owner.pid} on host ${JSON.stringify(owner.host)} ` +
            `(since ${owner.started_at}): one writer per folder. Stop that process, or delete ${lockPath} if it no longer runs.`,
    );
    this.name = 'LockHeldError';
    this.owner = owner;
  }
}

/**
 * Lock files this process holds, so a second open in the same process is refused rather than taken over: by the
 * folder's device and inode, so the same folder named another way (a symlink, a bind mount) is the same folder.
 */
const heldHere = new Set<string>();

/** What `heldHere` knows a lock file by: its folder's identity and its name (the path itself where the folder is gone). */
function heldKey(lockPath: string): string {
  try {
    const { dev, ino } = fs.statSync(path.dirname(lockPath));
    return `${dev}:${ino}/${path.basename(lockPath)}`;
  } catch {
    return lockPath;
  }
}

/** Creates `dataDir/LOCK` (or `options.file`) naming this process, taking over a lock whose owner no longer runs. */
export function acquireLock(dataDir: string, options: LockOptions = {}): Lock {
  const lockPath = path.resolve(dataDir, options.file ?? 'LOCK');
  const pid = options.pid ?? process.pid;
  const bootId = 'bootId' in options ? options.bootId : currentBootId();
  const startTimeOf = options.startTimeOf ?? processStartTime;
  const processStart = startTimeOf(pid);
  const owner: LockOwner = {
    pid,
    host: options.host ?? os.hostname(),
    started_at: new Date((options.now ?? Date.now)()).toISOString(),
    ...(bootId === undefined ? {} : { boot_id: bootId }),
    ...(processStart === undefined ? {} : { process_start: processStart }),
  };
  const content = JSON.stringify(owner) + '\n';
  const isRunning = options.isRunning ?? processIsRunning;
  const key = heldKey(lockPath);
  const alive = (existing: LockOwner): boolean => ownerIsAlive(existing, owner, key, { isRunning, startTimeOf });
  let tookOver: LockOwner | 'unreadable' | undefined;
  // A few tries: another process may take over the same stale lock between our unlink and our create.
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createExclusive(lockPath, content)) {
      heldHere.add(key);
      return { path: lockPath, owner, tookOver, release: () => release(lockPath, key, content) };
    }
    const text = readTextIfPresentSync(lockPath);
    if (text === undefined) continue;
    const existing = parseOwner(text);
    if (existing !== 'unreadable' && alive(existing)) throw new LockHeldError(lockPath, existing);
    // Left by a process that no longer runs (kill -9, power cut, a pid now another process's): take it over, unless
    // another starter took it over first, whose new lock is then left in place.
    if (removeIfStill(lockPath, text)) tookOver = existing;
  }
  throw new Error(`Could not take ${lockPath}: other processes keep creating it.`);
}

/**
 * For a read-only start (a full disk, where no LOCK can be written): throws LockHeldError when a
 * live process holds the folder, as acquireLock would; otherwise takes nothing and changes nothing.
 */
export function assertLockFree(dataDir: string, options: LockOptions = {}): void {
  const lockPath = path.resolve(dataDir, options.file ?? 'LOCK');
  const text = readTextIfPresentSync(lockPath);
  if (text === undefined) return;
  const existing = parseOwner(text);
  if (existing === 'unreadable') return;
  const pid = options.pid ?? process.pid;
  const bootId = 'bootId' in options ? options.bootId : currentBootId();
  const self: LockOwner = { pid, host: options.host ?? os.hostname(), started_at: '', ...(bootId === undefined ? {} : { boot_id: bootId }) };
  const probe = { isRunning: options.isRunning ?? processIsRunning, startTimeOf: options.startTimeOf ?? processStartTime };
  if (ownerIsAlive(existing, self, heldKey(lockPath), probe)) throw new LockHeldError(lockPath, existing);
}

function ownerIsAlive(
  existing: LockOwner,
  self: LockOwner,
  key: string,
  probe: { isRunning: (pid: number) => boolean; startTimeOf: (pid: number) => string | undefined },
): boolean {
  // On another host the pid means nothing here, so the lock stands (a shared folder must not get two writers).
  if (existing.host !== self.host) return true;
  // Our own pid in a lock we did not take: a previous run that had the same pid (pid 1 in a container).
  if (existing.pid === self.pid) return heldHere.has(key);
  // Written before this boot (a power cut, a reboot): its owner is gone, whatever now has its pid.
  if (existing.boot_id !== undefined && self.boot_id !== undefined && existing.boot_id !== self.boot_id) return false;
  if (!probe.isRunning(existing.pid)) return false;
  // The pid runs, but a process that started at another time is not the owner: the pid was reused.
  if (existing.process_start !== undefined) {
    const start = probe.startTimeOf(existing.pid);
    if (start !== undefined && start !== existing.process_start) return false;
  }
  return true;
}

/** Writes the content beside the lock, then links it into place: the lock never exists half-written. */
function createExclusive(lockPath: string, content: string): boolean {
  const temporary = `${lockPath}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(temporary, content, { flag: 'wx', flush: true });
  } catch (error) {
    // On a full disk the create succeeds and the write fails: leave nothing behind.
    unlinkIfPresent(temporary);
    throw error;
  }
  try {
    fs.linkSync(temporary, lockPath);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    // A file system without hard links: fall back to an exclusive create.
    return createWithFlag(lockPath, content);
  } finally {
    unlinkIfPresent(temporary);
  }
}

function createWithFlag(lockPath: string, content: string): boolean {
  try {
    fs.writeFileSync(lockPath, content, { flag: 'wx', flush: true });
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Removes the lock file if it still holds `stale`, the bytes judged stale; false if it holds another's. It is renamed
 * aside first, which is atomic: a lock another starter made since it was read (having taken the same stale one
 * over) is put back, not deleted, so the folder never gets two writers that way.
 */
function removeIfStill(lockPath: string, stale: string): boolean {
  const aside = `${lockPath}.${randomBytes(6).toString('hex')}.stale`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
  try {
    if (fs.readFileSync(aside, 'utf8') === stale) return true;
    // Put back without replacing: a link fails where a lock was made meanwhile (a rename would delete that one).
    try {
      fs.linkSync(aside, lockPath);
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false;
      fs.renameSync(aside, lockPath);
    }
    return false;
  } finally {
    unlinkIfPresent(aside);
  }
}

function parseOwner(text: string): LockOwner | 'unreadable' {
  try {
    // Checked field by field below.
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    if (Number.isSafeInteger(parsed.pid) && typeof parsed.host === 'string') {
      return {
        pid: parsed.pid!,
        host: parsed.host,
        started_at: String(parsed.started_at),
        ...(typeof parsed.boot_id === 'string' ? { boot_id: parsed.boot_id } : {}),
        ...(typeof parsed.process_start === 'string' ? { process_start: parsed.process_start } : {}),
      };
    }
  } catch {
    // Not JSON: handled below.
  }
  return 'unreadable';
}

function release(lockPath: string, key: string, content: string): void {
  if (!heldHere.delete(key)) return;
  try {
    if (fs.readFileSync(lockPath, 'utf8') === content) fs.unlinkSync(lockPath);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}

function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A signal reaches a zombie too: one killed (kill -9) whose parent has not collected it yet no longer runs.
    return !processIsZombie(pid);
  } catch (error) {
    // EPERM: it runs, under another user.
    return errorCode(error) !== 'ESRCH';
  }
}

function unlinkIfPresent(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}
