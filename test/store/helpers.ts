// Shared test helpers for the store: sample records, temporary folders, and file-system seams that fail or wait on demand.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EventRecord, StoredEvent } from '../../src/events/event.js';
import { nodeFileSystem } from '../../src/store/file/file-system.js';
import type { FileSystemSeam } from '../../src/store/file/file-system.js';

/** A valid event id for a number: `evt_` + 16 digits. */
export function eventId(n: number): string {
  return `evt_${String(n).padStart(16, '0')}`;
}

/** A valid record; `overrides` replace fields. */
export function sampleRecord(n: number, overrides: Partial<EventRecord> = {}): EventRecord {
  return {
    id: eventId(n),
    title: `Event ${n}`,
    description: '',
    category: 'academic',
    location: 'Main hall',
    start_time: '2026-09-01T17:00:00.000Z',
    end_time: '2026-09-01T19:00:00.000Z',
    capacity: 100,
    registered_count: 0,
    organizer: { name: 'Ada Lovelace', email: 'Ada@Campus.example' },
    created_at: '2026-08-01T12:00:00.000Z',
    ...overrides,
  };
}

/**
 * Every field of a stored event read through its accessors, as a plain object: what deepEqual compares when
 * one side was replayed (a packed event, whose fields are getters) and the other written (plain fields).
 */
export function eventFields(stored: StoredEvent | undefined): Record<string, unknown> | undefined {
  if (stored === undefined) return undefined;
  const { id, startMs, endMs, category, organizerEmail, createdAt, seq, modifiedMs, json, seriesId } = stored;
  return { id, startMs, endMs, category, organizerEmail, createdAt, seq, modifiedMs, json, seriesId };
}

/** A new empty folder under the OS temp folder, removed when the test ends. */
export function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campus-store-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** How a TestFileSystem misbehaves. Call counts are 1-based and count calls on any file. */
export interface Faults {
  /** The Nth write fails (after writing half its bytes, when `partial`). */
  failWriteAt?: number;
  partial?: boolean;
  /** The Nth fdatasync fails. */
  failSyncAt?: number;
  /** The error code thrown. Default ENOSPC. */
  code?: string;
  /** Every write writes at most this many bytes (short writes). */
  maxWriteBytes?: number;
  /** fsync, fdatasync and folder syncs do nothing (fast tests that are not about durability). */
  noSync?: boolean;
}

/** A node:fs seam that counts calls, injects faults, and can hold each fdatasync until released. */
export class TestFileSystem implements FileSystemSeam {
  writes = 0;
  syncs = 0;
  readonly faults: Faults;
  #gate: { promise: Promise<void>; release: () => void } | undefined;
  #syncStarted: (() => void)[] = [];

  constructor(faults: Faults = {}) {
    this.faults = faults;
  }

  /** From now on, each fdatasync waits until `release()`. */
  holdSyncs(): void {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    this.#gate = { promise, release };
  }

  /** Lets the held fdatasyncs finish, and stops holding. */
  release(): void {
    const gate = this.#gate;
    this.#gate = undefined;
    gate?.release();
  }

  /** Resolves when the next fdatasync starts. */
  nextSync(): Promise<void> {
    return new Promise((resolve) => this.#syncStarted.push(resolve));
  }

  #fault(what: string): Error {
    const code = this.faults.code ?? 'ENOSPC';
    return Object.assign(new Error(`${code}: injected ${what} failure`), { code });
  }

  mkdir = nodeFileSystem.mkdir;
  open = nodeFileSystem.open;
  read = nodeFileSystem.read;
  ftruncate = nodeFileSystem.ftruncate;
  size = nodeFileSystem.size;
  close = nodeFileSystem.close;
  rename = nodeFileSystem.rename;
  unlink = nodeFileSystem.unlink;
  fileId = nodeFileSystem.fileId;
  pathId = nodeFileSystem.pathId;
  link = nodeFileSystem.link;

  async write(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    this.writes++;
    if (this.writes === this.faults.failWriteAt) {
      if (this.faults.partial === true && length > 1) await nodeFileSystem.write(fd, buffer, offset, Math.floor(length / 2), position);
      throw this.#fault('write');
    }
    return nodeFileSystem.write(fd, buffer, offset, Math.min(length, this.faults.maxWriteBytes ?? length), position);
  }

  async fdatasync(fd: number): Promise<void> {
    this.syncs++;
    const started = this.#syncStarted;
    this.#syncStarted = [];
    for (const resolve of started) resolve();
    if (this.#gate !== undefined) await this.#gate.promise;
    if (this.syncs === this.faults.failSyncAt) throw this.#fault('fdatasync');
    if (this.faults.noSync !== true) await nodeFileSystem.fdatasync(fd);
  }

  fsync(fd: number): Promise<void> {
    return this.faults.noSync === true ? Promise.resolve() : nodeFileSystem.fsync(fd);
  }

  syncDirectory(dir: string): Promise<void> {
    return this.faults.noSync === true ? Promise.resolve() : nodeFileSystem.syncDirectory(dir);
  }
}

/** The lines of a log file, each with its newline. */
export function logLines(file: string): string[] {
  return (fs.readFileSync(file, 'utf8').match(/[^\n]*\n/g) ?? []);
}
