import assert from 'node:assert/strict';
import test from 'node:test';
import { IDEMPOTENCY_TTL_MS, IdempotencyTable, type IdempotencyEntry } from '../../../src/store/views/idempotency-table.js';

function entry(key: string, atMs: number, keyId = 'key_a'): IdempotencyEntry {
  return { key, keyId, requestHash: 'h', atMs, seq: 1, answer: { kind: 'event', view: '{}', createdAt: '2026-01-01T00:00:00.000Z' } };
}

test('IdempotencyTable.find() answers per API key and Idempotency-Key', () => {
  const table = new IdempotencyTable();
  table.remember(entry('k', 0), 0);
  assert.equal(table.find('key_a', 'k', 1)?.key, 'k');
  assert.equal(table.find('key_b', 'k', 1), undefined, 'another API key has its own keys');
});

test('IdempotencyTable forgets an answer 24 h after it was written', () => {
  const table = new IdempotencyTable();
  table.remember(entry('k', 1000), 1000);
  assert.ok(table.find('key_a', 'k', 1000 + IDEMPOTENCY_TTL_MS - 1));
  assert.equal(table.find('key_a', 'k', 1000 + IDEMPOTENCY_TTL_MS), undefined);
  assert.equal(table.size, 0);
  table.remember(entry('old', 0), IDEMPOTENCY_TTL_MS);
  assert.equal(table.size, 0, 'an answer already too old is not remembered (replay of an old log)');
});

test('IdempotencyTable: an answer written while the wall clock ran ahead (a year) is kept 24 h from when the clock was put right, and holds no other back', () => {
  const T = 1_800_000_000_000;
  const YEAR = 365 * 24 * 3_600_000;
  const table = new IdempotencyTable();
  table.remember(entry('ahead', T + YEAR), T + YEAR);
  table.remember(entry('after', T), T);
  assert.equal(table.find('key_a', 'ahead', T + 1)?.key, 'ahead', 'a retry just after the correction still replays');
  table.remember(entry('later', T + IDEMPOTENCY_TTL_MS / 2, 'key_b'), T + IDEMPOTENCY_TTL_MS / 2);
  assert.deepEqual(table.use('key_a', T + IDEMPOTENCY_TTL_MS - 1), { live: 2, oldestExpiresMs: T + IDEMPOTENCY_TTL_MS });
  assert.deepEqual(table.use('key_a', T + IDEMPOTENCY_TTL_MS), { live: 0, oldestExpiresMs: undefined });
  assert.deepEqual(table.live(T + IDEMPOTENCY_TTL_MS).map((each) => each.key), ['later']);
});

test('IdempotencyTable never forgets an answer younger than 24 h, however many another API key floods it with: regression of issue 22 point 2', () => {
  const table = new IdempotencyTable();
  table.remember(entry('mine', 0, 'key_b'), 0);
  // The old table kept at most 100,000 answers (64 Mi characters): one key's flood pushed out another key's answer.
  for (let n = 1; n <= 100_001; n++) table.remember(entry(`k${n}`, n, 'key_a'), n);
  assert.equal(table.find('key_b', 'mine', 100_002)?.key, 'mine', 'key_b\'s retry still gets its first answer');
  assert.equal(table.size, 100_002);
  assert.equal(table.find('key_a', 'k1', 100_002)?.key, 'k1');
});

test('IdempotencyTable.use() counts the live answers of one API key and says when its oldest is forgotten', () => {
  const table = new IdempotencyTable();
  assert.deepEqual(table.use('key_a', 0), { live: 0, oldestExpiresMs: undefined });
  table.remember(entry('a1', 1000), 1000);
  table.remember(entry('b1', 1500, 'key_b'), 1500);
  table.remember(entry('a2', 2000), 2000);
  table.remember(entry('a2', 2500), 2500); // the same key again replaces, not adds
  assert.deepEqual(table.use('key_a', 3000), { live: 2, oldestExpiresMs: 1000 + IDEMPOTENCY_TTL_MS });
  assert.deepEqual(table.use('key_b', 3000), { live: 1, oldestExpiresMs: 1500 + IDEMPOTENCY_TTL_MS });
  assert.deepEqual(table.use('key_a', 1000 + IDEMPOTENCY_TTL_MS), { live: 1, oldestExpiresMs: 2500 + IDEMPOTENCY_TTL_MS }, 'a1 expired');
  assert.deepEqual(table.use('key_b', 1500 + IDEMPOTENCY_TTL_MS), { live: 0, oldestExpiresMs: undefined });
  assert.equal(table.find('key_a', 'a1', 1000 + IDEMPOTENCY_TTL_MS - 1), undefined, 'forgotten for good');
  assert.equal(table.size, 1);
});
