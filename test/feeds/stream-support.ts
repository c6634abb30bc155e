// Shared helpers of the change-stream tests: fake timers, a recording sink, and a stream opened through the core.
import assert from 'node:assert/strict';
import type { App } from '../../src/app.js';
import type { StreamTimers } from '../../src/feeds/change-stream.js';
import type { StreamSink } from '../../src/http/types.js';
import { toStored } from '../../src/store/views/served-event.js';
import type { StoredEvent } from '../../src/events/event.js';
import { ChangeLog } from '../../src/store/views/change-log.js';
import { eventId, sampleRecord } from '../store/helpers.js';

/** Timers that run only when a test fires them. */
export class FakeTimers implements StreamTimers {
  readonly #tasks = new Set<{ ms: number; run: () => void }>();

  every(ms: number, run: () => void): () => void {
    const task = { ms, run };
    this.#tasks.add(task);
    return () => this.#tasks.delete(task);
  }

  /** Runs every task repeating each `ms`, as if that much time passed. */
  fire(ms: number): void {
    for (const task of [...this.#tasks]) if (task.ms === ms) task.run();
  }

  get pending(): number {
    return this.#tasks.size;
  }
}

/** A sink that records what was written; `full` makes writes report a full buffer. */
export class RecordingSink implements StreamSink {
  text = '';
  ended = false;
  full = false;
  #drain: (() => void) | undefined;

  write(text: string): boolean {
    assert.equal(this.ended, false, 'nothing is written after the end');
    this.text += text;
    return !this.full;
  }

  onDrain(callback: () => void): void {
    this.#drain = callback;
  }

  end(): void {
    this.ended = true;
  }

  /** The buffer has room again. */
  drain(): void {
    this.full = false;
    const drain = this.#drain;
    this.#drain = undefined;
    drain?.();
  }

  /** The entries received, parsed from their `data:` lines, checking each frame's id and event name. */
  get entries(): { seq: number; id: string; deleted: boolean; event: Record<string, unknown> | null }[] {
    const frames = this.text.split('\n\n').filter((frame) => frame !== '' && !frame.startsWith(':'));
    return frames.map((frame) => {
      const [idLine, eventLine, dataLine] = frame.split('\n');
      const entry = JSON.parse(dataLine!.slice('data: '.length));
      assert.equal(idLine, `id: ${entry.seq}`);
      assert.equal(eventLine, 'event: change');
      return entry;
    });
  }
}

/** Opens a change stream through the core; asserts a 200 and starts it on a recording sink. */
export async function openStream(app: App, key: string, target: string, headers: Record<string, string> = {}): Promise<{ sink: RecordingSink; cancel: () => void; headers: Record<string, string> }> {
  const response = await app.handle({
    method: 'GET',
    target,
    headers: { host: 'localhost', accept: 'text/event-stream', authorization: `Bearer ${key}`, ...headers },
    body: null,
    bodyTooLarge: false,
    remoteAddress: '127.0.0.1',
  });
  assert.equal(response.status, 200, `the stream did not open: ${response.body}`);
  assert.ok(response.stream !== undefined);
  const sink = new RecordingSink();
  response.stream.start(sink);
  const stream = response.stream;
  return { sink, cancel: () => stream.cancel(), headers: response.headers };
}

/** A change log and its writer, as the store drives it: each put or remove commits one line and tells the listeners. */
export interface ChangeFeed {
  source: ChangeLog;
  /** Puts event `n` (created or updated); returns the seq of its line. */
  put: (n: number) => number;
  /** Deletes event `n`; returns the seq of its line. */
  remove: (n: number) => number;
  /** A compaction dropped the deletions up to `seq`. */
  compactThrough: (seq: number) => void;
}

/** A ChangeLog without a store: events `eventId(n)` made from `sampleRecord(n)`. */
export function changeFeed(): ChangeFeed {
  const events = new Map<string, StoredEvent>();
  const source = new ChangeLog((id) => events.get(id));
  let seq = 0;
  const commit = (n: number, deleted: boolean): number => {
    seq++;
    if (deleted) events.delete(eventId(n));
    else events.set(eventId(n), toStored(sampleRecord(n), seq));
    source.committed(seq, eventId(n), deleted ? null : events.get(eventId(n))!);
    source.batchCommitted(events.values(), events.size);
    return seq;
  };
  return { source, put: (n) => commit(n, false), remove: (n) => commit(n, true), compactThrough: (through) => void source.dropDeletionsThrough(through) };
}
