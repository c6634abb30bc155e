// nextAttemptAt: the waits of API.md §13, and the end of the 3 days.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FAILING_AFTER_MS, nextAttemptAt, savedRetryAt } from '../../src/webhooks/retry-schedule.js';

test('nextAttemptAt waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then 10 h again', () => {
  const waits = [1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => nextAttemptAt(attempt, 0, 1000)! - 1000);
  assert.deepEqual(waits, [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, 36_000_000]);
});

test('nextAttemptAt puts the last retry at the end of the 3 days, and none after', () => {
  assert.equal(nextAttemptAt(12, 0, FAILING_AFTER_MS - 1000), FAILING_AFTER_MS);
  assert.equal(nextAttemptAt(13, 0, FAILING_AFTER_MS), undefined);
});

test('savedRetryAt() is the time the next attempt was due when the state was saved, from attempts, the first failure and the delivery log (issue 33.5)', () => {
  const at = (ms: number): string => new Date(ms).toISOString();
  const failed = (attempt: number, ms: number) => ({ message_id: 'msg_x', type: 'event.created', attempt, status: 'failed' as const, response_status: 500, error: 'answered 500', at: at(ms) });
  const T = Date.parse('2027-03-01T08:00:00Z');
  assert.equal(savedRetryAt({ attempts: 0, firstFailureMs: null, deliveries: [] }), undefined, 'nothing failed: at once');
  assert.equal(savedRetryAt({ attempts: 1, firstFailureMs: T, deliveries: [failed(1, T)] }), T + 5_000);
  assert.equal(savedRetryAt({ attempts: 3, firstFailureMs: T, deliveries: [failed(3, T + 305_000), failed(2, T + 5_000), failed(1, T)] }), T + 305_000 + 30 * 60_000);
  // A gap noted after the last attempt (attempt 0, no message id) does not hide it.
  const gap = { message_id: null, type: null, attempt: 0, status: 'failed' as const, response_status: null, error: 'compacted', at: at(T + 9_000) };
  assert.equal(savedRetryAt({ attempts: 1, firstFailureMs: T, deliveries: [gap, failed(1, T)] }), T + 5_000);
  assert.equal(savedRetryAt({ attempts: 2, firstFailureMs: T, deliveries: [failed(1, T)] }), undefined, 'the log no longer shows the last attempt: at once');
  assert.equal(savedRetryAt({ attempts: 13, firstFailureMs: T, deliveries: [failed(13, T + 72 * 3_600_000)] }), T + 72 * 3_600_000, 'past the 3 days: due at once');
});
