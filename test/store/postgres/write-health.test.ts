// WriteHealth: a failed write batch is remembered until one commits, and asks for a batch that writes nothing at most once a second.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WriteHealth } from '../../../src/store/postgres/write-health.js';

test('a failure is kept until a batch commits, logged once each way, and a probe is due at most once a second meanwhile', () => {
  let now = 1_000_000;
  const lines: string[] = [];
  const health = new WriteHealth({ info: (message) => lines.push(`info ${message}`), warn: (message) => lines.push(`warn ${message}`) }, () => now);
  assert.equal(health.failure, undefined);
  assert.equal(health.probeDue(), false, 'nothing failed: no probe');
  health.ended(Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }), false);
  assert.equal(health.failure, '55P03');
  health.ended(new Error('the answer to COMMIT was lost'), true);
  assert.equal(health.failure, 'no answer', 'the newest failure is named');
  assert.equal(health.probeDue(), true);
  now += 999;
  assert.equal(health.probeDue(), false, '999 ms after the last probe');
  now += 1;
  assert.equal(health.probeDue(), true, '1000 ms after it');
  health.ended(undefined, false);
  assert.equal(health.failure, 'no answer', 'a batch that wrote no row proves nothing (it never waits for a synchronous standby)');
  health.ended(undefined, true);
  assert.equal(health.failure, undefined);
  now += 5_000;
  assert.equal(health.probeDue(), false, 'writes commit: no probe');
  health.ended(undefined, true);
  assert.deepEqual(lines, ['warn a write could not be committed; /health says 503 until one is', 'info writes commit again']);
});

test('a suspicion (a rate-limit lease failed) asks for one probe, and only a failed probe turns /health to 503', () => {
  let now = 5_000_000;
  const health = new WriteHealth({ info: () => undefined, warn: () => undefined }, () => now);
  health.suspect();
  assert.equal(health.failure, undefined, 'a suspicion alone is no failure');
  assert.equal(health.probeDue(), true);
  now += 2_000;
  assert.equal(health.probeDue(), false, 'one probe per suspicion');
  health.ended(undefined, true);
  assert.equal(health.failure, undefined);
  health.suspect();
  assert.equal(health.probeDue(), true);
  health.ended(Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' }), false);
  assert.equal(health.failure, '25006');
});
