// A seeded fuzz test against a live server (startServer on port 0, in process): at least 10,000 random and mutated bodies,
// query strings, header sets, paths and raw byte streams. No 5xx, no crash, every error in the contract's JSON shape with
// its catalog status, and nothing stored by a refused request. Replay a failure with the FUZZ_SEED it prints.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log/logger.js';
import { caseSeed, describeRequest, fuzzRequest, Random, type FuzzContext, type FuzzRequest } from './fuzz-inputs.js';
import { parseResponse } from './raw-client.js';
import { assertErrorShape, JSON_CONTENT_TYPE, send, startLive, type LiveResponse, type LiveServer } from './support.js';

const SEED = process.env['FUZZ_SEED'] === undefined ? 0x5eed2026 : Number(process.env['FUZZ_SEED']);
/** Cases sent one at a time, each write checked against the bytes of events.jsonl. */
const SEQUENTIAL_CASES = Number(process.env['FUZZ_SEQUENTIAL'] ?? 1_500);
/** Cases sent by CONCURRENCY workers at once. */
const CONCURRENT_CASES = Number(process.env['FUZZ_CONCURRENT'] ?? 9_000);
const CONCURRENCY = 16;
const TIMEOUTS = { headersMs: 1_000, requestMs: 1_500, keepAliveMs: 5_000 };
const MAX_REPORTED = 10;

const SUCCESS = new Set([200, 201, 204, 304]);

interface Outcome {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

interface Failure {
  index: number;
  request: FuzzRequest;
  problem: string;
}

/** Checks one response against the contract; returns what is wrong, or undefined. */
function checkOutcome(request: FuzzRequest, outcome: Outcome): string | undefined {
  try {
    const { status, headers, text } = outcome;
    assert.ok(status < 500, `a ${status}`);
    // The web console (API.md §10): `/` redirects to it, and its page and files are not JSON.
    const consolePath = /^(\/v1)?\/(console(\/[^?]*)?)?(\?.*)?$/.test(request.path);
    assert.ok(SUCCESS.has(status) || status >= 400 || (consolePath && status === 302), `unexpected status ${status}`);
    assert.equal(headers['api-version'], '1.0', 'API-Version');
    assert.ok(typeof headers['x-request-id'] === 'string' && headers['x-request-id'].length > 0, 'X-Request-Id');
    const bodyless = request.method === 'HEAD' || status === 204 || status === 304;
    if (bodyless) assert.equal(text, '', 'no body');
    if (status >= 400) {
      assert.equal(headers['content-type'], JSON_CONTENT_TYPE, 'error content type');
      if (!bodyless) assertErrorShape(status, headers['content-type'] as string, text, 'error');
      if (status === 401) assert.ok(headers['www-authenticate'], 'WWW-Authenticate on 401');
      if (status === 405) assert.ok(headers['allow'], 'Allow on 405');
      if (status === 429) assert.ok(Number(headers['retry-after']) >= 1, 'Retry-After on 429');
    } else if (!bodyless && !consolePath) {
      assert.equal(headers['content-type'], JSON_CONTENT_TYPE, 'success content type');
      JSON.parse(text);
    }
    return undefined;
  } catch (error) {
    return `${(error as Error).message}\n  got ${outcome.status} ${JSON.stringify(outcome.headers).slice(0, 600)}\n  ${outcome.text.slice(0, 600)}`;
  }
}

/** Sends raw bytes and reads until the server closes or a whole response has been idle a moment. */
function sendRaw(port: number, bytes: Buffer): Promise<Outcome | 'no answer'> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let idle: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearTimeout(idle);
      clearTimeout(deadline);
      socket.destroy();
      const text = received.replace(/^(HTTP\/1\.1 100 Continue\r\n\r\n)+/, '');
      const response = parseResponse(text);
      resolve(response === undefined ? 'no answer' : { status: response.status, headers: response.headers, text: Buffer.from(response.body, 'latin1').toString('utf8') });
    };
    const deadline = setTimeout(finish, TIMEOUTS.requestMs + 2_500);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      clearTimeout(idle);
      idle = setTimeout(finish, 150);
    });
    socket.on('close', finish);
    socket.on('error', () => undefined);
  });
}

/** What one worker believes is stored for the events it owns: id → the single-read JSON. */
type Model = Map<string, Record<string, unknown>>;

