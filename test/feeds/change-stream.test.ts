// GET /changes as Server-Sent Events (API.md §9.2): backlog then live, only once durable, keep-alives, caps, revocation, shutdown.
import assert from 'node:assert/strict';
import test from 'node:test';
import { updateKeys } from '../../src/auth/key-file.js';
import { ChangeStreams, KEEP_ALIVE } from '../../src/feeds/change-stream.js';
import { ChangeLog, type ChangeFeedSource } from '../../src/store/views/change-log.js';
import { eventId, sampleRecord, TestFileSystem } from '../store/helpers.js';
import { toStored } from '../../src/store/views/served-event.js';
import type { StoredEvent } from '../../src/events/event.js';
import { startHarness } from '../helpers/harness.js';
import { assertError, createEvent, waitFor } from '../api/support.js';
import { FakeTimers, openStream, RecordingSink } from './stream-support.js';

test('a change stream sends the backlog after since, then each new change, as id/event/data frames', async (t) => {
  const timers = new FakeTimers();
  const h = await startHarness({}, { streamTimers: timers });
  t.after(() => h.close());
  const a = await createEvent(h, h.keys.organizer, { title: 'A' });
  const b = await createEvent(h, h.keys.organizer, { title: 'B' });
  const { sink, cancel, headers } = await openStream(h.app, h.keys.reader, '/changes?since=1');
  assert.equal(headers['Content-Type'], 'text/event-stream; charset=utf-8');
  assert.deepEqual(sink.entries.map((entry) => entry.id), [b.id]);
  await h.request('PUT', `/events/${a.id}`, { key: h.keys.organizer, body: { title: 'A2' } });
  await h.request('DELETE', `/events/${b.id}`, { key: h.keys.organizer });
  assert.deepEqual(sink.entries.map((entry) => [entry.seq, entry.id, entry.deleted]), [[2, b.id, false], [3, a.id, false], [4, b.id, true]]);
  assert.equal(sink.entries[1]!.event!['title'], 'A2');
  cancel();
});

test('a change stream starts after Last-Event-ID, which wins over since', async (t) => {
  const h = await startHarness({}, { streamTimers: new FakeTimers() });
  t.after(() => h.close());
  for (let n = 0; n < 4; n++) await createEvent(h, h.keys.organizer, { title: `E${n}` });
  const { sink, cancel } = await openStream(h.app, h.keys.reader, '/changes?since=0', { 'last-event-id': '2' });
  assert.deepEqual(sink.entries.map((entry) => entry.seq), [3, 4]);
  cancel();
});

test('a change stream sends a comment every 15 s, and counts once against the rate limit', async (t) => {
  const timers = new FakeTimers();
  const h = await startHarness({ rateLimit: 2 }, { streamTimers: timers });
  t.after(() => h.close());
  const { sink, cancel } = await openStream(h.app, h.keys.reader, '/changes?since=0');
  timers.fire(15_000);
  assert.equal(sink.text, KEEP_ALIVE);
  await createEvent(h, h.keys.organizer);
  assert.equal(sink.entries.length, 1);
  assert.equal((await h.request('GET', '/changes?since=0', { key: h.keys.reader })).status, 200, 'the open stream took one request, not one per change');
  cancel();
  assert.equal(timers.pending, 0, 'no timer runs once no stream is open');
});

test('a change stream never sends a change before it is durable: a held fsync holds it, a failed one sends nothing', async (t) => {
  const fileSystem = new TestFileSystem({ noSync: true });
  const h = await startHarness({}, { streamTimers: new FakeTimers(), fileSystem, unsafeNoSync: false });
  t.after(() => h.close());
  const { sink, cancel } = await openStream(h.app, h.keys.reader, '/changes?since=0');
  fileSystem.holdSyncs();
  const syncing = fileSystem.nextSync();
  const created = h.request('POST', '/events', { key: h.keys.organizer, body: { title: 'T', description: 'D', category: 'social', location: 'L', start_time: '2099-01-01T10:00:00Z', end_time: '2099-01-01T11:00:00Z', capacity: 5 } });
  await syncing;
  assert.equal(sink.text, '', 'nothing goes out while the fsync runs');
  fileSystem.faults.failSyncAt = fileSystem.syncs;
  fileSystem.release();
  assert.equal((await created).status, 503);
  assert.equal(sink.text, '', 'a failed fsync sends nothing');
  cancel();
});

