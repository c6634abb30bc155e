import assert from 'node:assert/strict';
import test from 'node:test';
import { IDEMPOTENCY_TTL_MS, IdempotencyTable, type IdempotencyEntry } from '../../src/store/idempotency-table.js';

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

test('IdempotencyTable keeps at most maxEntries, forgetting the oldest', () => {
  const table = new IdempotencyTable({ maxEntries: 3 });
  for (let n = 0; n < 5; n++) table.remember(entry(`k${n}`, n), n);
  assert.equal(table.size, 3);
  assert.equal(table.find('key_a', 'k1', 5), undefined);
  assert.ok(table.find('key_a', 'k4', 5));
  assert.deepEqual(table.live(5).map((each) => each.key), ['k2', 'k3', 'k4']);
});

test('IdempotencyTable keeps at most maxChars of answers', () => {
  const table = new IdempotencyTable({ maxChars: 1000 });
  for (let n = 0; n < 50; n++) table.remember(entry(`k${n}`, n), n);
  assert.ok(table.size < 10 && table.size > 0, `kept ${table.size}`);
});
