// DATA_DIR/keys.json: read whole, replaced whole (temporary file, fsync, rename) under DATA_DIR/keys.lock.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Role } from './principal.js';
import { acquireLock, LockHeldError } from '../lib/fs/lock.js';
import { replaceFile } from '../lib/fs/replace-file.js';

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
  let text: string;
  try {
    text = await fs.readFile(path.join(dataDir, KEY_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<KeyFile>;
  if (!Array.isArray(parsed.keys)) throw new Error(`${path.join(dataDir, KEY_FILE)} has no "keys" array`);
  return parsed.keys;
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
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const lock = acquireLock(dataDir, { file: LOCK_FILE });
      return () => lock.release();
    } catch (error) {
      if (!(error instanceof LockHeldError)) throw error;
      if (Date.now() > deadline) {
        const lockPath = path.join(dataDir, LOCK_FILE);
        throw new Error(`${lockPath} is held by process ${error.owner.pid} (since ${error.owner.started_at}), which is changing the keys; try again once it is done`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