test('a change stream after its socket filled up waits for drain, then goes on where it stopped', async (t) => {
  const h = await startHarness({}, { streamTimers: new FakeTimers() });
  t.after(() => h.close());
  for (let n = 0; n < 3; n++) await createEvent(h, h.keys.organizer, { title: `E${n}` });
  const response = await h.app.handle({ method: 'GET', target: '/changes?since=0', headers: { host: 'x', accept: 'text/event-stream', authorization: `Bearer ${h.keys.reader}` }, body: null, bodyTooLarge: false, remoteAddress: '1' });
  const sink = new RecordingSink();
  sink.full = true;
  response.stream!.start(sink);
  assert.equal(sink.entries.length, 1, 'one write, then the buffer is full');
  await createEvent(h, h.keys.organizer, { title: 'E3' });
  assert.equal(sink.entries.length, 1, 'a commit does not write past a full buffer');
  sink.drain();
  assert.deepEqual(sink.entries.map((entry) => entry.seq), [1, 2, 3, 4]);
  response.stream!.cancel();
});

test('ChangeStreams allows 8 open streams per key and 1000 in all (configurable), then 429', () => {
  const source = new ChangeLog(() => undefined);
  const streams = new ChangeStreams({ source, isKeyLive: () => true, timers: new FakeTimers(), total: 10 });
  const opened = Array.from({ length: 8 }, () => streams.openHere('key_a', 0));
  assert.throws(() => streams.openHere('key_a', 0), (error: { code?: string; headers?: Record<string, string> }) => error.code === 'rate_limited' && error.headers?.['Retry-After'] !== undefined);
  opened[0]!.cancel();
  opened[0] = streams.openHere('key_a', 0);
  streams.openHere('key_b', 0);
  streams.openHere('key_b', 0);
  assert.throws(() => streams.openHere('key_c', 0), /10 open change streams/);
  assert.equal(streams.size, 10);
});

test('the ninth stream of one key is a 429 over HTTP', async (t) => {
  const h = await startHarness({}, { streamTimers: new FakeTimers() });
  t.after(() => h.close());
  const open = [];
  for (let n = 0; n < 8; n++) open.push(await openStream(h.app, h.keys.reader, '/changes?since=0'));
  const ninth = await h.request('GET', '/changes?since=0', { key: h.keys.reader, headers: { accept: 'text/event-stream' } });
  assertError(ninth, 429, 'rate_limited');
  assert.ok(ninth.headers['Retry-After']);
  assert.equal(ninth.headers['Cache-Control'], 'no-store');
  // A refused request does not count (API.md §6): the ninth gave its slot back.
  const remaining = Number(ninth.headers['RateLimit-Remaining']);
  const tenth = await h.request('GET', '/changes?since=0', { key: h.keys.reader, headers: { accept: 'text/event-stream' } });
  assert.equal(Number(tenth.headers['RateLimit-Remaining']), remaining);
  assert.equal((await openStream(h.app, h.keys.admin, '/changes?since=0')).sink.ended, false, 'another key still may');
  for (const stream of open) stream.cancel();
});

test("a revoked key's streams end at the next check once the key file says so", async (t) => {
  const timers = new FakeTimers();
  const h = await startHarness({ keyPollMs: 20 }, { streamTimers: timers });
  t.after(() => h.close());
  const { sink } = await openStream(h.app, h.keys.reader, '/changes?since=0');
  const other = await openStream(h.app, h.keys.admin, '/changes?since=0');
  timers.fire(1_000);
  assert.equal(sink.ended, false);
  await updateKeys(h.dataDir, (keys) => {
    for (const key of keys) if (key.email === 'rita@campus.edu') key.revoked_at = new Date().toISOString();
  });
  await waitFor('the key registry to see the revocation', async () => (await h.request('GET', '/changes?since=0', { key: h.keys.reader })).status === 401);
  timers.fire(1_000);
  assert.equal(sink.ended, true);
  assert.equal(other.sink.ended, false, "another key's stream goes on");
  other.cancel();
});

test('every stream ends cleanly when the app drains for shutdown, and new ones get 503', async (t) => {
  const h = await startHarness({}, { streamTimers: new FakeTimers() });
  t.after(() => h.close());
  const first = await openStream(h.app, h.keys.reader, '/changes?since=0');
  const second = await openStream(h.app, h.keys.admin, '/changes?since=0');
  h.app.drain();
  assert.equal(first.sink.ended && second.sink.ended, true);
  assertError(await h.request('GET', '/changes?since=0', { key: h.keys.reader, headers: { accept: 'text/event-stream' } }), 503, 'unavailable');
});

