// The request log line: the path as sent, but never a key nor the password of a target in absolute form.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/log/logger.js';
import { logRequest } from '../../src/http/request-log.js';
import type { PlainRequest } from '../../src/http/types.js';

function loggedPath(target: string): string {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', write: (text) => lines.push(text), schedule: (flush) => flush() });
  const request: PlainRequest = { method: 'GET', target, headers: {}, body: null, bodyTooLarge: false, remoteAddress: '127.0.0.1' };
  logRequest(logger, request, { status: 400, headers: { 'X-Request-Id': 'r-1' }, body: null }, performance.now());
  logger.flush();
  return (JSON.parse(lines.join('').trim()) as { path: string }).path;
}

test('logRequest() keeps the path as sent, but not the user information of a target in absolute form', () => {
  assert.equal(loggedPath('/events?page=2'), '/events?page=2');
  assert.equal(loggedPath('http://campus.example/events'), 'http://campus.example/events');
  assert.equal(loggedPath('http://ada:hunter2@campus.example/events'), 'http://[redacted]@campus.example/events');
  assert.equal(loggedPath('HTTPS://ada@campus.example/'), 'HTTPS://[redacted]@campus.example/');
});