describe(`fuzz: ${SEQUENTIAL_CASES + CONCURRENT_CASES} seeded requests (FUZZ_SEED=${SEED})`, () => {
  let live: LiveServer;
  let agent: http.Agent;
  let errorLog = '';
  const failures: Failure[] = [];
  /** How often each answer came, e.g. `201` or `400 validation_failed`, to show the run reached every layer. */
  const seen = new Map<string, number>();
  const models: Model[] = [];
  const owned: string[][] = [];
  let logPath = '';

  before(async () => {
    const serverRandom = new Random(SEED);
    live = await startLive(
      { timeouts: TIMEOUTS, rateLimit: 1_000_000, logger: createLogger({ level: 'error', write: (text) => (errorLog += text) }) },
      (size) => serverRandom.bytes(size),
    );
    logPath = path.join(live.dataDir, 'events.jsonl');
    agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY, timeout: 30_000 });
    // Each worker owns two events to start with; only that worker ever targets them, so its model is exact.
    for (let worker = 0; worker < CONCURRENCY; worker++) {
      models.push(new Map());
      owned.push([]);
      for (let i = 0; i < 2; i++) {
        const created = await send(live.port, agent, { method: 'POST', path: '/events', headers: { authorization: `Bearer ${live.keys.organizer}`, 'content-type': 'application/json' }, body: JSON.stringify({ title: `Seed ${worker}.${i}`, category: 'social', location: 'Quad', start_time: '2026-10-01T10:00:00Z', end_time: '2026-10-01T12:00:00Z', capacity: 50 }) });
        assert.equal(created.status, 201, created.text);
        await remember(worker, JSON.parse(created.text).id as string);
      }
    }
  });
  after(async () => {
    agent.destroy();
    await live.close();
  });

  function context(worker: number): FuzzContext {
    return { keys: live.keys, ownIds: owned[worker]! };
  }

  async function remember(worker: number, id: string): Promise<void> {
    const read = await send(live.port, agent, { method: 'GET', path: `/events/${id}`, headers: { authorization: `Bearer ${live.keys.reader}` } });
    assert.equal(read.status, 200, `a created event can be read: ${read.text}`);
    models[worker]!.set(id, JSON.parse(read.text) as Record<string, unknown>);
    if (!owned[worker]!.includes(id)) owned[worker]!.push(id);
  }

  /** Brings a worker's model up to date with a successful write. */
  async function learn(worker: number, request: FuzzRequest, outcome: Outcome): Promise<string | undefined> {
    if (!SUCCESS.has(outcome.status) || !['POST', 'PUT', 'DELETE'].includes(request.method)) return undefined;
    if (request.method === 'POST' && outcome.status === 201) {
      await remember(worker, JSON.parse(outcome.text).id as string);
      return undefined;
    }
    if (request.targetId === undefined) return `a ${outcome.status} write to ${request.path.slice(0, 100)}, which is no event this worker owns`;
    if (request.method === 'PUT') models[worker]!.set(request.targetId, JSON.parse(outcome.text) as Record<string, unknown>);
    if (request.method === 'DELETE') {
      models[worker]!.delete(request.targetId);
      owned[worker]!.splice(owned[worker]!.indexOf(request.targetId), 1);
    }
    return undefined;
  }

  /**
   * Three cases in four come from one of 64 other loopback addresses, so the failed-authentication throttle
   * (100 per address) blocks 127.0.0.1 early but leaves most bad keys to reach the 401 path.
   */
  function clientAddress(index: number): string | undefined {
    return index % 4 === 0 ? undefined : `127.0.0.${2 + (index % 64)}`;
  }

  async function exchange(request: FuzzRequest, localAddress: string | undefined): Promise<Outcome | string> {
    if (request.raw !== undefined) {
      const outcome = await sendRaw(live.port, request.raw);
      return outcome === 'no answer' ? 'the server closed the connection (or went silent) without an answer' : outcome;
    }
    try {
      const response: LiveResponse = await send(live.port, agent, { method: request.method, path: request.path, headers: request.headers, localAddress, ...(request.body === undefined ? {} : { body: request.body }) });
      return response;
    } catch (error) {
      return `the request failed: ${(error as Error).message}`;
    }
  }

  async function runCase(index: number, worker: number, checkBytes: boolean): Promise<void> {
    const request = fuzzRequest(new Random(caseSeed(SEED, index)), context(worker), !checkBytes);
    const logBefore = checkBytes ? readFileSync(logPath) : undefined;
    const outcome = await exchange(request, clientAddress(index));
    let problem = typeof outcome === 'string' ? outcome : checkOutcome(request, outcome);
    if (typeof outcome !== 'string') {
      const code = outcome.status >= 400 && outcome.text.startsWith('{') ? ` ${(JSON.parse(outcome.text) as { error: string }).error}` : '';
      const label = `${request.method === 'RAW' ? 'raw ' : ''}${outcome.status}${code}`;
      seen.set(label, (seen.get(label) ?? 0) + 1);
    }
    if (problem === undefined && typeof outcome !== 'string') {
      if (logBefore !== undefined && !SUCCESS.has(outcome.status) && !readFileSync(logPath).equals(logBefore)) {
        problem = `a refused ${outcome.status} request changed events.jsonl`;
      }
      problem ??= await learn(worker, request, outcome);
    }
    if (problem !== undefined) failures.push({ index, request, problem });
  }

  function report(): string {
    return failures
      .slice(0, MAX_REPORTED)
      .map((failure) => `case ${failure.index} (replay: FUZZ_SEED=${SEED}; case seed ${caseSeed(SEED, failure.index)}): ${failure.problem}\n  ${describeRequest(failure.request)}`)
      .join('\n\n');
  }

  it(`sends ${SEQUENTIAL_CASES} cases one at a time: no 5xx, contract errors, a refused write leaves events.jsonl byte-identical`, async () => {
    failures.length = 0;
    for (let index = 0; index < SEQUENTIAL_CASES; index++) await runCase(index, index % CONCURRENCY, true);
    assert.equal(failures.length, 0, `${failures.length} failing cases (FUZZ_SEED=${SEED}):\n${report()}`);
  });

  it(`sends ${CONCURRENT_CASES} cases from ${CONCURRENCY} workers at once: no 5xx, contract errors, the server still healthy`, async () => {
    failures.length = 0;
    let next = SEQUENTIAL_CASES;
    const end = SEQUENTIAL_CASES + CONCURRENT_CASES;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, worker) => {
        while (next < end) await runCase(next++, worker, false);
      }),
    );
    assert.equal(failures.length, 0, `${failures.length} failing cases (FUZZ_SEED=${SEED}):\n${report()}`);
    const health = await send(live.port, agent, { method: 'GET', path: '/health' });
    assert.equal(health.status, 200);
  });

  it('stores exactly what the successful writes said, and nothing a refused one sent', async () => {
    const expected = new Map<string, Record<string, unknown>>();
    for (const model of models) for (const [id, event] of model) expected.set(id, event);
    const stored = new Map<string, Record<string, unknown>>();
    for (let page = 1; ; page++) {
      const response = await send(live.port, agent, { method: 'GET', path: `/events?limit=100&page=${page}`, headers: { authorization: `Bearer ${live.keys.reader}` } });
      assert.equal(response.status, 200);
      const { events } = JSON.parse(response.text) as { events: Record<string, unknown>[] };
      if (events.length === 0) break;
      for (const event of events) stored.set(event['id'] as string, event);
    }
    assert.deepEqual([...stored.keys()].sort(), [...expected.keys()].sort(), 'the stored ids are those created and not deleted');
    for (const [id, event] of expected) assert.deepEqual(stored.get(id), event, `event ${id}`);
  });

  it('logged no error: no request reached the 500 path', () => {
    assert.equal(errorLog, '');
  });

  it('reached every layer: successes and each kind of refusal came back', (t) => {
    const wanted = ['200', '201', '204', '304', '400 bad_request', '400 validation_failed', '401 unauthorized', '403 forbidden', '404 not_found', '405 method_not_allowed', '412 precondition_failed', '413 payload_too_large', '415 unsupported_media_type', '429 rate_limited', 'raw 400 bad_request', 'raw 431 headers_too_large'];
    const missing = wanted.filter((label) => !seen.has(label));
    t.diagnostic([...seen.entries()].sort().map(([label, count]) => `${label}: ${count}`).join(', '));
    assert.deepEqual(missing, [], `never seen: ${missing.join(', ')}`);
  });
});
