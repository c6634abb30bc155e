// A FileSystemSeam in memory that records every call (for tests that pin each call in its step), and fails, writes short or reads short on demand.
import type { FileSystemSeam } from '../../../src/store/file/file-system.js';

/** The seam's operations, as recorded in `RecordingFileSystem.calls` and counted for faults. */
export type SeamOp = keyof FileSystemSeam;

/** How a RecordingFileSystem misbehaves; call counts are 1-based, per operation, over every file. */
export interface MemoryFaults {
  /** The Nth call of an operation rejects with `code` (default EIO). */
  failAt?: Partial<Record<SeamOp, number>>;
  code?: string;
  /** Every write writes at most this many bytes. */
  maxWriteBytes?: number;
  /** Every read reads at most this many bytes. */
  maxReadBytes?: number;
  /** The Nth write writes nothing and resolves with 0. */
  zeroWriteAt?: number;
}

/** Files as byte arrays by path, descriptors from 10 on. */
export class RecordingFileSystem implements FileSystemSeam {
  readonly files = new Map<string, { bytes: Buffer }>();
  /** Every call, in order, as `op argument…` (descriptors by the path they were opened with). */
  readonly calls: string[] = [];
  readonly counts = new Map<SeamOp, number>();
  readonly faults: MemoryFaults;
  readonly #open = new Map<number, { path: string; file: { bytes: Buffer } }>();
  #nextFd = 10;

  constructor(faults: MemoryFaults = {}) {
    this.faults = faults;
  }

  /** Puts a file in place (or replaces it). */
  put(path: string, bytes: Buffer | string): void {
    this.files.set(path, { bytes: Buffer.from(bytes) });
  }

  /** A file's bytes as text (undefined when it does not exist). */
  text(path: string): string | undefined {
    return this.files.get(path)?.bytes.toString('utf8');
  }

  /** Descriptors still open, as the paths they were opened with. */
  openPaths(): string[] {
    return [...this.#open.values()].map((entry) => entry.path);
  }

  /** Opens an existing file for the test's own use (a log the code under test reads), without recording a call. */
  openQuietly(path: string): number {
    const file = this.files.get(path);
    if (file === undefined) throw new Error(`no file ${path}`);
    const fd = this.#nextFd++;
    this.#open.set(fd, { path, file });
    return fd;
  }

  #call(op: SeamOp, text: string): void {
    this.calls.push(`${op} ${text}`);
    const n = (this.counts.get(op) ?? 0) + 1;
    this.counts.set(op, n);
    if (this.faults.failAt?.[op] === n) {
      const code = this.faults.code ?? 'EIO';
      throw Object.assign(new Error(`${code}: injected ${op} failure`), { code });
    }
  }

  #entry(fd: number): { path: string; file: { bytes: Buffer } } {
    const entry = this.#open.get(fd);
    if (entry === undefined) throw Object.assign(new Error(`EBADF: fd ${fd}`), { code: 'EBADF' });
    return entry;
  }

  /** The path descriptor `fd` was opened with (`fdN` once closed). */
  pathOf(fd: number): string {
    return this.#open.get(fd)?.path ?? `fd${fd}`;
  }

  #name(fd: number): string {
    return this.pathOf(fd);
  }

  async mkdir(path: string): Promise<string | undefined> {
    this.#call('mkdir', path);
    return undefined;
  }

  async open(path: string, flags: string): Promise<number> {
    this.#call('open', `${path} ${flags}`);
    let file = this.files.get(path);
    if (file === undefined) {
      if (!/[wa]/.test(flags)) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      file = { bytes: Buffer.alloc(0) };
      this.files.set(path, file);
    } else if (flags.startsWith('w')) file.bytes = Buffer.alloc(0);
    const fd = this.#nextFd++;
    this.#open.set(fd, { path, file });
    return fd;
  }

  async read(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    this.#call('read', `${this.#name(fd)} ${length}@${position}`);
    const { file } = this.#entry(fd);
    const count = Math.max(0, Math.min(length, this.faults.maxReadBytes ?? length, file.bytes.length - position));
    file.bytes.copy(buffer, offset, position, position + count);
    return count;
  }

  async write(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    this.#call('write', `${this.#name(fd)} ${length}@${position}`);
    const { file } = this.#entry(fd);
    if (this.counts.get('write') === this.faults.zeroWriteAt) return 0;
    const count = Math.min(length, this.faults.maxWriteBytes ?? length);
    if (file.bytes.length < position + count) {
      const bigger = Buffer.alloc(position + count);
      file.bytes.copy(bigger);
      file.bytes = bigger;
    }
    buffer.copy(file.bytes, position, offset, offset + count);
    return count;
  }

  async fdatasync(fd: number): Promise<void> {
    this.#call('fdatasync', this.#name(fd));
  }

  async fsync(fd: number): Promise<void> {
    this.#call('fsync', this.#name(fd));
  }

  async ftruncate(fd: number, length: number): Promise<void> {
    this.#call('ftruncate', `${this.#name(fd)} ${length}`);
    const entry = this.#entry(fd);
    entry.file.bytes = Buffer.concat([entry.file.bytes, Buffer.alloc(Math.max(0, length - entry.file.bytes.length))]).subarray(0, length);
  }

  async size(fd: number): Promise<number> {
    this.#call('size', this.#name(fd));
    return this.#entry(fd).file.bytes.length;
  }

  async close(fd: number): Promise<void> {
    this.#call('close', this.#name(fd));
    this.#entry(fd);
    this.#open.delete(fd);
  }

  async rename(from: string, to: string): Promise<void> {
    this.#call('rename', `${from} ${to}`);
    const file = this.files.get(from);
    if (file === undefined) throw Object.assign(new Error(`ENOENT: ${from}`), { code: 'ENOENT' });
    this.files.delete(from);
    this.files.set(to, file);
  }

  async unlink(path: string): Promise<boolean> {
    this.#call('unlink', path);
    return this.files.delete(path);
  }

  async syncDirectory(path: string): Promise<void> {
    this.#call('syncDirectory', path);
  }

  /** Files are told apart by object: an id is given to each the first time it is asked for. */
  readonly #ids = new WeakMap<object, string>();

  #idOf(file: { bytes: Buffer }): string {
    let id = this.#ids.get(file);
    if (id === undefined) this.#ids.set(file, (id = `file${this.#nextId++}`));
    return id;
  }

  #nextId = 1;

  async fileId(fd: number): Promise<string> {
    this.#call('fileId', this.#name(fd));
    return this.#idOf(this.#entry(fd).file);
  }

  async pathId(path: string): Promise<string | undefined> {
    this.#call('pathId', path);
    const file = this.files.get(path);
    return file === undefined ? undefined : this.#idOf(file);
  }

  async link(existing: string, to: string): Promise<void> {
    this.#call('link', `${existing} ${to}`);
    const file = this.files.get(existing);
    if (file === undefined) throw Object.assign(new Error(`ENOENT: ${existing}`), { code: 'ENOENT' });
    if (this.files.has(to)) throw Object.assign(new Error(`EEXIST: ${to}`), { code: 'EEXIST' });
    this.files.set(to, file);
  }
}
