// Opening the file store on a full disk: rather than refuse to start, start read-only and say why.
import { openFileStore, type FileStoreOptions } from './open-file-store.js';
import type { FileStore } from './file-store.js';
import { describeWriteError } from '../store-errors.js';

/** Error codes that mean "the disk cannot take more now", not "the data is wrong". */
const NO_ROOM = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);

/** True when `error` says the file system has no room (or is read-only). */
export function isNoRoom(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && NO_ROOM.has(code);
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
    options.logger?.warn('the data folder has no room to start writable: serving reads only, writes get 503 until a restart once there is room', {
      data_dir: options.dataDir,
      error: describeWriteError(error),
      detail: String(error),
    });
    return openFileStore({ ...options, readOnly: { reason: error } });
  }
}
