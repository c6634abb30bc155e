// nextAttemptAt: the waits of API.md §13, and the end of the 3 days.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FAILING_AFTER_MS, nextAttemptAt } from '../../src/webhooks/retry-schedule.js';

test('nextAttemptAt waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then 10 h again', () => {
  const waits = [1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => nextAttemptAt(attempt, 0, 1000)! - 1000);
  assert.deepEqual(waits, [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, 36_000_000]);
});

test('nextAttemptAt puts the last retry at the end of the 3 days, and none after', () => {
  assert.equal(nextAttemptAt(12, 0, FAILING_AFTER_MS - 1000), FAILING_AFTER_MS);
  assert.equal(nextAttemptAt(13, 0, FAILING_AFTER_MS), undefined);
});
