// IdempotencyTable against a plain model (the answers in written order, the oldest expired ones dropped from the front, those from
// the future moved to now) over seeded random steps, the clock stepping back at times.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IDEMPOTENCY_TTL_MS, IdempotencyTable, type IdempotencyEntry } from '../../../src/store/views/idempotency-table.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['IDEMPOTENCY_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const TTL = 1000;
const API_KEYS = ['key_a', 'key_b', 'key_c'];

function entry(keyId: string, key: string, atMs: number, seq: number): IdempotencyEntry {
  return { key, keyId, requestHash: `h${seq}`, atMs, seq, answer: { kind: 'event', view: `{"n":${seq}}`, createdAt: '2026-01-01T00:00:00.000Z' } };
}

test(`IdempotencyTable remembers, finds, counts and forgets as a plain list in written order does (IDEMPOTENCY_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const table = new IdempotencyTable({ ttlMs: TTL });
  let model: IdempotencyEntry[] = [];
  const expired = (each: IdempotencyEntry, nowMs: number): boolean => nowMs - each.atMs >= TTL;
  // From the front: an answer from the future (the clock stepped back since) counts from now and is passed over,
  // expired ones go, and the first young one stops the walk.
  const prune = (nowMs: number): void => {
    let k = 0;
    for (; k < model.length; k++) {
      const each = model[k]!;
      if (each.atMs > nowMs) each.atMs = nowMs;
      else if (expired(each, nowMs)) model.splice(k--, 1);
      else break;
    }
  };
  let nowMs = 0;
  for (let step = 1; step <= 3000; step++) {
    // The clock mostly moves on, sometimes jumps past the TTL, sometimes steps back.
    nowMs = Math.max(0, nowMs + (below(20) === 0 ? TTL : below(20) === 0 ? -below(300) : below(40)));
    const keyId = API_KEYS[below(API_KEYS.length)]!;
    const key = `idem-${below(25)}`;
    const what = `seed ${SEED}, step ${step} at ${nowMs}`;
    const kind = below(4);
    if (kind < 2) {
      // Replay hands in old lines too: some are already past the TTL, some written a little in the past.
      const atMs = nowMs - (below(8) === 0 ? TTL + below(10) : below(8) === 0 ? TTL - 1 : below(200));
      // The model keeps copies: the table moves an answer from the future to now on its own.
      const remembered = entry(keyId, key, atMs, step);
      table.remember(entry(keyId, key, atMs, step), nowMs);
      model = model.filter((each) => each.keyId !== keyId || each.key !== key);
      // An answer already past the TTL is dropped at once, before anything else is pruned.
      if (!expired(remembered, nowMs)) {
        model.push(remembered);
        prune(nowMs);
      }
    } else if (kind === 2) {
      const held = model.find((each) => each.keyId === keyId && each.key === key);
      const expected = held === undefined || expired(held, nowMs) ? undefined : held;
      if (held !== undefined && expected === undefined) model = model.filter((each) => each !== held);
      assert.deepEqual(table.find(keyId, key, nowMs), expected, `${what}: find ${keyId} ${key}`);
    } else {
      prune(nowMs);
      const mine = model.filter((each) => each.keyId === keyId);
      const oldest = mine.length === 0 ? undefined : Math.min(...mine.slice(0, 8).map((each) => each.atMs)) + TTL;
      assert.deepEqual(table.use(keyId, nowMs), { live: mine.length, oldestExpiresMs: oldest }, `${what}: use ${keyId}`);
    }
    assert.equal(table.size, model.length, `${what}: size`);
    if (step % 50 === 0) {
      prune(nowMs);
      assert.deepEqual(table.live(nowMs), model, `${what}: live, oldest first`);
    }
  }
});

test('IdempotencyTable.use() looks at the first eight answers of a key for the oldest, so a clock stepped back within them counts', () => {
  const table = new IdempotencyTable({ ttlMs: TTL });
  for (let n = 0; n < 10; n++) table.remember(entry('key_a', `k${n}`, n === 7 ? 100 : 500 + n, n), 500);
  assert.deepEqual(table.use('key_a', 500), { live: 10, oldestExpiresMs: 100 + TTL });
  assert.equal(new IdempotencyTable().ttlMs, IDEMPOTENCY_TTL_MS);
});
