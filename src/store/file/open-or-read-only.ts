// Opening the file store on a full disk: rather than refuse to start, start read-only and say why.
import path from 'node:path';
import { nodeFileSystem } from './file-system.js';
import { LOG_FILE, openFileStore, type FileStoreOptions } from './open-file-store.js';
import type { FileStore } from './file-store.js';
import { describeWriteError } from '../store-errors.js';
import { errorCode } from '../../lib/error-code.js';

/** Error codes that mean "the disk cannot take more now", not "the data is wrong". */
const NO_ROOM = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);

/** True when `error` says the file system has no room (or is read-only). */
export function isNoRoom(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && NO_ROOM.has(code);
}

/**
 * openFileStore, and when the start itself needs room the disk does not have (the LOCK, a torn
 * tail to set aside), the store opened read-only instead: reads served, writes refused with the
 * reason, nothing left behind in the folder. A restart once there is room opens it writable.
 */
export async function openFileStoreOrReadOnly(options: FileStoreOptions): Promise<FileStore> {
  try {
    return await openFileStore(options);
  } catch (error) {
    if (!isNoRoom(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    // The operator's remedy differs: room on the disk, or the mount made writable.
    const mounted = code === 'EROFS';
    // A first start has nothing to serve: read-only, it would only leave an empty log behind.
    if (!(await hasLog(options))) {
      const message = mounted
        ? `${path.resolve(options.dataDir)} is on a read-only file system (${describeWriteError(error)}): mount it read-write and start again`
        : `${path.resolve(options.dataDir)} has no room for a first start (${describeWriteError(error)}): free some space and start again`;
      throw Object.assign(new Error(message, { cause: error }), { code });
    }
    const why = mounted
      ? 'the data folder is on a read-only file system: serving reads only, writes get 503 until a restart once it is mounted read-write'
      : 'the data folder has no room to start writable: serving reads only, writes get 503 until a restart once there is room';
    options.logger?.warn(why, {
      data_dir: options.dataDir,
      error: describeWriteError(error),
      detail: String(error),
    });
    return openFileStore({ ...options, readOnly: { reason: error } });
  }
}

/** True when the folder holds a log (a start before this one wrote it). */
async function hasLog(options: FileStoreOptions): Promise<boolean> {
  const fs = options.fs ?? nodeFileSystem;
  try {
    await fs.close(await fs.open(path.join(path.resolve(options.dataDir), LOG_FILE), 'r'));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
