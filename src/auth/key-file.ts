// DATA_DIR/keys.json: read whole, replaced whole (temporary file, fsync, rename) under DATA_DIR/keys.lock.
import { promises as fs, constants } from 'node:fs';
import path from 'node:path';
import type { Role } from './principal.js';

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
const STALE_LOCK_MS = 30_000;

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
 * Changes the key file under its lock: reads it, lets `change` edit the list, then writes
 * it whole beside the old one, fsyncs it, renames it over, and fsyncs the folder.
 */
export async function updateKeys<T>(dataDir: string, change: (keys: KeyRecord[]) => T): Promise<T> {
  await fs.mkdir(dataDir, { recursive: true });
  const release = await lockKeys(dataDir);
  try {
    const keys = await readKeys(dataDir);
    const result = change(keys);
    await writeWhole(dataDir, { version: 1, keys });
    return result;
  } finally {
    await release();
  }
}

async function writeWhole(dataDir: string, content: KeyFile): Promise<void> {
  const target = path.join(dataDir, KEY_FILE);
  const temporary = `${target}.tmp-${process.pid}`;
  const handle = await fs.open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(JSON.stringify(content, null, 2) + '\n');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temporary, target);
  await syncFolder(dataDir);
}

/** fsyncs a folder so a rename or a new file in it survives a power cut. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await fs.open(folder, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function lockKeys(dataDir: string): Promise<() => Promise<void>> {
  const lockPath = path.join(dataDir, LOCK_FILE);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await fs.open(lockPath, 'wx');
      await handle.writeFile(JSON.stringify({ pid: process.pid, at: new Date().toISOString() }));
      await handle.close();
      return () => fs.rm(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const stat = await fs.stat(lockPath).catch(() => undefined);
      if (stat !== undefined && Date.now() - stat.mtimeMs > STALE_LOCK_MS) {
        await fs.rm(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${lockPath} is held by another writer; try again, or remove it if no campus-events command is running`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
