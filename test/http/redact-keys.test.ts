// redactKeys: no API key reaches a log line, however the client encoded it in the target (issue 12.6).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containsKey, redactKeys } from '../../src/http/redact-keys.js';

const SECRET = 'AbCdEf0123456789xyzXYZ_-q';

test('redactKeys() hides a literal key anywhere in the target', () => {
  assert.equal(redactKeys(`/events.ics?key=cek_${SECRET}&category=social`), '/events.ics?key=cek_[redacted]&category=social');
  assert.equal(redactKeys(`/events/cek_${SECRET}`), '/events/cek_[redacted]');
});

test('redactKeys() hides a percent-encoded key: cek%5F…, %63ek_…, and encoded twice', () => {
  for (const target of [`/events?token=cek%5F${SECRET}`, `/events/%63ek_${SECRET}`, `/events/%63%65%6B%5F${SECRET}`, `/x?a=%2563ek_${SECRET}`, `/x?a=cek_%41${SECRET}`]) {
    const logged = redactKeys(target);
    assert.ok(!logged.includes(SECRET) && !logged.includes(SECRET.slice(1)), `${target} logged as ${logged}`);
    assert.match(logged, /cek_\[redacted\]/);
  }
});

test('redactKeys() leaves a target without a key exactly as sent, percent-encoding included', () => {
  for (const target of ['/events?category=social', '/events?title=caf%C3%A9', '/events/evt_%41bc', '/']) assert.equal(redactKeys(target), target);
});

test('containsKey() finds key-shaped text of at least 8 characters after cek_', () => {
  assert.equal(containsKey(`cek_${SECRET}`), true);
  assert.equal(containsKey('cek_12345678'), true);
  assert.equal(containsKey('cek_1234567'), false);
  assert.equal(containsKey('request-42'), false);
});
