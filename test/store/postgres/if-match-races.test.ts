// 2,000 If-Match races across three instances on one database (API.md §4, §12): each has exactly one winner, and every
// instance ends with the winner's version.
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { skip, usePostgres } from '../../helpers/postgres-fixture.js';
import { newEvent, startInstances, type Instances } from '../../helpers/instances.js';

const pg = usePostgres();
const EVENTS = 2_000;
/** Requests in flight at once over all instances: enough to fill group commits, few enough for a 2-core machine. */
const IN_FLIGHT = 48;

interface Answer {
  status: number;
  etag: string | undefined;
  body: Record<string, unknown>;
}

/** JSON requests over keep-alive connections (fetch would open and tear down far more of them). */
function client(instances: Instances): { call(i: number, method: string, target: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT, timeout: 30_000 });
  return {
    call(i, method, target, body, headers = {}) {
      const url = new URL(target, instances.servers[i]!.url);
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const request = http.request(url, { method, agent, headers: { authorization: `Bearer ${instances.adminKey}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers } }, (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, etag: response.headers.etag, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) }));
          response.on('error', reject);
        });
        request.on('error', reject);
        request.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}

/** Runs `work` for 0..count-1, at most `limit` at a time. */
async function pool(count: number, limit: number, work: (n: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < count) await work(next++);
  }));
}

/** Every live event of instance `i` by id, with the seq of its last change, paged through /changes. */
async function changesOf(api: ReturnType<typeof client>, i: number): Promise<Map<string, { seq: number; title: unknown }>> {
  const events = new Map<string, { seq: number; title: unknown }>();
  let since = 0;
  let copy: string | undefined;
  for (;;) {
    const page = await api.call(i, 'GET', `/changes?since=${since}&limit=1000${copy === undefined ? '' : `&copy=${copy}`}`);
    assert.equal(page.status, 200);
    const { changes, next_since, more, copy: token } = page.body as { changes: { id: string; seq: number; event: { title: unknown } }[]; next_since: number; more: boolean; copy?: string };
    for (const change of changes) events.set(change.id, { seq: change.seq, title: change.event.title });
    if (!more) return events;
    since = next_since;
    copy = token;
  }
}

describe('If-Match races across three instances', { skip, timeout: 180_000 }, () => {
  it(`${EVENTS} events, each raced by a PUT from every instance with the same If-Match: exactly one 200 and two 412s each, and every instance keeps the winner`, async () => {
    const three = await startInstances(await pg.database('races'), 3);
    const api = client(three);
    try {
      const ids: string[] = [];
      const created: string[] = [];
      await pool(EVENTS, IN_FLIGHT, async (n) => {
        const answer = await api.call(n % 3, 'POST', '/events', newEvent(n));
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        ids[n] = answer.body['id'] as string;
        created[n] = answer.etag!;
      });
      // Race only once every instance holds every event, so a race is decided by If-Match alone.
      for (let i = 0; i < 3; i++) {
        for (let tries = 0; (await api.call(i, 'GET', '/events?limit=1')).body['total'] !== EVENTS; tries++) {
          assert.ok(tries < 250, `instance ${i} has all ${EVENTS} events`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      const winners: { instance: number; etag: string }[] = [];
      await pool(EVENTS, IN_FLIGHT / 3, async (n) => {
        const puts = await Promise.all([0, 1, 2].map((i) => api.call(i, 'PUT', `/events/${ids[n]}`, { title: `Won by ${i}` }, { 'if-match': created[n]! })));
        assert.deepEqual(puts.map((put) => put.status).sort(), [200, 412, 412], `event ${ids[n]}: ${JSON.stringify(puts.map((put) => put.body))}`);
        const instance = puts.findIndex((put) => put.status === 200);
        assert.notEqual(puts[instance]!.etag, created[n]);
        for (const put of puts) if (put.status === 412) assert.equal(put.body['error'], 'precondition_failed');
        winners[n] = { instance, etag: puts[instance]!.etag! };
      });
      // Each instance's view: the winner's title, at the winner's version (an ETag begins with its state's seq).
      for (let i = 0; i < 3; i++) {
        let events = await changesOf(api, i);
        for (let tries = 0; ![...events.values()].every((event) => typeof event.title === 'string' && event.title.startsWith('Won')); tries++) {
          assert.ok(tries < 100, `instance ${i} applied every winning write`);
          await new Promise((resolve) => setTimeout(resolve, 50));
          events = await changesOf(api, i);
        }
        assert.equal(events.size, EVENTS);
        ids.forEach((id, n) => {
          const event = events.get(id)!;
          assert.equal(event.title, `Won by ${winners[n]!.instance}`, `instance ${i}, event ${id}`);
          assert.ok(winners[n]!.etag.startsWith(`"${event.seq.toString(36)}-`), `instance ${i}, event ${id}: the stored version (seq ${event.seq}) is the winner's (${winners[n]!.etag})`);
        });
      }
      // Every instance won some: the races were really between instances.
      for (let i = 0; i < 3; i++) assert.ok(winners.some((winner) => winner.instance === i), `instance ${i} won at least one race`);
    } finally {
      api.close();
      await three.stop();
    }
  });
});
