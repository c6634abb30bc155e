// rememberAnswer(): which log lines leave an answer in the idempotency table, and exactly which answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStored } from '../../../src/store/views/served-event.js';
import { IdempotencyTable } from '../../../src/store/views/idempotency-table.js';
import { rememberAnswer } from '../../../src/store/views/remember-answer.js';
import { registrationId } from './roster-helpers.js';
import { sampleRecord } from '../helpers.js';

test('rememberAnswer() remembers the answer of a create or a registration sent with an Idempotency-Key, and nothing else', () => {
  const table = new IdempotencyTable();
  const idem = { key: 'retry-1', keyId: 'key_a', requestHash: 'abc' };
  const stored = toStored(sampleRecord(1), 7);
  const nowMs = stored.modifiedMs + 1;
  rememberAnswer(table, { seq: 7, op: 'put', stored }, nowMs);
  rememberAnswer(table, { seq: 8, op: 'del', id: stored.id }, nowMs);
  assert.equal(table.size, 0, 'no Idempotency-Key, nothing remembered');
  rememberAnswer(table, { seq: 7, op: 'put', stored, idem }, nowMs);
  assert.deepEqual(table.find('key_a', 'retry-1', nowMs), { ...idem, atMs: stored.modifiedMs, seq: 7, answer: { kind: 'event', view: stored.json, createdAt: stored.createdAt } });
  const registration = { id: registrationId(1), eventId: stored.id, name: 'A', email: 'a@b.example', status: 'confirmed' as const, createdAt: '2026-08-02T00:00:00.000Z', checkedInAt: null, seq: 9 };
  const regIdem = { ...idem, key: 'retry-2' };
  rememberAnswer(table, { seq: 9, op: 'reg', registration }, Date.parse(registration.createdAt));
  assert.equal(table.size, 1);
  rememberAnswer(table, { seq: 9, op: 'reg', registration, idem: regIdem }, Date.parse(registration.createdAt));
  assert.deepEqual(table.find('key_a', 'retry-2', Date.parse(registration.createdAt)), { ...regIdem, atMs: Date.parse(registration.createdAt), seq: 9, answer: { kind: 'registration', registration } });
  rememberAnswer(table, { seq: 10, op: 'regstate', registration }, 0);
  assert.equal(table.size, 2, 'a registration-state line made by compaction answers nothing');
});

test('rememberAnswer() builds no answer for a line older than the table keeps (a replay of years of retries), and such a line still replaces what its keys held', () => {
  const table = new IdempotencyTable();
  const idem = { key: 'retry-1', keyId: 'key_a', requestHash: 'abc' };
  const stored = toStored(sampleRecord(1), 7);
  // A packed event builds its view when asked: here, asking counts.
  let built = 0;
  const counting = Object.create(stored, { json: { get: () => (built++, stored.json) } }) as typeof stored;
  const dayLater = stored.modifiedMs + table.ttlMs;
  rememberAnswer(table, { seq: 7, op: 'put', stored: counting, idem }, dayLater);
  assert.equal(built, 0, 'an answer a day old is not built');
  assert.equal(table.size, 0);
  rememberAnswer(table, { seq: 7, op: 'put', stored: counting, idem }, stored.modifiedMs + 1);
  assert.equal(table.size, 1);
  rememberAnswer(table, { seq: 8, op: 'put', stored: counting, idem }, dayLater);
  assert.equal(table.find('key_a', 'retry-1', stored.modifiedMs + 1), undefined, 'the later line under the same keys replaced it, though too old to keep');
});
