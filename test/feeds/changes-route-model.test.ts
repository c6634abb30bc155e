// GET /changes's handler and copyPage() without an app, against a model of the feed (each event's latest line, tombstones
// until compaction), over seeded random writes, deletions, compactions and a moving clock: pages, copy tokens, every 410 and 400.
import assert from 'node:assert/strict';
import test from 'node:test';
import { ChangeStreams } from '../../src/feeds/change-stream.js';
import { changesRoute, checkPosition, copyPage, EVENT_STREAM_TYPE } from '../../src/feeds/changes-route.js';
import { ApiError } from '../../src/http/errors.js';
import type { RequestContext } from '../../src/http/route.js';
import { COPY_TOKEN_MAX_AGE_MS } from '../../src/store/views/copy-token.js';
import { mulberry32 } from '../helpers/random.js';
import { eventId } from '../store/helpers.js';
import { changeFeed, FakeTimers, RecordingSink } from './stream-support.js';

/** What a page should hold: the latest line of each event after `since`, in seq order; deletions only past `liveThrough`. */
function expectedPage(latest: Map<string, { seq: number; deleted: boolean }>, since: number, limit: number, liveThrough: number): { entries: [number, string, boolean][]; more: boolean } {
  const entries = [...latest.entries()]
    .filter(([, line]) => line.seq > since && !(line.deleted && line.seq <= liveThrough))
    .sort((a, b) => a[1].seq - b[1].seq)
    .map(([id, line]): [number, string, boolean] => [line.seq, id, line.deleted]);
  return { entries: entries.slice(0, limit), more: entries.length > limit };
}

function gone(run: () => unknown, pattern: RegExp, context: string): void {
  assert.throws(run, (error: unknown) => error instanceof ApiError && error.code === 'gone' && pattern.test(error.message), context);
}

