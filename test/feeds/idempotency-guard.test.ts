// IdempotencyGuard, withIdempotency and hashRequest in process, over a real MemoryStore and an injected clock: a model of
// API.md §9.3 (replay, 422 on reuse, 409 in flight, the per-API-key quota counting requests in flight, expiry after 24 h)
// run over seeded random sequences, then the cases a sequence rarely meets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashRequest, IdempotencyGuard, withIdempotency, type IdempotentWrite, type RenderAnswer } from '../../src/feeds/idempotency.js';
import { ApiError } from '../../src/http/errors.js';
import type { HandlerResult, RequestContext } from '../../src/http/route.js';
import { IDEMPOTENCY_TTL_MS, type IdempotencyEntry } from '../../src/store/views/idempotency-table.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { AlreadyAnswered } from '../../src/store/store-errors.js';
import { mulberry32 } from '../helpers/random.js';
import { eventId, sampleRecord } from '../store/helpers.js';

interface Request {
  method?: string;
  target?: string;
  prefix?: string;
  body?: string | null;
}

/** A request context as the pipeline builds it, from API key `keyId` with an Idempotency-Key header (absent when undefined). */
function contextOf(keyId: string, idempotencyKey: string | string[] | undefined, request: Request = {}): RequestContext {
  const body = request.body === undefined ? '{"title":"T"}' : request.body;
  return {
    request: {
      method: request.method ?? 'POST',
      target: request.target ?? '/events',
      headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey as string },
      body: body === null ? null : Buffer.from(body),
      bodyTooLarge: false,
      remoteAddress: '127.0.0.1',
    },
    params: {},
    query: '',
    prefix: request.prefix ?? '',
    principal: { keyId, name: 'Olivia', email: 'olivia@campus.edu', role: 'organizer' },
    body: {},
  };
}

/** Renders a remembered answer as the routes do: the body and a Location that keeps the prefix of the retry. */
const render: RenderAnswer = (entry, context) => ({ status: 201, body: `seq ${entry.seq}`, headers: { Location: `${context.prefix}/events/${entry.seq}` } });

