// ChangeStreams over a real ChangeLog, without an app: the caps and their release (a model over seeded random sequences),
// timers only while a stream is open, streams ended before they start, keep-alives, and which compactions end a stream.
import assert from 'node:assert/strict';
import test from 'node:test';
import { ChangeStreams, KEEP_ALIVE, NODE_TIMERS } from '../../src/feeds/change-stream.js';
import { ApiError } from '../../src/http/errors.js';
import type { ResponseStream } from '../../src/http/types.js';
import { mulberry32 } from '../helpers/random.js';
import { eventId } from '../store/helpers.js';
import { changeFeed as feed, FakeTimers, RecordingSink } from './stream-support.js';

function refused(run: () => unknown, code: string, pattern: RegExp, headers?: Record<string, string>): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    if (headers !== undefined) assert.deepEqual(error.headers, headers);
    return true;
  });
}

test('ChangeStreams against a model: per-key and total caps, slots given back by cancel, end and revocation, timers only while open (seeded)', () => {
  const first = Number(process.env['TEST_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  for (const seed of [first, first + 1, first + 2]) {
    try {
      runCapsModel(seed);
    } catch (error) {
      throw new Error(`seed ${seed} failed (rerun with TEST_SEED=${seed}): ${error instanceof Error ? error.stack : String(error)}`);
    }
  }
});

function runCapsModel(seed: number): void {
  const random = mulberry32(seed);
  const keys = ['key_a', 'key_b', 'key_c'];
  const perKey = 1 + Math.floor(random() * 3);
  const total = perKey + Math.floor(random() * 4);
  const timers = new FakeTimers();
  const { source, put } = feed();
  const live = new Set(keys);
  const streams = new ChangeStreams({ source, isKeyLive: (keyId) => live.has(keyId), timers, perKey, total, keepAliveMs: 15_000, revocationCheckMs: 1_000 });
  const open: { keyId: string; stream: ResponseStream; sink: RecordingSink }[] = [];
  for (let step = 0; step < 200; step++) {
    const context = `step ${step} (perKey ${perKey}, total ${total})`;
    const roll = random();
    if (roll < 0.45) {
      const keyId = keys[Math.floor(random() * keys.length)]!;
      const mine = open.filter((entry) => entry.keyId === keyId).length;
      if (mine >= perKey) refused(() => streams.openHere(keyId, source.lastSeq), 'rate_limited', new RegExp(`already has ${mine} open change streams`), { 'Retry-After': '5' });
      else if (open.length >= total) refused(() => streams.openHere(keyId, source.lastSeq), 'rate_limited', new RegExp(`already holds ${open.length} open change streams`), { 'Retry-After': '5' });
      else {
        const sink = new RecordingSink();
        const stream = streams.openHere(keyId, source.lastSeq);
        stream.start(sink);
        open.push({ keyId, stream, sink });
      }
    } else if (roll < 0.65 && open.length > 0) {
      const [gone] = open.splice(Math.floor(random() * open.length), 1);
      if (random() < 0.5) gone!.stream.cancel();
      else {
        (gone!.stream as ResponseStream & { end(): void }).end();
        assert.equal(gone!.sink.ended, true, context);
      }
    } else if (roll < 0.75) {
      // Revoke a key, let the check run, and make it live again.
      const keyId = keys[Math.floor(random() * keys.length)]!;
      live.delete(keyId);
      timers.fire(1_000);
      live.add(keyId);
      for (const entry of open.filter((e) => e.keyId === keyId)) assert.equal(entry.sink.ended, true, `${context}: ${keyId} revoked`);
      for (let i = open.length - 1; i >= 0; i--) if (open[i]!.keyId === keyId) open.splice(i, 1);
    } else {
      // A commit reaches every open stream, and none that ended.
      const seq = put(1 + Math.floor(random() * 5));
      for (const entry of open) assert.equal(entry.sink.entries.at(-1)?.seq, seq, `${context}: an open stream of ${entry.keyId} got seq ${seq}`);
    }
    assert.equal(streams.size, open.length, context);
    assert.equal(timers.pending, open.length === 0 ? 0 : 2, `${context}: a keep-alive and a revocation timer while a stream is open, none else`);
    for (const entry of open) assert.equal(entry.sink.ended, false, context);
  }
}

test('ChangeStreams.closeAll() ends every stream, started or not, and open() then answers 503', () => {
  const { source, put } = feed();
  put(1);
  const timers = new FakeTimers();
  const streams = new ChangeStreams({ source, isKeyLive: () => true, timers });
  const started = streams.openHere('key_a', 0);
  const startedSink = new RecordingSink();
  started.start(startedSink);
  const notStarted = streams.openHere('key_b', 0);
  streams.closeAll();
  assert.equal(startedSink.ended, true);
  assert.equal(streams.size, 0);
  assert.equal(timers.pending, 0);
  const late = new RecordingSink();
  notStarted.start(late);
  assert.equal(late.ended, true, 'a stream ended before it started ends at once');
  assert.equal(late.text, '', 'and sends nothing');
  refused(() => streams.openHere('key_c', 0), 'unavailable', /shutting down/);
});

test('a stream cancelled before it starts sends nothing and ends at once', () => {
  const { source, put } = feed();
  const streams = new ChangeStreams({ source, isKeyLive: () => true, timers: new FakeTimers() });
  const stream = streams.openHere('key_a', 0);
  stream.cancel();
  put(1);
  const sink = new RecordingSink();
  stream.start(sink);
  assert.equal(sink.ended, true);
  assert.equal(sink.text, '');
});

test('a stream opened but not started yet waits through commits and keep-alives, then sends its backlog first', () => {
  const { source, put } = feed();
  const timers = new FakeTimers();
  const streams = new ChangeStreams({ source, isKeyLive: () => true, timers });
  const stream = streams.openHere('key_a', 0);
  put(1);
  timers.fire(15_000);
  put(2);
  const sink = new RecordingSink();
  stream.start(sink);
  assert.deepEqual(sink.entries.map((entry) => entry.seq), [1, 2]);
  assert.ok(!sink.text.includes(KEEP_ALIVE));
});

test('keep-alives are the SSE comment ": keep-alive", every 15 s by default, and wait while the socket is full', () => {
  assert.equal(KEEP_ALIVE, ': keep-alive\n\n');
  const { source, put } = feed();
  put(1);
  put(2);
  const timers = new FakeTimers();
  const streams = new ChangeStreams({ source, isKeyLive: () => true, timers });
  assert.equal(streams.pageSize, 500);
  const sink = new RecordingSink();
  sink.full = true;
  streams.openHere('key_a', 0).start(sink);
  timers.fire(15_000);
  assert.equal(sink.text.split(KEEP_ALIVE).length, 1, 'no keep-alive while waiting for drain');
  put(3);
  assert.deepEqual(sink.entries.map((entry) => entry.seq), [1], 'nor a change');
  sink.drain();
  timers.fire(15_000);
  assert.deepEqual(sink.entries.map((entry) => entry.seq), [1, 2, 3]);
  assert.ok(sink.text.endsWith(KEEP_ALIVE));
});

test('a compaction ends only the streams it cut short: not one at the dropped deletion, nor a copy that has sent nothing yet', () => {
  const { source, put, remove, compactThrough } = feed();
  put(1);
  put(3);
  put(2);
  const deletion = remove(2); // seq 4, the newest line
  const streams = new ChangeStreams({ source, isKeyLive: () => true, timers: new FakeTimers() });
  const open = (keyId: string, since: number, full = false): RecordingSink => {
    const sink = new RecordingSink();
    sink.full = full;
    streams.openHere(keyId, since).start(sink);
    return sink;
  };
  const atDeletion = open('key_a', deletion);
  const behind = open('key_b', 1, true); // sent seq 2, then the socket filled: the deletion has not gone out
  const copy = streams.openHere('key_c', 0); // a full copy not started yet: its cursor is 0
  compactThrough(deletion);
  assert.equal(source.horizon, deletion);
  const next = put(5);
  assert.equal(atDeletion.ended, false, 'a cursor at the horizon missed nothing');
  assert.deepEqual(atDeletion.entries.map((entry) => entry.seq), [next]);
  assert.deepEqual(behind.entries.map((entry) => entry.seq), [2]);
  behind.drain();
  assert.equal(behind.ended, true, 'the deletion at seq 4 was dropped before it went out');
  const copySink = new RecordingSink();
  copy.start(copySink);
  assert.equal(copySink.ended, false);
  assert.deepEqual(copySink.entries.map((entry) => [entry.seq, entry.id]), [[1, eventId(1)], [2, eventId(3)], [next, eventId(5)]]);
  assert.equal(streams.size, 2);
});

test('NODE_TIMERS.every() runs its task repeatedly on a real interval until stopped', async () => {
  let runs = 0;
  let stop: () => void = () => {};
  // NODE_TIMERS never keeps the process alive (unref), so this test holds it open itself while it waits.
  const keepAlive = setInterval(() => {}, 1000);
  await new Promise<void>((resolve) => {
    stop = NODE_TIMERS.every(1, () => {
      if (++runs === 3) resolve();
    });
  });
  stop();
  const stoppedAt = runs;
  // An interval of 1 ms that still ran would run before a 20 ms timeout set after it.
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(keepAlive);
  assert.equal(runs, stoppedAt);
});
