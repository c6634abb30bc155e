// redactKeys: no API key reaches a log line, in the path, in any query parameter, however the client encoded it (issues 12.6, §9.1).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loggedRequestId, redactKeys } from '../../src/http/redact-keys.js';

const KEY = 'cek_3kTfQ9ZbW1xYp0aLr7MvN2cD8eHjGu5s_-Ab';
const SECRET = KEY.slice(4);

/** Every octet of `text` as %XX. */
function encodeAll(text: string, upper = false): string {
  const hex = [...Buffer.from(text)].map((byte) => '%' + byte.toString(16).padStart(2, '0')).join('');
  return upper ? hex.toUpperCase() : hex;
}

test('redactKeys() leaves a target without a key exactly as sent, percent-encoding included', () => {
  for (const target of ['/events', '/events?category=social&limit=10', '/events?title=caf%C3%A9', '/events/evt_%41bc', '/events?q=%20x', '/', '']) {
    assert.equal(redactKeys(target), target);
  }
});

test('redactKeys() hides a literal key anywhere in a target', () => {
  assert.equal(redactKeys(`/events/${KEY}`), '/events/cek_[redacted]');
  assert.equal(redactKeys(`/events?category=social&x=${KEY}`), '/events?category=social&x=cek_[redacted]');
});

test('redactKeys() hides the value of a key parameter, whatever it holds, the name percent-encoded too', () => {
  assert.equal(redactKeys(`/events.ics?key=${KEY}`), '/events.ics?key=[redacted]');
  assert.equal(redactKeys(`/events.ics?category=social&key=${KEY}&end_date=2026-09-01`), '/events.ics?category=social&key=[redacted]&end_date=2026-09-01');
  assert.equal(redactKeys(`/events.ics?key=${SECRET}`), '/events.ics?key=[redacted]', 'a key without its prefix');
  assert.equal(redactKeys(`/events.ics?%6Bey=${KEY}`), '/events.ics?key=[redacted]');
  assert.equal(redactKeys(`/events.ics?%6b%65%79=${KEY}`), '/events.ics?key=[redacted]');
  assert.equal(redactKeys(`key=${KEY}&category=social`), 'key=[redacted]&category=social', 'a bare query, as the pipeline holds it');
  assert.equal(redactKeys('/events.ics?monkey=1&keys=2'), '/events.ics?monkey=1&keys=2', 'only the parameter named key');
});

test('redactKeys() hides a percent-encoded key in any parameter: cek%5F…, %63ek_…, every octet, and encoded twice', () => {
  const encodings = [encodeAll(KEY), encodeAll(KEY, true), KEY.replace('cek_', 'cek%5F'), KEY.replace('cek_', '%63ek_'), encodeURIComponent(KEY), encodeAll(KEY).replace(/%/g, '%25')];
  for (const encoded of encodings) {
    const logged = redactKeys(`/events.ics?x=${encoded}`);
    assert.equal(logged, '/events.ics?x=cek_[redacted]', encoded);
  }
  for (const target of [`/events?token=cek%5F${SECRET}`, `/events/%63ek_${SECRET}`, `/x?a=cek_%41${SECRET}`]) {
    const logged = redactKeys(target);
    assert.ok(!logged.includes(SECRET) && !logged.includes(SECRET.slice(1)), `${target} logged as ${logged}`);
  }
});

test('loggedRequestId() redacts a key sent as a request id and leaves any other id as it is', () => {
  assert.equal(loggedRequestId(KEY), 'cek_[redacted]');
  assert.equal(loggedRequestId(`trace-${KEY}`), 'trace-cek_[redacted]');
  for (const id of ['1kdenei-6b3', 'key=abc', 'a'.repeat(128)]) assert.equal(loggedRequestId(id), id);
});
