// A data folder's rate limits kept across a stop: a server restarted within a window goes on counting what the one
// before it admitted, so a restart never gives a key more than its limit in a window (API.md §6), nor an address
// more tries at keys. (On PostgreSQL both live in the database.)
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { replaceFile } from '../lib/fs/replace-file.js';
import type { AuthFailureThrottle, SavedThrottle } from './auth-failures.js';
import type { SavedWindows, SlidingWindowLimiter } from './sliding-window.js';

/** The file in the data folder: written at each stop, read at each start. */
export const LIMITS_FILE = 'rate-limits.json';

/** What the file holds. */
interface SavedLimits {
  version: 1;
  keys: SavedWindows;
  addresses: SavedThrottle;
}

/** Where a problem with the file is told (the server's log at warn). */
type Warn = (message: string, fields: Record<string, string>) => void;

/** The limits a data folder's server counts with. */
export interface FolderLimits {
  limiter: SlidingWindowLimiter;
  throttle: AuthFailureThrottle;
}

/**
 * Counts again what the last stop saved in `dataDir`; nothing when there is no file. A file that cannot be read as
 * one this program wrote is left out with a warning (a start never fails for it: the limits then start afresh).
 * A kill -9 leaves the file of the stop before: what it holds was admitted then, so counting it again is right.
 */
export async function restoreLimits(dataDir: string, limits: FolderLimits, nowMs: number, warn: Warn): Promise<void> {
  const file = path.join(dataDir, LIMITS_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') warn('could not read the rate limits saved at the last stop: they start afresh', { file, error: String(error) });
    return;
  }
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch {
    saved = undefined;
  }
  if (!isSavedLimits(saved)) {
    warn('the rate limits saved at the last stop are not in a form this program wrote: they start afresh', { file });
    return;
  }
  if (!limits.limiter.restore(saved.keys, nowMs)) {
    warn("the keys' rate limits saved at the last stop were counted in another window (--rate-window changed): they start afresh", { file });
  }
  if (!limits.throttle.restore(saved.addresses, nowMs)) warn('the failed authentications saved at the last stop were not counted in a window this build counts in: they start afresh', { file });
}

/** Writes what `limits` count into `dataDir`, replacing the file whole; a failure (a full disk) is only told. */
export async function saveLimits(dataDir: string, limits: FolderLimits, options: { sync: boolean; warn: Warn }): Promise<void> {
  const saved: SavedLimits = { version: 1, keys: limits.limiter.save(), addresses: limits.throttle.save() };
  const file = path.join(dataDir, LIMITS_FILE);
  await replaceFile(file, JSON.stringify(saved), { sync: options.sync }).catch((error: unknown) =>
    options.warn('could not save the rate limits: the next start counts from what the stop before this run saved, if any', { file, error: String(error) }),
  );
}

function isSavedLimits(value: unknown): value is SavedLimits {
  if (!isObject(value) || value['version'] !== 1 || !isWindows(value['keys']) || !isObject(value['addresses'])) return false;
  const { failures, blocked, prefixes } = value['addresses'];
  return isWindows(failures) && isPairs(blocked, (until) => typeof until === 'number') && isPairs(prefixes, (ends) => Array.isArray(ends) && ends.every((end) => typeof end === 'number'));
}

function isWindows(value: unknown): value is SavedWindows {
  return isObject(value) && typeof value['windowMs'] === 'number' && isPairs(value['keys'], (buckets) => Array.isArray(buckets) && buckets.every((n) => typeof n === 'number'));
}

/** An array of [string, T] pairs whose second members pass `check`. */
function isPairs(value: unknown, check: (second: unknown) => boolean): boolean {
  return Array.isArray(value) && value.every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && check(pair[1]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