test('copyPage() against a model: plain pages, a copy followed by its token across writes and compactions, and each 410 (seeded)', (t) => {
  const first = Number(process.env['TEST_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  for (const seed of [first, first + 1, first + 2]) {
    try {
      t.diagnostic(`seed ${seed}: ${JSON.stringify(runModel(seed))}`);
    } catch (error) {
      throw new Error(`seed ${seed} failed (rerun with TEST_SEED=${seed}): ${error instanceof Error ? error.stack : String(error)}`);
    }
  }
});

/** Runs one sequence; returns how often each outcome came up, so the diagnostic shows the sequence reached them all. */
function runModel(seed: number): Record<string, number> {
  const seen: Record<string, number> = {};
  const saw = (outcome: string): void => void (seen[outcome] = (seen[outcome] ?? 0) + 1);
  const random = mulberry32(seed);
  const { source, put, remove, compactThrough } = changeFeed();
  const latest = new Map<string, { seq: number; deleted: boolean }>();
  let horizon = 0;
  let now = Date.UTC(2026, 10, 25, 10);
  /** Copies under way: the token of their next page, where they began and when, and where they are. */
  let copy: { token: string; began: number; startedMs: number; since: number } | undefined;
  for (let step = 0; step < 300; step++) {
    const context = `step ${step}`;
    const roll = random();
    const n = 1 + Math.floor(random() * 12);
    if (roll < 0.3) {
      latest.set(eventId(n), { seq: put(n), deleted: false });
    } else if (roll < 0.4 && latest.get(eventId(n))?.deleted === false) {
      latest.set(eventId(n), { seq: remove(n), deleted: true });
    } else if (roll < 0.45) {
      // Compaction drops the deletions up to some seq: their events vanish from the feed, the horizon moves to the newest dropped.
      const through = Math.floor(random() * (source.lastSeq + 1));
      compactThrough(through);
      for (const [id, line] of latest) {
        if (line.deleted && line.seq <= through) {
          latest.delete(id);
          horizon = Math.max(horizon, line.seq);
        }
      }
      assert.equal(source.horizon, horizon, context);
    } else if (roll < 0.5) {
      now += random() < 0.5 ? 60_000 : COPY_TOKEN_MAX_AGE_MS / 2 + Math.floor(random() * 2000);
    } else if (roll < 0.75) {
      // A plain page from some since (a copy's first page when since = 0).
      const since = random() < 0.3 ? 0 : Math.floor(random() * (source.lastSeq + 3));
      const limit = 1 + Math.floor(random() * 4);
      const run = (): ReturnType<typeof copyPage> => copyPage(source, { since, limit }, now);
      if (since > source.lastSeq) {
        gone(run, new RegExp(`^since ${since} is newer than the last change \\(${source.lastSeq}\\)`), context);
        saw('410 newer');
      } else if (since > 0 && since < horizon) {
        gone(run, new RegExp(`^since ${since} is older than what the log still holds \\(deletions up to ${horizon} `), context);
        saw('410 older');
      } else {
        saw(since === 0 ? 'first page of a copy' : 'page');
        const { page, copy: token } = run();
        const expected = expectedPage(latest, since, limit, since === 0 ? Infinity : 0);
        assert.deepEqual(page.changes.map((change) => [change.seq, change.id, change.event === null]), expected.entries, `${context}: since=${since}&limit=${limit}`);
        assert.equal(page.more, expected.more, context);
        assert.equal(token !== undefined, since === 0 && expected.more, `${context}: a token only on the first page of a copy with more to come`);
        if (token !== undefined) copy = { token, began: source.lastSeq, startedMs: Math.floor(now / 1000) * 1000, since: page.changes.at(-1)!.seq };
      }
    } else if (copy !== undefined) {
      // The next page of the copy under way.
      const limit = 1 + Math.floor(random() * 4);
      const run = (): ReturnType<typeof copyPage> => copyPage(source, { since: copy!.since, limit, copy: copy!.token }, now);
      if (now - copy.startedMs > COPY_TOKEN_MAX_AGE_MS) {
        gone(run, /^This copy began more than 24 hours ago/, context);
        saw('410 copy too old');
      } else if (horizon > copy.began) {
        gone(run, new RegExp(`^A deletion made after this copy began \\(up to ${horizon}\\)`), context);
        saw('410 copy cut');
      } else {
        saw(copy.began < source.lastSeq ? 'copy page after writes' : 'copy page');
        const { page, copy: token } = run();
        const expected = expectedPage(latest, copy.since, limit, copy.began);
        assert.deepEqual(page.changes.map((change) => [change.seq, change.id, change.event === null]), expected.entries, `${context}: copy from ${copy.since}, began ${copy.began}`);
        assert.equal(page.more, expected.more, context);
        assert.equal(token, copy.token, `${context}: the same token rides along`);
        if (page.more) copy.since = page.changes.at(-1)!.seq;
        else copy = undefined;
        continue;
      }
      copy = undefined;
    }
  }
  return seen;
}

test('copyPage() refuses a token not made here (400), one of a log restored to before the copy, and a since past the log (410)', () => {
  const { source, put } = changeFeed();
  for (let n = 1; n <= 5; n++) put(n);
  const now = Date.UTC(2026, 10, 25, 10);
  const { copy } = copyPage(source, { since: 0, limit: 2 }, now);
  assert.ok(copy !== undefined);
  assert.throws(() => copyPage(source, { since: 2, limit: 2, copy: `${copy.slice(0, -1)}${copy.endsWith('A') ? 'B' : 'A'}` }, now), (error: unknown) => error instanceof ApiError && error.code === 'bad_request' && /^Query parameter copy is not a copy token this service gave/.test(error.message));
  gone(() => copyPage(source, { since: 6, limit: 2, copy }, now), /^since 6 is newer than the last change \(5\)/, 'since past the log');
  assert.equal(copyPage(source, { since: 5, limit: 2, copy }, now + COPY_TOKEN_MAX_AGE_MS).page.changes.length, 0, 'exactly 24 hours old is still good');
  gone(() => copyPage(source, { since: 5, limit: 2, copy }, now + COPY_TOKEN_MAX_AGE_MS + 1000), /24 hours/, 'a second older is not');
  const restored = changeFeed();
  for (let n = 1; n <= 4; n++) restored.put(n);
  gone(() => copyPage(restored.source, { since: 2, limit: 2, copy }, now), /^This copy began at 5, after the last change \(4\): the log was restored/, 'restored');
});

test('copyPage() goes on with a copy after a compaction up to where it began, and refuses it (410) once one dropped a later deletion', () => {
  const { source, put, remove, compactThrough } = changeFeed();
  for (let n = 1; n <= 4; n++) put(n);
  const began = remove(4); // seq 5: the copy begins at the newest write, this deletion
  const now = Date.UTC(2026, 10, 25, 10);
  const { copy } = copyPage(source, { since: 0, limit: 2 }, now);
  assert.ok(copy !== undefined);
  compactThrough(began);
  assert.equal(source.horizon, began);
  assert.deepEqual(copyPage(source, { since: 2, limit: 2, copy }, now).page.changes.map((change) => change.seq), [3], 'a horizon at the start of the copy cuts nothing from it (event 4 is gone with its deletion)');
  put(5);
  const later = remove(5);
  compactThrough(later);
  gone(() => copyPage(source, { since: 4, limit: 2, copy }, now), new RegExp(`^A deletion made after this copy began \\(up to ${later}\\) was compacted away before the copy finished\\. Start again from since=0\\.$`), 'a later deletion dropped');
});

test('checkPosition() names what it checked: since or Last-Event-ID; 0 and the horizon itself are fine', () => {
  const { source, put, remove, compactThrough } = changeFeed();
  put(1);
  put(2);
  const deletion = remove(1);
  put(3);
  compactThrough(deletion);
  for (const since of [0, deletion, source.lastSeq]) assert.equal(checkPosition(source, since, 'since'), undefined);
  gone(() => checkPosition(source, deletion - 1, 'Last-Event-ID'), /^Last-Event-ID 2 is older than what the log still holds \(deletions up to 3 were compacted away\)\. Start again from since=0\.$/, 'older');
  gone(() => checkPosition(source, 5, 'Last-Event-ID'), /^Last-Event-ID 5 is newer than the last change \(4\): the log was restored from an older copy\. Start again from since=0\.$/, 'newer');
  // A position past what a number holds exactly is not quoted as another one (99999999999999999999 reads as 1e20).
  gone(() => checkPosition(source, Number('99999999999999999999'), 'since'), /^since beyond 9007199254740991 is newer than the last change \(4\)/, 'past 2^53 - 1');
});

function contextOf(query: string, headers: Record<string, string> = {}): RequestContext {
  return {
    request: { method: 'GET', target: `/changes?${query}`, headers, body: null, bodyTooLarge: false, remoteAddress: '127.0.0.1' },
    params: {},
    query,
    prefix: '',
    principal: { keyId: 'key_a', name: 'Rita', email: 'rita@campus.edu', role: 'reader' },
    body: undefined,
  };
}

test('the GET /changes handler: JSON pages with no-store and Last-Seq; with Accept: text/event-stream a stream from Last-Event-ID, else since', async () => {
  const { source, put, remove, compactThrough } = changeFeed();
  for (let n = 1; n <= 4; n++) put(n);
  const streams = new ChangeStreams({ source, isKeyLive: () => true, timers: new FakeTimers() });
  const { method, pattern, route } = changesRoute({ source, streams, now: () => Date.UTC(2026, 10, 25) });
  assert.deepEqual([method, pattern, route.name, route.action, route.auth, route.body, route.query], ['GET', '/changes', 'listChanges', 'changes', true, false, true]);

  const page = await route.handle(contextOf('since=1&limit=2'));
  assert.deepEqual(page.headers, { 'Cache-Control': 'no-store', 'Last-Seq': '4' }, 'a page says where the feed ends, whatever page it is');
  assert.deepEqual(JSON.parse(page.body!), { ...JSON.parse(page.body!), next_since: 3, more: true });
  assert.deepEqual(JSON.parse(page.body!).changes.map((change: { seq: number }) => change.seq), [2, 3]);
  const last = JSON.parse((await route.handle(contextOf('since=3'))).body!);
  assert.equal(last.next_since, 4);
  const firstOfCopy = JSON.parse((await route.handle(contextOf('since=0&limit=1'))).body!);
  assert.deepEqual(source.readCopyToken(firstOfCopy.copy), { began: 4, startedMs: Date.UTC(2026, 10, 25) }, 'the copy began at the injected clock');

  const open = async (query: string, headers: Record<string, string>): Promise<RecordingSink> => {
    const answer = await route.handle(contextOf(query, { accept: 'text/event-stream', ...headers }));
    assert.equal(answer.status, 200);
    assert.equal(answer.body, null);
    assert.deepEqual(answer.headers, { 'Content-Type': EVENT_STREAM_TYPE, 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
    const sink = new RecordingSink();
    answer.stream!.start(sink);
    return sink;
  };
  assert.equal(EVENT_STREAM_TYPE, 'text/event-stream; charset=utf-8');
  assert.deepEqual((await open('since=1', {})).entries.map((entry) => entry.seq), [2, 3, 4]);
  assert.deepEqual((await open('since=1', { 'last-event-id': '3' })).entries.map((entry) => entry.seq), [4], 'Last-Event-ID wins over since');
  assert.equal((await route.handle(contextOf('since=1', { accept: 'application/json, text/event-stream' }))).stream, undefined, 'JSON first: a page');

  compactThrough(remove(2));
  assert.throws(() => route.handle(contextOf('since=1', { accept: 'text/event-stream', 'last-event-id': '4' })), (error: unknown) => error instanceof ApiError && error.code === 'gone' && error.message.startsWith('Last-Event-ID 4 is older'));
  assert.throws(() => route.handle(contextOf('since=1', { accept: 'text/event-stream' })), (error: unknown) => error instanceof ApiError && error.code === 'gone' && error.message.startsWith('since 1 is older'));
  assert.throws(() => route.handle(contextOf('since=1')), (error: unknown) => error instanceof ApiError && error.code === 'gone' && error.message.startsWith('since 1 is older'));
});
