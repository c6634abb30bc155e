// readSettings(): the console's settings.json read with defaults for what is missing or not understood.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readSettings } from '../../../src/console/web/settings.js';

test('readSettings() takes the time zone and approval the server wrote', () => {
  assert.deepEqual(readSettings({ time_zone: 'Asia/Kolkata', approval: 'required' }), { timeZone: 'Asia/Kolkata', approval: 'required' });
  assert.deepEqual(readSettings({ time_zone: 'UTC', approval: 'off' }), { timeZone: 'UTC', approval: 'off' });
});

test('readSettings() falls back to UTC and an unknown approval for a server that does not say, or says nonsense', () => {
  assert.deepEqual(readSettings({ time_zone: 'Europe/Berlin' }), { timeZone: 'Europe/Berlin', approval: 'unknown' });
  assert.deepEqual(readSettings({ time_zone: '', approval: 'sometimes' }), { timeZone: 'UTC', approval: 'unknown' });
  assert.deepEqual(readSettings(null), { timeZone: 'UTC', approval: 'unknown' });
  assert.deepEqual(readSettings('oops'), { timeZone: 'UTC', approval: 'unknown' });
});
