// apiBase() and queryString(): where the console finds the API, and the query strings it sends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiBase, queryString } from '../../../src/console/web/api.js';
import { feedUrl } from '../../../src/console/web/feed-address.js';

test('apiBase() is the path the console is served under, so a mounted app calls its own API', () => {
  assert.equal(apiBase('/console/'), '');
  assert.equal(apiBase('/v1/console/'), '/v1');
  assert.equal(apiBase('/api/campus/console/'), '/api/campus');
  assert.equal(apiBase('/elsewhere'), '');
});

test('queryString() keeps non-empty values, encoded, and is empty when there are none', () => {
  assert.equal(queryString({ category: 'social', start_date: '', page: 2, limit: undefined }), '?category=social&page=2');
  assert.equal(queryString({ q: 'a&b c' }), '?q=a%26b+c');
  assert.equal(queryString({ category: '' }), '');
});

test('feedUrl() is the filter as an iCalendar address with key=, FEEDKEY standing in for a missing key', () => {
  assert.equal(feedUrl('http://127.0.0.1:3000', '', { category: 'academic', start_date: '', end_date: undefined }, 'cek_abc'), 'http://127.0.0.1:3000/events.ics?category=academic&key=cek_abc');
  assert.equal(feedUrl('https://events.campus.edu', '/api', {}, ''), 'https://events.campus.edu/api/events.ics?key=FEEDKEY');
});

test('Api gives up on a request whose answer has not begun within its time (a server stopped with the connection open), saying it may have been done', async () => {
  const { createServer } = await import('node:http');
  const { Api } = await import('../../../src/console/web/api.js');
  const { ApiProblem } = await import('../../../src/console/web/problem.js');
  // Reads the request, answers only a GET /slow-stream's head at once (then nothing), and never answers the rest.
  const server = createServer((request, response) => {
    if (request.url === '/slow-stream') response.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const api = new Api(`http://127.0.0.1:${port}`, () => 'cek_test', () => undefined, 200);
  try {
    await assert.rejects(api.json('POST', '/events', { body: { title: 'Concert' } }), (error: unknown) => {
      assert.ok(error instanceof ApiProblem);
      assert.deepEqual([error.status, error.code, error.message], [0, 'timeout', 'The server did not answer within 0.2 s, so this may or may not have been done. Check before trying again.']);
      return true;
    });
    // A stream whose head came is the caller's to end: its body is not cut at the answer's time.
    const stream = await api.send('GET', '/slow-stream', { headers: { Accept: 'text/event-stream' } });
    const reader = stream.body!.getReader();
    const read = reader.read();
    const late = await Promise.race([read.then(() => 'read'), new Promise((resolve) => setTimeout(resolve, 400, 'still open'))]);
    assert.equal(late, 'still open');
    await reader.cancel();
    // The caller's own abort is an AbortError, as before.
    const caller = new AbortController();
    const aborted = api.json('GET', '/events', { signal: caller.signal });
    caller.abort();
    await assert.rejects(aborted, (error: unknown) => error instanceof Error && error.name === 'AbortError');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
