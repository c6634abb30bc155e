// LiveFeed: learns the newest position, streams from it, reconnects with Last-Event-ID, and starts over on 410.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveFeed, type ChangeEntry, type LiveState } from '../../../src/console/web/live.js';
import { ApiProblem } from '../../../src/console/web/problem.js';
import type { Api } from '../../../src/console/web/api.js';

interface Call {
  path: string;
  headers: Record<string, string>;
}

/**
 * A fake API: the feed's smallest JSON page, saying where it ends (`heads`, one per look, the last repeated), then one
 * scripted answer per stream request.
 */
function fakeApi(heads: (number | { next_since: number; more: boolean })[], streams: (() => Response)[]): { api: Api; calls: Call[] } {
  const calls: Call[] = [];
  let look = 0;
  let stream = 0;
  const api = {
    base: '',
    async send(_method: string, path: string, options: { headers?: Record<string, string> } = {}) {
      calls.push({ path, headers: options.headers ?? {} });
      if (options.headers?.['Accept'] !== 'text/event-stream') {
        const head = heads[Math.min(look++, heads.length - 1)]!;
        // A number: a page with Last-Seq; a page alone: one whose Last-Seq a proxy dropped.
        if (typeof head !== 'number') return new Response(JSON.stringify({ changes: [], ...head }), { status: 200, headers: { 'content-type': 'application/json' } });
        return new Response(JSON.stringify({ changes: [], next_since: 1, more: head > 1 }), { status: 200, headers: { 'content-type': 'application/json', 'Last-Seq': String(head) } });
      }
      const answer = streams[stream++];
      if (answer === undefined) return new Promise<Response>(() => undefined); // no more scripted streams: hang
      return answer();
    },
  } as unknown as Api;
  return { api, calls };
}

const sse = (text: string): (() => Response) => () => new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
const entry = (seq: number): string => `id: ${seq}\nevent: change\ndata: ${JSON.stringify({ seq, id: `evt_${seq}`, deleted: false, event: {} })}\n\n`;

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(check(), 'condition reached');
}

test('LiveFeed learns the head from one small page, streams from there, and resumes with Last-Event-ID after the stream ends', async () => {
  const { api, calls } = fakeApi([1500], [sse(entry(1501) + entry(1502)), sse(entry(1503))]);
  const seen: ChangeEntry[] = [];
  const states: LiveState[] = [];
  const feed = new LiveFeed(api, (change) => seen.push(change), (state) => states.push(state), 1);
  feed.start();
  try {
    await until(() => seen.length === 3);
    assert.deepEqual(seen.map((change) => change.seq), [1501, 1502, 1503]);
    assert.deepEqual(calls.map((call) => call.path).slice(0, 2), ['/changes?since=0&limit=1', '/changes?since=1500'], 'no copy of every event to learn where the feed ends');
    assert.equal(calls[1]!.headers['Accept'], 'text/event-stream');
    assert.equal(calls[2]!.headers['Last-Event-ID'], '1502', 'the reconnection resumes after the last change seen');
    assert.ok(states.includes('live') && states.includes('reconnecting'));
  } finally {
    feed.stop();
  }
});

test('LiveFeed starts again from the head on 410 gone, and stops trying on 404 (a server without the feed)', async () => {
  const gone = (): Response => {
    throw new ApiProblem(410, 'gone', 'start again from since=0');
  };
  const { api, calls } = fakeApi([5, 9], [gone, sse(entry(10))]);
  const seen: number[] = [];
  const feed = new LiveFeed(api, (change) => seen.push(change.seq), () => undefined, 1);
  feed.start();
  try {
    await until(() => seen.length === 1);
    assert.deepEqual(calls.map((call) => call.path).slice(0, 4), ['/changes?since=0&limit=1', '/changes?since=5', '/changes?since=0&limit=1', '/changes?since=9']);
  } finally {
    feed.stop();
  }
  const missing = (): Response => {
    throw new ApiProblem(404, 'not_found', 'No resource at /changes');
  };
  const absent = fakeApi([0], [missing]);
  const states: LiveState[] = [];
  const off = new LiveFeed(absent.api, () => undefined, (state) => states.push(state), 1);
  off.start();
  await until(() => states.includes('unavailable'));
  off.stop();
  assert.equal(absent.calls.length, 2, 'no retry after a 404');
});

test('LiveFeed without Last-Seq (a proxy dropped it) pages the feed to next_since where more is false, as the contract alone allows', async () => {
  const { api, calls } = fakeApi([{ next_since: 3, more: true }, { next_since: 1003, more: true }, { next_since: 1500, more: false }], [sse(entry(1501))]);
  const seen: number[] = [];
  const feed = new LiveFeed(api, (change) => seen.push(change.seq), () => undefined, 1);
  feed.start();
  try {
    await until(() => seen.length === 1);
    assert.deepEqual(calls.map((call) => call.path).slice(0, 4), ['/changes?since=0&limit=1', '/changes?since=3&limit=1000', '/changes?since=1003&limit=1000', '/changes?since=1500']);
  } finally {
    feed.stop();
  }
});

test('LiveFeed gives up on a stream that says nothing for longer than the server\'s comments allow (a frozen instance), says why, and resumes', async () => {
  // A stream that sends one change and then nothing, neither data nor the 15 s comment, and never ends: an instance
  // stopped with its connection open.
  const frozen = (): Response => new Response(new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode(entry(8))) }), { status: 200, headers: { 'content-type': 'text/event-stream' } });
  const { api, calls } = fakeApi([7], [frozen, sse(entry(9))]);
  const seen: number[] = [];
  const states: [LiveState, string | undefined][] = [];
  const feed = new LiveFeed(api, (change) => seen.push(change.seq), (state, why) => states.push([state, why]), 1, 100);
  feed.start();
  try {
    await until(() => seen.length === 2);
    assert.deepEqual(seen, [8, 9]);
    assert.equal(calls[2]!.headers['Last-Event-ID'], '8', 'resumed after the last change seen');
    assert.deepEqual(states.slice(0, 4), [['connecting', undefined], ['live', undefined], ['reconnecting', 'The server sent nothing for 0.1 s.'], ['live', undefined]]);
  } finally {
    feed.stop();
  }
});

test('LiveFeed says a feed request that timed out was not answered in time, not that something "may have been done"', async () => {
  const timedOut = (): Response => {
    throw new ApiProblem(0, 'timeout', 'The server did not answer within 30 s, so this may or may not have been done. Check before trying again.');
  };
  const { api } = fakeApi([3], [timedOut, sse(entry(4))]);
  const states: [LiveState, string | undefined][] = [];
  const seen: number[] = [];
  const feed = new LiveFeed(api, (change) => seen.push(change.seq), (state, why) => states.push([state, why]), 1);
  feed.start();
  try {
    await until(() => seen.length === 1);
    assert.deepEqual(states.find(([state]) => state === 'reconnecting'), ['reconnecting', 'The server did not answer in time.']);
  } finally {
    feed.stop();
  }
});
