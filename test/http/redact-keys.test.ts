// Tests of redactKeys(): no API key reaches a log line, in the path, in any query parameter, or percent-encoded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containsKey, redactKeys } from '../../src/http/redact-keys.js';

const KEY = 'cek_3kTfQ9ZbW1xYp0aLr7MvN2cD8eHjGu5s_-Ab';
const SECRET = KEY.slice(4);

/** Every octet of `text` as %XX. */
function encodeAll(text: string, upper = false): string {
  const hex = [...Buffer.from(text)].map((byte) => '%' + byte.toString(16).padStart(2, '0')).join('');
  return upper ? hex.toUpperCase() : hex;
}

test('redactKeys() leaves text without keys as it is', () => {
  for (const text of ['/events', '/events?category=social&limit=10', '/events/evt_abc', '/events?q=%20x', '']) assert.equal(redactKeys(text), text);
});

test('redactKeys() hides a key anywhere in a target', () => {
  assert.equal(redactKeys(`/events/${KEY}`), '/events/cek_[redacted]');
  assert.equal(redactKeys(`/events?category=social&x=${KEY}`), '/events?category=social&x=cek_[redacted]');
});

test('redactKeys() hides the value of a key parameter, whatever it holds, the name percent-encoded too', () => {
  assert.equal(redactKeys(`/events.ics?key=${KEY}`), '/events.ics?key=[redacted]');
  assert.equal(redactKeys(`/events.ics?category=social&key=${KEY}&end_date=2026-09-01`), '/events.ics?category=social&key=[redacted]&end_date=2026-09-01');
  assert.equal(redactKeys(`/events.ics?key=${SECRET}`), '/events.ics?key=[redacted]', 'a key without its prefix');
  assert.equal(redactKeys(`/events.ics?%6Bey=${KEY}`), '/events.ics?%6Bey=[redacted]');
  assert.equal(redactKeys(`/events.ics?%6b%65%79=${KEY}`), '/events.ics?%6b%65%79=[redacted]');
  assert.equal(redactKeys(`key=${KEY}&category=social`), 'key=[redacted]&category=social', 'a bare query, as the pipeline holds it');
  assert.equal(redactKeys('/events.ics?monkey=1&keys=2'), '/events.ics?monkey=1&keys=2', 'only the parameter named key');
});

test('redactKeys() hides a percent-encoded key in any parameter', () => {
  for (const encoded of [encodeAll(KEY), encodeAll(KEY, true), KEY.replace('cek_', 'cek%5F'), KEY.replace('cek_', '%63ek_'), encodeURIComponent(KEY)]) {
    const redacted = redactKeys(`/events.ics?x=${encoded}`);
    assert.equal(redacted, '/events.ics?x=cek_[redacted]', encoded);
  }
});

test('containsKey() spots a key-shaped run', () => {
  assert.equal(containsKey(`id-${KEY}`), true);
  assert.equal(containsKey('cek_short'), false);
  assert.equal(containsKey('plain-request-id'), false);
});
