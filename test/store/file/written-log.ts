// Logs written by the real writers, for tests of the code that reads them back: a WriteQueue driven by seeded random
// writes (random-writes.ts), its batches appended to a log in a MemoryFileSystem, and compactLog over that log.
import assert from 'node:assert/strict';
import { seatsOf } from '../../../src/store/views/served-event.js';
import { compactLog } from '../../../src/store/file/log-compaction.js';
import { decodeLine } from '../../../src/store/records/group-line.js';
import type { LogRecord, MetaRecord } from '../../../src/store/records/jsonl-record.js';
import { newWriter, type Writer } from '../views/random-writes.js';
import { MemoryFileSystem } from './memory-file-system.js';

/** Where the tests keep the log in their MemoryFileSystem. */
export const FILE = '/data/events.jsonl';

/** A MemoryFileSystem holding an empty log at FILE. */
export function emptyLog(): MemoryFileSystem {
  const fs = new MemoryFileSystem();
  fs.files.set(FILE, Buffer.alloc(0));
  return fs;
}

/**
 * A writer that refuses a capacity below the confirmed registrations, as the HTTP handlers do (409) before a change
 * reaches the queue: the queue itself does not check it, and replay rightly refuses a log that breaks the invariant.
 */
export function guardedWriter(): Writer {
  const writer = newWriter();
  const queue = writer.queue;
  const write = queue.write.bind(queue);
  const writeGroup = queue.writeGroup.bind(queue);
  const refuse = (id: string, capacity: number, confirmed: number): void => {
    if (capacity < confirmed) throw new TypeError(`capacity cannot be ${capacity}: ${confirmed} attendees are registered for ${id}`);
  };
  queue.write = (id, change, options) =>
    write(id, (current) => {
      const next = change(current);
      if (next !== null && current !== undefined) refuse(id, next.capacity, seatsOf(current).registered);
      return next;
    }, options);
  queue.writeGroup = (change) =>
    writeGroup((view) => {
      const plan = change(view);
      for (const { id, record } of plan.events) if (record !== null) refuse(id, record.capacity, view.roster(id).confirmed);
      return plan;
    });
  return writer;
}

/** Appends the writer's batches from `from` on to the log, as the file store's persist does; returns how many there are now. */
export function appendBatches(fs: MemoryFileSystem, file: string, writer: Writer, from: number): number {
  for (const rows of writer.batches.slice(from)) fs.append(file, rows.map(({ line }) => `${line}\n`).join(''));
  return writer.batches.length;
}

/** Compacts the log as the file store does when the queue is idle; returns the newest deletion it dropped. */
export async function compact(fs: MemoryFileSystem, file: string, writer: Writer): Promise<number> {
  const views = writer.views;
  const fd = await fs.open(file, 'r');
  const log = { fd, length: fs.content(file).length, lines: 0 };
  let through = -1;
  let swapped = -1;
  await compactLog({
    fs,
    file,
    sync: false,
    committed: () => ({
      events: [...views.index.values()].sort((a, b) => a.seq - b.seq),
      registrations: [...views.rosters.entries()].flatMap(([, roster]) => [...roster.values()]),
      documents: views.documents.all(),
      log,
      lastSeq: views.changes.lastSeq,
      tombstones: new Map(views.changes.tombstones),
      horizon: views.changes.horizon,
      answers: views.idempotency.live(writer.clock.now),
    }),
    pause: async () => log,
    swap: (compactedLog, compactedThrough) => {
      swapped = compactedLog.fd;
      through = compactedThrough;
    },
    resume() {},
    refuse(error) {
      throw error;
    },
    stopping: () => false,
    namesLog: () => Promise.resolve(true),
    settle: () => Promise.resolve(),
  });
  assert.equal(fs.openCount, 1, 'compaction closed the old log and keeps the new one open');
  await fs.close(swapped);
  views.changes.dropDeletionsThrough(through);
  return views.changes.horizon;
}

/** The physical lines of a log: where each starts and ends (after its newline), and its records. */
export interface Line {
  start: number;
  end: number;
  records: (LogRecord | MetaRecord)[];
}

export function linesOf(bytes: Buffer): Line[] {
  const lines: Line[] = [];
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(10, start) + 1;
    const decoded = decodeLine(bytes, start, end - 1, undefined);
    assert.ok(typeof decoded !== 'string', `line at ${start}: ${String(decoded)}`);
    lines.push({ start, end, records: Array.isArray(decoded) ? decoded : [decoded] });
    start = end;
  }
  return lines;
}
