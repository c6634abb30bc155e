// A file-system seam over files held in memory, for fast tests of the code that reads and writes the log through it:
// counts the calls a test may pin (reads, sizes, opens, closes), and can run a hook before each read.
import type { FileSystemSeam } from '../../../src/store/file/file-system.js';

function missing(path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file, '${path}'`), { code: 'ENOENT' });
}

const FLAGS = new Set(['r', 'r+', 'w', 'w+', 'a', 'a+']);

/** Files by path, each a growing byte array; descriptors name a path. */
export class MemoryFileSystem implements FileSystemSeam {
  readonly files = new Map<string, Buffer>();
  readonly #open = new Map<number, string>();
  #nextFd = 3;
  reads = 0;
  sizes = 0;
  opens = 0;
  closes = 0;
  /** Runs before each read (after counting it): a test may append to a file while it is read. */
  beforeRead: ((fd: number) => void) | undefined;
  /** The error `open` rejects with, when set. */
  openError: Error | undefined;
  /** The error `close` rejects with, when set (a close that fails must not change what a read returns). */
  closeError: Error | undefined;

  /** The bytes of the file at `path`. */
  content(path: string): Buffer {
    const file = this.files.get(path);
    if (file === undefined) throw missing(path);
    return file;
  }

  /** Appends bytes to the file at `path`, creating it. */
  append(path: string, bytes: Buffer | string): void {
    this.files.set(path, Buffer.concat([this.files.get(path) ?? Buffer.alloc(0), Buffer.from(bytes)]));
  }

  /** Descriptors still open. */
  get openCount(): number {
    return this.#open.size;
  }

  #path(fd: number): string {
    const path = this.#open.get(fd);
    if (path === undefined) throw Object.assign(new Error(`EBADF: fd ${fd}`), { code: 'EBADF' });
    return path;
  }

  async mkdir(): Promise<string | undefined> {
    return undefined;
  }

  async open(path: string, flags: string): Promise<number> {
    if (this.openError !== undefined) throw this.openError;
    if (!FLAGS.has(flags)) throw Object.assign(new Error(`invalid flags ${JSON.stringify(flags)}`), { code: 'ERR_INVALID_ARG_VALUE' });
    if (flags.startsWith('w')) this.files.set(path, Buffer.alloc(0));
    else if (!this.files.has(path)) {
      if (!flags.startsWith('a')) throw missing(path);
      this.files.set(path, Buffer.alloc(0));
    }
    this.opens++;
    const fd = this.#nextFd++;
    this.#open.set(fd, path);
    return fd;
  }

  async read(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    this.reads++;
    this.beforeRead?.(fd);
    const file = this.content(this.#path(fd));
    const count = Math.max(0, Math.min(length, file.length - position));
    file.copy(buffer, offset, position, position + count);
    return count;
  }

  async write(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    const path = this.#path(fd);
    let file = this.content(path);
    if (file.length < position + length) {
      const grown = Buffer.alloc(position + length);
      file.copy(grown);
      file = grown;
    }
    buffer.copy(file, position, offset, offset + length);
    this.files.set(path, file);
    return length;
  }

  async fdatasync(): Promise<void> {}
  async fsync(): Promise<void> {}
  async syncDirectory(): Promise<void> {}

  async ftruncate(fd: number, length: number): Promise<void> {
    const path = this.#path(fd);
    this.files.set(path, Buffer.from(this.content(path).subarray(0, length)));
  }

  async size(fd: number): Promise<number> {
    this.sizes++;
    return this.content(this.#path(fd)).length;
  }

  async close(fd: number): Promise<void> {
    this.#path(fd);
    this.#open.delete(fd);
    this.closes++;
    if (this.closeError !== undefined) throw this.closeError;
  }

  async rename(from: string, to: string): Promise<void> {
    this.files.set(to, this.content(from));
    this.files.delete(from);
    for (const [fd, path] of this.#open) if (path === from) this.#open.set(fd, to);
  }

  async unlink(path: string): Promise<boolean> {
    return this.files.delete(path);
  }

  /** A file here is its path (renames move descriptors along). */
  async fileId(fd: number): Promise<string> {
    return this.#path(fd);
  }

  async pathId(path: string): Promise<string | undefined> {
    return this.files.has(path) ? path : undefined;
  }

  /** A copy under the new name (files here do not share bytes). */
  async link(existing: string, to: string): Promise<void> {
    if (this.files.has(to)) throw Object.assign(new Error(`EEXIST: '${to}'`), { code: 'EEXIST' });
    this.files.set(to, Buffer.from(this.content(existing)));
  }
}
