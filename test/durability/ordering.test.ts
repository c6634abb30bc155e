// Order under concurrency on the real server: group-committed lines keep their sequence, and racing If-Match writes cannot both win.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { tempDir } from '../helpers/harness.js';
import { createKey, eventBody, logFile, logRecords, serverArgs, startServer, type Server } from './support.js';

let server: Server;
let key: string;
let dir: string;
let remove: () => void;
/** Many sockets at once, so the server really sees the requests together. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 200, timeout: 30_000 });

before(async () => {
  ({ dir, remove } = tempDir('campus-ordering-'));
  key = createKey(dir);
  server = await startServer(serverArgs(dir));
});

after(async () => {
  agent.destroy();
  server.child.kill('SIGTERM');
  await server.exited;
  remove();
});

/** One request over the shared agent. */
function request(method: string, target: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${target}`, {
      method,
      agent,
      headers: { authorization: `Bearer ${key}`, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }), ...headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.end(payload);
  });
}

test('1000 concurrent POSTs: all 201, and events.jsonl holds their lines in sequence order with no sequence missing', async () => {
  const responses = await Promise.all(Array.from({ length: 1000 }, (_, n) => request('POST', '/events', eventBody(`Concurrent ${n}`))));
  assert.deepEqual(responses.filter((response) => response.status !== 201).map((response) => response.body), []);
  const ids = new Set(responses.map((response) => (JSON.parse(response.body) as { id: string }).id));
  assert.equal(ids.size, 1000);
  const records = logRecords(logFile(dir));
  assert.deepEqual(
    records.map((record) => record.seq),
    Array.from({ length: 1000 }, (_, n) => n + 1),
  );
  assert.deepEqual(new Set(records.map((record) => record.id)), ids);
});

test('50 concurrent PUTs carrying the same If-Match: exactly one 200, the other 49 get 412', async () => {
  const created = await request('POST', '/events', eventBody('Contested'));
  const { id } = JSON.parse(created.body) as { id: string };
  const etag = created.headers.etag!;
  const responses = await Promise.all(Array.from({ length: 50 }, (_, n) => request('PUT', `/events/${id}`, { title: `Winner ${n}` }, { 'if-match': etag })));
  const statuses = responses.map((response) => response.status).sort();
  assert.deepEqual(statuses, [200, ...Array<number>(49).fill(412)]);
  const winner = JSON.parse(responses.find((response) => response.status === 200)!.body) as { title: string };
  const read = await request('GET', `/events/${id}`);
  assert.equal((JSON.parse(read.body) as { title: string }).title, winner.title);
  assert.notEqual(read.headers.etag, etag);
});
