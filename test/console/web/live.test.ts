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

/** A fake API: JSON pages of the feed, then one scripted answer per stream request. */
function fakeApi(pages: { next_since: number; more: boolean }[], streams: (() => Response)[]): { api: Api; calls: Call[] } {
  const calls: Call[] = [];
  let page = 0;
  let stream = 0;
  const api = {
    base: '',
    async json(_method: string, path: string) {
      calls.push({ path, headers: {} });
      const next = pages[Math.min(page++, pages.length - 1)]!;
      return { status: 200, data: { changes: [], ...next }, etag: null };
    },
    async send(_method: string, path: string, options: { headers?: Record<string, string> } = {}) {
      calls.push({ path, headers: options.headers ?? {} });
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

test('LiveFeed pages the JSON feed to its head, streams from there, and resumes with Last-Event-ID after the stream ends', async () => {
  const { api, calls } = fakeApi([{ next_since: 1000, more: true }, { next_since: 1500, more: false }], [sse(entry(1501) + entry(1502)), sse(entry(1503))]);
  const seen: ChangeEntry[] = [];
  const states: LiveState[] = [];
  const feed = new LiveFeed(api, (change) => seen.push(change), (state) => states.push(state), 1);
  feed.start();
  try {
    await until(() => seen.length === 3);
    assert.deepEqual(seen.map((change) => change.seq), [1501, 1502, 1503]);
    assert.deepEqual(calls.slice(0, 2).map((call) => call.path), ['/changes?since=0&limit=1000', '/changes?since=1000&limit=1000']);
    assert.equal(calls[2]!.path, '/changes?since=1500');
    assert.equal(calls[2]!.headers['Accept'], 'text/event-stream');
    assert.equal(calls[3]!.headers['Last-Event-ID'], '1502', 'the reconnection resumes after the last change seen');
    assert.ok(states.includes('live') && states.includes('reconnecting'));
  } finally {
    feed.stop();
  }
});

test('LiveFeed starts again from the head on 410 gone, and stops trying on 404 (a server without the feed)', async () => {
  const gone = (): Response => {
    throw new ApiProblem(410, 'gone', 'start again from since=0');
  };
  const { api, calls } = fakeApi([{ next_since: 5, more: false }, { next_since: 9, more: false }], [gone, sse(entry(10))]);
  const seen: number[] = [];
  const feed = new LiveFeed(api, (change) => seen.push(change.seq), () => undefined, 1);
  feed.start();
  try {
    await until(() => seen.length === 1);
    assert.deepEqual(calls.map((call) => call.path).slice(0, 4), ['/changes?since=0&limit=1000', '/changes?since=5', '/changes?since=0&limit=1000', '/changes?since=9']);
  } finally {
    feed.stop();
  }
  const missing = (): Response => {
    throw new ApiProblem(404, 'not_found', 'No resource at /changes');
  };
  const absent = fakeApi([{ next_since: 0, more: false }], [missing]);
  const states: LiveState[] = [];
  const off = new LiveFeed(absent.api, () => undefined, (state) => states.push(state), 1);
  off.start();
  await until(() => states.includes('unavailable'));
  off.stop();
  assert.equal(absent.calls.length, 2, 'no retry after a 404');
});
