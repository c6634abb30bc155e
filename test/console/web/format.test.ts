// toLocalInput() and fromLocalInput(): a datetime-local value is read in the browser's time zone and sent as UTC.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromLocalInput, toLocalInput } from '../../../src/console/web/format.js';

/** Runs `body` with the process in time zone `zone` (Node re-reads TZ when it changes). */
function inZone(zone: string, body: () => void): void {
  const previous = process.env['TZ'];
  process.env['TZ'] = zone;
  try {
    body();
  } finally {
    if (previous === undefined) delete process.env['TZ'];
    else process.env['TZ'] = previous;
  }
}

test('fromLocalInput() reads the value as local time and answers UTC', () => {
  inZone('America/Los_Angeles', () => assert.equal(fromLocalInput('2026-09-01T18:00'), '2026-09-02T01:00:00.000Z'));
  inZone('Asia/Tokyo', () => assert.equal(fromLocalInput('2026-09-01T08:30'), '2026-08-31T23:30:00.000Z'));
  inZone('UTC', () => assert.equal(fromLocalInput('2026-09-01T08:30:15'), '2026-09-01T08:30:15.000Z'));
});

test('fromLocalInput() gives undefined for an empty or malformed value, so the API names the missing field', () => {
  for (const value of ['', '2026-09-01', 'tomorrow', '2026-09-01 18:00']) assert.equal(fromLocalInput(value), undefined, value);
});

test('toLocalInput() is the inverse of fromLocalInput() to the minute', () => {
  inZone('Europe/Paris', () => {
    assert.equal(toLocalInput('2026-09-01T17:00:00.000Z'), '2026-09-01T19:00');
    assert.equal(fromLocalInput(toLocalInput('2026-12-31T23:59:00.000Z')), '2026-12-31T23:59:00.000Z');
  });
});
