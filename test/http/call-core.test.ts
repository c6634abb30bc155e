// callCore: the core's answer handed on, and a throw or a rejection turned into a JSON 500 its id finds in the log.
import assert from 'node:assert/strict';
import test from 'node:test';
import { callCore } from '../../src/http/call-core.js';
import { createLogger } from '../../src/log/logger.js';
import type { CoreResponse, PlainRequest } from '../../src/http/types.js';

const REQUEST: PlainRequest = { method: 'GET', target: '/events', headers: {}, body: null, bodyTooLarge: false, remoteAddress: '127.0.0.1' };

/** Runs callCore over `handle` and returns the answer with the error lines logged meanwhile. */
async function run(handle: () => CoreResponse | Promise<CoreResponse>): Promise<{ response: CoreResponse; logged: Record<string, string>[] }> {
  const written: string[] = [];
  const logger = createLogger({ write: (text) => written.push(text), schedule: (flush) => flush() });
  const response = await new Promise<CoreResponse>((respond) => callCore(handle, REQUEST, logger, { respond }));
  logger.flush();
  const logged = written.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, string>);
  return { response, logged };
}

for (const [how, handle] of [
  ['throws', (): never => { throw new TypeError('core bug'); }],
  ['rejects', (): Promise<never> => Promise.reject(new TypeError('core bug'))],
] as const) {
  test(`callCore: a core that ${how} answers a JSON 500 whose X-Request-Id finds the stack in the log`, async () => {
    const { response, logged } = await run(handle);
    assert.equal(response.status, 500);
    assert.equal((JSON.parse(String(response.body)) as { error: string }).error, 'internal');
    const id = response.headers['X-Request-Id'];
    assert.ok(id !== undefined && id !== '', 'the 500 carries a request id');
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.equal(logged[0]!['request_id'], id);
    assert.match(logged[0]!['error']!, /TypeError: core bug\n\s+at /);
  });
}

test('callCore: an answer the core gives is handed on as it is, and nothing is logged', async () => {
  const answer: CoreResponse = { status: 204, headers: { 'X-Request-Id': 'r1' }, body: null };
  const { response, logged } = await run(() => answer);
  assert.equal(response, answer);
  assert.deepEqual(logged, []);
});