/** Asserts `run` throws an ApiError with `code`, whose message has every part, and returns it. */
function refusal(run: () => unknown, code: string, ...parts: string[]): ApiError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ApiError, `expected ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  for (const part of parts) assert.ok(caught.message.includes(part), `${JSON.stringify(caught.message)} lacks ${JSON.stringify(part)}`);
  return caught;
}

/** Requests that hash the same share a class: /v1 and the query do not count; method, path and body bytes do. */
const VARIANTS: { request: Request; hashClass: string }[] = [
  { request: {}, hashClass: 'create' },
  { request: { target: '/v1/events?dry=1', prefix: '/v1' }, hashClass: 'create' },
  { request: { body: '{"title":"U"}' }, hashClass: 'other body' },
  { request: { target: '/events/evt_0000000000000001/registrations' }, hashClass: 'other path' },
  { request: { method: 'PUT' }, hashClass: 'other method' },
];
const API_KEYS = ['key_a', 'key_b'];
const IDEMPOTENCY_KEYS = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
const BAD_KEYS = ['', 'x'.repeat(256), 'caf\u00e9', 'tab\there', 'line\nbreak'];

interface Remembered {
  hashClass: string;
  atMs: number;
  seq: number;
}

interface Pending {
  keyId: string;
  key: string;
  hashClass: string;
  write: IdempotentWrite;
}

/** Runs one sequence; returns how often each outcome came up, so the diagnostic shows the sequence reached them all. */
async function runModel(seed: number): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  const saw = (outcome: string): void => void (seen[outcome] = (seen[outcome] ?? 0) + 1);
  const random = mulberry32(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  let now = Date.UTC(2026, 10, 25, 10);
  const store = new MemoryStore({ now: () => now });
  const quota = 2 + Math.floor(random() * 3);
  const guard = new IdempotencyGuard(store, () => now, { quota });
  const remembered = new Map<string, Remembered>();
  const pending: Pending[] = [];
  let written = 0;
  const slotOf = (keyId: string, key: string): string => JSON.stringify([keyId, key]);

  for (let step = 0; step < 150; step++) {
    const context = `step ${step} (quota ${quota}, at +${(now - Date.UTC(2026, 10, 25, 10)) / 1000} s)`;
    const roll = random();
    if (roll < 0.55) {
      const keyId = pick(API_KEYS);
      const headerRoll = random();
      const key = headerRoll < 0.05 ? undefined : headerRoll < 0.1 ? pick(BAD_KEYS) : pick(IDEMPOTENCY_KEYS);
      const variant = pick(VARIANTS);
      const request = contextOf(keyId, key, variant.request);
      const what = `${context}: ${keyId} sends ${JSON.stringify(key)} with ${variant.hashClass}`;
      if (key === undefined) {
        assert.equal(guard.begin(request, render), undefined, what);
        saw('plain');
        continue;
      }
      if (BAD_KEYS.includes(key)) {
        refusal(() => guard.begin(request, render), 'bad_request', 'Idempotency-Key header must be 1 to 255 printable ASCII characters');
        saw('400');
        continue;
      }
      const slot = slotOf(keyId, key);
      const answer = remembered.get(slot);
      const inFlight = pending.find((p) => p.keyId === keyId && p.key === key);
      const first = answer?.hashClass ?? inFlight?.hashClass;
      if (first !== undefined && first !== variant.hashClass) {
        refusal(() => guard.begin(request, render), 'idempotency_key_reused', `Idempotency-Key "${key}" was already used with another request`);
        saw('422');
      } else if (answer !== undefined) {
        const result = guard.begin(request, render);
        assert.ok(result !== undefined && 'replay' in result, what);
        assert.deepEqual(result.replay, { status: 201, body: `seq ${answer.seq}`, headers: { Location: `${variant.request.prefix ?? ''}/events/${answer.seq}`, 'Idempotent-Replayed': 'true' } }, what);
        saw('replay');
      } else if (inFlight !== undefined) {
        const error = refusal(() => guard.begin(request, render), 'conflict', `Idempotency-Key "${key}" is still being written`);
        assert.deepEqual(error.headers, { 'Retry-After': '1' }, what);
        saw('409');
      } else {
        const mine = [...remembered.entries()].filter(([name]) => JSON.parse(name)[0] === keyId).map(([, entry]) => entry);
        const held = mine.length + pending.filter((p) => p.keyId === keyId).length;
        if (held >= quota) {
          const error = refusal(() => guard.begin(request, render), 'rate_limited', `already holds ${quota} Idempotency-Key answers`);
          const oldest = Math.min(...mine.map((entry) => entry.atMs));
          const retry = mine.length === 0 ? 1 : Math.max(1, Math.ceil((oldest + IDEMPOTENCY_TTL_MS - now) / 1000));
          assert.deepEqual(error.headers, { 'Retry-After': String(retry), 'Cache-Control': 'no-store' }, what);
          assert.ok(error.message.includes(`refused for ${retry} s`), what);
          saw(mine.length === 0 ? '429 all in flight' : '429');
        } else {
          const result = guard.begin(request, render);
          assert.ok(result !== undefined && 'tag' in result, what);
          assert.deepEqual(result.tag, { key, keyId, requestHash: hashRequest(request) }, what);
          pending.push({ keyId, key, hashClass: variant.hashClass, write: result });
          saw('write');
        }
      }
    } else if (roll < 0.75 && pending.length > 0) {
      // The write commits under its tag: the store remembers the answer.
      const done = pending.splice(Math.floor(random() * pending.length), 1)[0]!;
      written++;
      const stored = await store.write(eventId(written), () => sampleRecord(written), { idem: done.write.tag });
      done.write.done();
      remembered.set(slotOf(done.keyId, done.key), { hashClass: done.hashClass, atMs: now, seq: stored!.seq });
    } else if (roll < 0.85 && pending.length > 0) {
      // The write failed (a 400, a 503): nothing is remembered and the key is free again.
      const failed = pending.splice(Math.floor(random() * pending.length), 1)[0]!;
      failed.write.done();
    } else {
      now += pick([1000, 10 * 60_000, 6 * 3_600_000, 12 * 3_600_000 + Math.floor(random() * 3_600_000)]);
      for (const [slot, entry] of remembered) if (now - entry.atMs >= IDEMPOTENCY_TTL_MS) remembered.delete(slot);
    }
  }
  return seen;
}

test('IdempotencyGuard against a model: replay, 422, 409, the quota with requests in flight, expiry (seeded random sequences)', async (t) => {
  const first = Number(process.env['TEST_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  for (const seed of [first, first + 1, first + 2, first + 3]) {
    try {
      t.diagnostic(`seed ${seed}: ${JSON.stringify(await runModel(seed))}`);
    } catch (error) {
      throw new Error(`seed ${seed} failed (rerun with TEST_SEED=${seed}): ${error instanceof Error ? error.stack : String(error)}`);
    }
  }
});

test('IdempotencyGuard counts requests in flight against the quota until each is done, per API key', () => {
  const store = new MemoryStore({ now: () => 0 });
  const guard = new IdempotencyGuard(store, () => 0, { quota: 2 });
  const begin = (keyId: string, key: string): IdempotentWrite => {
    const result = guard.begin(contextOf(keyId, key), render);
    assert.ok(result !== undefined && 'tag' in result, `${keyId} ${key}`);
    return result;
  };
  const a1 = begin('key_a', 'a1');
  const a2 = begin('key_a', 'a2');
  refusal(() => guard.begin(contextOf('key_a', 'a3'), render), 'rate_limited', 'holds 2 Idempotency-Key answers', 'refused for 1 s');
  begin('key_b', 'a1');
  a1.done();
  const a3 = begin('key_a', 'a3');
  refusal(() => guard.begin(contextOf('key_a', 'a4'), render), 'rate_limited');
  a2.done();
  a3.done();
  begin('key_a', 'a4');
  begin('key_a', 'a5');
  refusal(() => guard.begin(contextOf('key_a', 'a6'), render), 'rate_limited');
});

test('IdempotencyGuard refuses a repeated Idempotency-Key header (two values), and takes one line "a, b" as one key', () => {
  const guard = new IdempotencyGuard(new MemoryStore(), () => 0);
  refusal(() => guard.begin(contextOf('key_a', ['a', 'b']), render), 'bad_request', 'more than one Idempotency-Key header');
  const write = guard.begin(contextOf('key_a', 'a, b'), render);
  assert.ok(write !== undefined && 'tag' in write);
  assert.equal(write.tag.key, 'a, b');
  refusal(() => guard.begin(contextOf('key_a', 'a, b'), render), 'conflict', '"a, b"');
});

test('IdempotencyGuard messages name the key, clipped past 60 characters, and an empty one as empty', () => {
  const guard = new IdempotencyGuard(new MemoryStore(), () => 0);
  refusal(() => guard.begin(contextOf('key_a', ''), render), 'bad_request', 'got an empty one.');
  refusal(() => guard.begin(contextOf('key_a', 'caf\u00e9'), render), 'bad_request', 'got "caf\u00e9".');
  // UTF-8 bytes, as node hands them over (read as Latin-1): quoted as the client wrote them.
  refusal(() => guard.begin(contextOf('key_a', Buffer.from('k\u00e9y', 'utf8').toString('latin1')), render), 'bad_request', 'got "k\u00e9y".');
  const sixty = 'k'.repeat(60);
  const long = `${'l'.repeat(57)}XYZW`;
  guard.begin(contextOf('key_a', sixty), render);
  guard.begin(contextOf('key_a', long), render);
  refusal(() => guard.begin(contextOf('key_a', sixty), render), 'conflict', `Idempotency-Key "${sixty}" is still`);
  refusal(() => guard.begin(contextOf('key_a', long), render), 'conflict', `Idempotency-Key "${'l'.repeat(57)}..." is still`);
  refusal(() => guard.begin(contextOf('key_a', long, { body: '{}' }), render), 'idempotency_key_reused', `Idempotency-Key "${'l'.repeat(57)}..." was already used`);
  refusal(() => guard.begin(contextOf('key_a', `${'b'.repeat(300)}\u0000`), render), 'bad_request', `got "${'b'.repeat(57)}...".`);
});

test('hashRequest() hashes method, path without prefix or query, and body bytes into 32 base64url characters', () => {
  const hash = (request: Request): string => hashRequest(contextOf('key_a', 'k', request));
  const base = hash({});
  assert.match(base, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(hash({ target: '/v1/events', prefix: '/v1' }), base);
  assert.equal(hash({ target: '/events?x=1' }), base);
  assert.equal(hash({ target: '/base/v1/events?x=1&y=2', prefix: '/base/v1' }), base);
  const others = [hash({ method: 'PUT' }), hash({ target: '/events/x' }), hash({ target: '/v1/events' }), hash({ body: '{"title":"U"}' }), hash({ target: '/events?', body: '' })];
  assert.equal(new Set([base, ...others]).size, 1 + others.length, 'each differs from the first and from each other');
  assert.equal(hash({ body: null }), hash({ body: '' }), 'no body and an empty body are the same request');
  assert.notEqual(hash({ target: '/events?a', body: null }), hash({ target: '/events?a', method: 'PUT', body: null }));
});

test('withIdempotency() writes without a tag when there is no header, and frees the key after a write that threw', async () => {
  const guard = new IdempotencyGuard(new MemoryStore(), () => 0);
  const ok: HandlerResult = { status: 201, body: 'made' };
  let tags: unknown[] = [];
  assert.equal(await withIdempotency(guard, contextOf('key_a', undefined), render, async (tag) => (tags.push(tag), ok)), ok);
  assert.deepEqual(tags, [undefined]);
  const failing = withIdempotency(guard, contextOf('key_a', 'k'), render, async () => {
    throw new ApiError('validation_failed', 'title is required');
  });
  await assert.rejects(failing, (error: unknown) => error instanceof ApiError && error.code === 'validation_failed');
  tags = [];
  assert.equal(await withIdempotency(guard, contextOf('key_a', 'k'), render, async (tag) => (tags.push(tag), ok)), ok, 'the key is free again');
  assert.deepEqual(tags, [{ key: 'k', keyId: 'key_a', requestHash: hashRequest(contextOf('key_a', 'k')) }]);
});

test('withIdempotency() replays the answer another instance committed meanwhile (AlreadyAnswered), or 422 if that was another request', async () => {
  const guard = new IdempotencyGuard(new MemoryStore(), () => 0);
  const request = contextOf('key_a', 'shared', { target: '/v1/events', prefix: '/v1' });
  const entry = (requestHash: string): IdempotencyEntry => ({ key: 'shared', keyId: 'key_a', requestHash, atMs: 0, seq: 17, answer: { kind: 'event', view: '{}', createdAt: '2026-11-25T10:00:00.000Z' } });
  const answered = await withIdempotency(guard, request, render, async () => {
    throw new AlreadyAnswered(entry(hashRequest(request)));
  });
  assert.deepEqual(answered, { status: 201, body: 'seq 17', headers: { Location: '/v1/events/17', 'Idempotent-Replayed': 'true' } });
  await assert.rejects(
    withIdempotency(guard, request, render, async () => {
      throw new AlreadyAnswered(entry('another-hash'));
    }),
    (error: unknown) => error instanceof ApiError && error.code === 'idempotency_key_reused' && error.message.startsWith('Idempotency-Key "shared" was already used with another request'),
  );
  const crash = new Error('disk gone');
  await assert.rejects(withIdempotency(guard, request, render, async () => Promise.reject(crash)), (error: unknown) => error === crash);
  const free = guard.begin(request, render);
  assert.ok(free !== undefined && 'tag' in free, 'every path freed the key');
});

test('withIdempotency() answers a retry of a committed write from the store, without writing again', async () => {
  const store = new MemoryStore({ now: () => 0 });
  const guard = new IdempotencyGuard(store, () => 0);
  let writes = 0;
  const create = async (tag: Parameters<Parameters<typeof withIdempotency>[3]>[0]): Promise<HandlerResult> => {
    writes++;
    const stored = await store.write(eventId(writes), () => sampleRecord(writes), { idem: tag });
    return { status: 201, body: `seq ${stored!.seq}`, headers: { Location: `/events/${stored!.seq}` } };
  };
  const first = await withIdempotency(guard, contextOf('key_a', 'once'), render, create);
  const retry = await withIdempotency(guard, contextOf('key_a', 'once'), render, create);
  assert.equal(writes, 1);
  assert.equal(store.size, 1);
  assert.deepEqual(retry, { ...first, headers: { ...first.headers, 'Idempotent-Replayed': 'true' } });
});
