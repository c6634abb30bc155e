// The few file operations the file store uses, behind one seam so tests can make the Nth write or sync fail.
import * as fs from 'node:fs';

/** Async file operations on descriptors; the default is node:fs. */
export interface FileSystemSeam {
  /** Creates a folder and its parents; resolves with the first folder it created, if any. */
  mkdir(path: string): Promise<string | undefined>;
  open(path: string, flags: string): Promise<number>;
  /** Reads up to `length` bytes at `position` into `buffer` at `offset`; resolves with the count (0 at the end). */
  read(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number>;
  /** Writes up to `length` bytes at `position`; resolves with the count, which may be short. */
  write(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number>;
  fdatasync(fd: number): Promise<void>;
  fsync(fd: number): Promise<void>;
  ftruncate(fd: number, length: number): Promise<void>;
  size(fd: number): Promise<number>;
  /** The open file's identity (its device and inode), to compare with pathId's. */
  fileId(fd: number): Promise<string>;
  /** The identity of the file `path` names, or undefined when it names none. */
  pathId(path: string): Promise<string | undefined>;
  close(fd: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** Gives the file `existing` a second name `to`; fails with EEXIST when `to` is there. */
  link(existing: string, to: string): Promise<void>;
  /** Removes a file; resolves false when it was not there. */
  unlink(path: string): Promise<boolean>;
  /** Makes a folder's entries (a created or renamed file) durable. */
  syncDirectory(path: string): Promise<void>;
}

type Callback<T> = (error: NodeJS.ErrnoException | null, value: T) => void;

function call<T>(start: (done: Callback<T>) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, value) => (error === null ? resolve(value) : reject(error))));
}

/** node:fs through callbacks (lighter than FileHandle objects on the hot path). */
export const nodeFileSystem: FileSystemSeam = {
  // The log holds organizers' (and attendees') e-mails: a folder the service creates is 0700 and
  // every file it creates 0600, whatever the umask would let others read.
  mkdir: (path) => call((done) => fs.mkdir(path, { recursive: true, mode: 0o700 }, done)),
  open: (path, flags) => call((done) => fs.open(path, flags, 0o600, done)),
  read: (fd, buffer, offset, length, position) => call((done) => fs.read(fd, buffer, offset, length, position, done)),
  write: (fd, buffer, offset, length, position) => call((done) => fs.write(fd, buffer, offset, length, position, done)),
  fdatasync: (fd) => call<void>((done) => fs.fdatasync(fd, (error) => done(error, undefined))),
  fsync: (fd) => call<void>((done) => fs.fsync(fd, (error) => done(error, undefined))),
  ftruncate: (fd, length) => call<void>((done) => fs.ftruncate(fd, length, (error) => done(error, undefined))),
  size: (fd) => call<number>((done) => fs.fstat(fd, (error, stats) => done(error, stats?.size ?? 0))),
  fileId: (fd) => call<string>((done) => fs.fstat(fd, (error, stats) => done(error, error === null ? `${stats.dev}:${stats.ino}` : ''))),
  pathId: (path) =>
    call<string | undefined>((done) => fs.stat(path, (error, stats) => (error?.code === 'ENOENT' ? done(null, undefined) : done(error, error === null ? `${stats.dev}:${stats.ino}` : undefined)))),
  close: (fd) => call<void>((done) => fs.close(fd, (error) => done(error, undefined))),
  rename: (from, to) => call<void>((done) => fs.rename(from, to, (error) => done(error, undefined))),
  link: (existing, to) => call<void>((done) => fs.link(existing, to, (error) => done(error, undefined))),
  unlink: (path) =>
    call<boolean>((done) => fs.unlink(path, (error) => (error?.code === 'ENOENT' ? done(null, false) : done(error, error === null)))),
  async syncDirectory(path) {
    const fd = await call<number>((done) => fs.open(path, 'r', done));
    try {
      await call<void>((done) => fs.fsync(fd, (error) => done(error, undefined)));
    } finally {
      await call<void>((done) => fs.close(fd, (error) => done(error, undefined)));
    }
  },
};
