// DATA_DIR/keys.json: read whole, replaced whole (temporary file, fsync, rename) under DATA_DIR/keys.lock.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { ROLES, type Role } from './principal.js';
import { acquireLock, LockHeldError } from '../lib/fs/lock.js';
import { replaceFile } from '../lib/fs/replace-file.js';
import { readTextIfPresent } from '../lib/fs/read-text.js';

/** One key as stored: never its secret, only the secret's SHA-256. */
export interface KeyRecord {
  id: string;
  name: string;
  email: string;
  role: Role;
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

interface KeyFile {
  version: 1;
  keys: KeyRecord[];
}

export const KEY_FILE = 'keys.json';
const LOCK_FILE = 'keys.lock';
const LOCK_WAIT_MS = 5_000;

/** Every key in the folder, revoked ones included; none when the file does not exist yet. */
export async function readKeys(dataDir: string): Promise<KeyRecord[]> {
  const file = path.join(dataDir, KEY_FILE);
  const text = await readTextIfPresent(file);
  if (text === undefined) return [];
  let parsed: Partial<KeyFile> | null;
  try {
    parsed = JSON.parse(text) as Partial<KeyFile> | null;
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${oneLine((error as Error).message)}); restore it from a backup`);
  }
  if (parsed === null || typeof parsed !== 'object' || !Array.isArray(parsed.keys)) throw new Error(`${file} has no "keys" array; restore it from a backup`);
  for (const [index, key] of parsed.keys.entries()) {
    const fault = keyFault(key);
    if (fault !== undefined) throw new Error(`${file}: key ${index + 1} ${fault}; restore the file from a backup`);
  }
  return parsed.keys;
}

/** What is wrong with a stored key, or undefined: every field a reader of the file counts on. */
function keyFault(key: unknown): string | undefined {
  if (key === null || typeof key !== 'object' || Array.isArray(key)) return 'is not an object';
  const record = key as Record<string, unknown>;
  for (const field of ['id', 'name', 'email', 'hash', 'created_at'] as const) {
    if (typeof record[field] !== 'string') return `has no "${field}" string`;
  }
  if (!(ROLES as readonly unknown[]).includes(record['role'])) return `has role ${oneLine(JSON.stringify(record['role']) ?? 'none')}, not one of ${ROLES.join(', ')}`;
  if (!/^[0-9a-f]{64}$/.test(record['hash'] as string)) return 'has a "hash" that is not 64 hex digits';
  if (record['revoked_at'] !== null && record['revoked_at'] !== undefined && typeof record['revoked_at'] !== 'string') return 'has a "revoked_at" that is neither a time nor null';
  return undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

/**
 * Changes the key file under its lock: reads it, lets `change` edit the list, then, only if
 * the list changed, writes it whole beside the old one, fsyncs it, renames it over, and fsyncs
 * the folder. A change that changes nothing writes nothing (a start on a full disk still works).
 */
export async function updateKeys<T>(dataDir: string, change: (keys: KeyRecord[]) => T): Promise<T> {
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const release = await lockKeys(dataDir);
  try {
    const keys = await readKeys(dataDir);
    const before = JSON.stringify(keys);
    const result = change(keys);
    if (JSON.stringify(keys) !== before) await writeWhole(dataDir, { version: 1, keys });
    return result;
  } finally {
    release();
  }
}

async function writeWhole(dataDir: string, content: KeyFile): Promise<void> {
  // A full disk or a failed sync: keys.json is as it was, and no temporary file is left behind.
  await replaceFile(path.join(dataDir, KEY_FILE), JSON.stringify(content, null, 2) + '\n');
}

/**
 * Takes DATA_DIR/keys.lock as DATA_DIR/LOCK is taken (owner recorded, written whole, a dead
 * owner's lock taken over at once), waiting up to 5 s for a live writer to finish.
 */
async function lockKeys(dataDir: string): Promise<() => void> {
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const lock = acquireLock(dataDir, { file: LOCK_FILE });
      return () => lock.release();
    } catch (error) {
      if (!(error instanceof LockHeldError)) throw error;
      const lockPath = path.join(dataDir, LOCK_FILE);
      // Another host's lock is never taken over (its pid cannot be checked): waiting would not help.
      if (error.owner.host !== os.hostname()) {
        throw new Error(`${lockPath} is held by process ${error.owner.pid} on host ${JSON.stringify(error.owner.host)} (since ${error.owner.started_at}); a lock from another host is never taken over: delete ${lockPath} if that host no longer uses this folder`);
      }
      if (performance.now() > deadline) {
        throw new Error(`${lockPath} is held by process ${error.owner.pid} (since ${error.owner.started_at}), which is changing the keys; try again once it is done`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