test('a stream from since=0 after a compaction dropped deletions sends the whole copy, page after page, and goes on', () => {
  const events = new Map<string, StoredEvent>();
  for (let n = 1; n <= 7; n++) events.set(eventId(n), toStored(sampleRecord(n), n * 2));
  const source = new ChangeLog((id) => events.get(id), { events: events.values(), lastSeq: 15, horizon: 15 });
  const streams = new ChangeStreams({ source, isKeyLive: () => true, timers: new FakeTimers(), pageSize: 2 });
  const sink = new RecordingSink();
  streams.openHere('key_a', 0).start(sink);
  assert.equal(sink.ended, false, 'positions below the horizon are fine for a copy that began after it');
  assert.deepEqual(sink.entries.map((entry) => entry.seq), [2, 4, 6, 8, 10, 12, 14]);
});

test('a stream ends when a compaction drops a deletion it has not sent yet (the client then reconnects and hears 410)', () => {
  const events = new Map<string, StoredEvent>();
  const source = new ChangeLog((id) => events.get(id));
  const streams = new ChangeStreams({ source, isKeyLive: () => true, timers: new FakeTimers() });
  const commit = (n: number, seq: number, deleted = false): void => {
    if (deleted) events.delete(eventId(n));
    else events.set(eventId(n), toStored(sampleRecord(n), seq));
    source.committed(seq, eventId(n), deleted ? null : events.get(eventId(n))!);
  };
  commit(1, 1);
  commit(2, 2);
  source.batchCommitted(events.values(), events.size);
  const sink = new RecordingSink();
  const stream = streams.openHere('key_a', 0);
  sink.full = true;
  stream.start(sink);
  assert.deepEqual(sink.entries.map((entry) => entry.seq), [1], 'the socket is full after the first');
  commit(2, 3, true);
  source.batchCommitted(events.values(), events.size);
  source.dropDeletionsThrough(3);
  sink.drain();
  assert.equal(sink.ended, true);
  assert.equal(streams.size, 0);
});

test('a stream from since=0 is a copy on every page: deletions made before it opened never go out, even compacted meanwhile; later ones do', () => {
  const events = new Map<string, StoredEvent>();
  const source = new ChangeLog((id) => events.get(id));
  const streams = new ChangeStreams({ source, isKeyLive: () => true, timers: new FakeTimers(), pageSize: 2 });
  const commit = (n: number, seq: number, deleted = false): void => {
    if (deleted) events.delete(eventId(n));
    else events.set(eventId(n), toStored(sampleRecord(n), seq));
    source.committed(seq, eventId(n), deleted ? null : events.get(eventId(n))!);
    source.batchCommitted(events.values(), events.size);
  };
  for (let n = 1; n <= 5; n++) commit(n, n);
  commit(2, 6, true);
  commit(4, 7, true);
  const sink = new RecordingSink();
  sink.full = true;
  streams.openHere('key_a', 0).start(sink);
  // The deletions the copy leaves out are compacted away while the socket is full: nothing it needed was lost.
  source.dropDeletionsThrough(7);
  sink.drain();
  assert.equal(sink.ended, false);
  commit(6, 8);
  commit(1, 9, true);
  assert.deepEqual(sink.entries.map((entry) => [entry.seq, entry.deleted]), [[1, false], [3, false], [5, false], [8, false], [9, true]]);
});

test('a stream from since=0 goes on past what it leaves out: deletions it never sends are not walked again at the next write', () => {
  const events = new Map<string, StoredEvent>();
  const log = new ChangeLog((id) => events.get(id));
  const asked: number[] = [];
  const source: ChangeFeedSource = {
    after: (since, limit, liveThrough) => (asked.push(since), log.after(since, limit, liveThrough)),
    copyToken: (start) => log.copyToken(start),
    readCopyToken: (token) => log.readCopyToken(token),
    get lastSeq() {
      return log.lastSeq;
    },
    get horizon() {
      return log.horizon;
    },
    subscribe: (listener) => log.subscribe(listener),
  };
  const streams = new ChangeStreams({ source, isKeyLive: () => true, timers: new FakeTimers() });
  const commit = (n: number, seq: number, deleted = false): void => {
    if (deleted) events.delete(eventId(n));
    else events.set(eventId(n), toStored(sampleRecord(n), seq));
    log.committed(seq, eventId(n), deleted ? null : events.get(eventId(n))!);
    log.batchCommitted(events.values(), events.size);
  };
  commit(1, 1);
  // 200 events created and deleted before the stream opens: a copy from since=0 sends none of their deletions.
  for (let n = 2; n <= 201; n++) {
    commit(n, 2 * n - 2);
    commit(n, 2 * n - 1, true);
  }
  const sink = new RecordingSink();
  streams.openHere('key_a', 0).start(sink);
  commit(500, 402);
  assert.deepEqual(sink.entries.map((entry) => entry.seq), [1, 402]);
  assert.deepEqual(asked, [0, 401], 'the write after the copy is read from past the deletions, not from seq 1');
});
