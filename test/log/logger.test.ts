// The logger: one JSON object per line, levels, the request line's fixed shape, and batching.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/log/logger.js';

function capture(level: 'debug' | 'info' | 'warn' | 'error' | 'silent' = 'info', pretty = false) {
  const chunks: string[] = [];
  const logger = createLogger({ level, pretty, write: (text) => chunks.push(text), now: () => Date.UTC(2026, 8, 1, 17, 0, 0, 5) });
  return { logger, lines: () => chunks.join('').split('\n').filter((line) => line !== '') };
}

test('createLogger() writes one JSON object per line with time, level, msg and the fields', () => {
  const { logger, lines } = capture();
  logger.info('started', { url: 'http://127.0.0.1:3000', pid: 42, skipped: undefined });
  logger.flush();
  assert.deepEqual(lines().map((line) => JSON.parse(line)), [{ time: '2026-09-01T17:00:00.005Z', level: 'info', msg: 'started', url: 'http://127.0.0.1:3000', pid: 42 }]);
});

test('request() writes the request line as valid JSON even when the path needs escaping', () => {
  const { logger, lines } = capture();
  logger.request({ requestId: 'abc-1', method: 'GET', path: '/events?q="x"\\\n', status: 200, durationMs: 0.125, keyId: 'key_abc' });
  logger.request({ requestId: 'abc-2', method: 'POST', path: '/events', status: 401, durationMs: 1, keyId: undefined });
  logger.flush();
  assert.deepEqual(lines().map((line) => JSON.parse(line)), [
    { time: '2026-09-01T17:00:00.005Z', level: 'info', msg: 'request', request_id: 'abc-1', method: 'GET', path: '/events?q="x"\\\n', status: 200, duration_ms: 0.125, key_id: 'key_abc' },
    { time: '2026-09-01T17:00:00.005Z', level: 'info', msg: 'request', request_id: 'abc-2', method: 'POST', path: '/events', status: 401, duration_ms: 1 },
  ]);
});

test('createLogger() drops lines below its level, and request lines below info', () => {
  const { logger, lines } = capture('warn');
  logger.debug('d');
  logger.info('i');
  logger.request({ requestId: 'r', method: 'GET', path: '/', status: 200, durationMs: 1, keyId: undefined });
  logger.warn('w');
  logger.error('e');
  logger.flush();
  assert.deepEqual(lines().map((line) => JSON.parse(line).msg), ['w', 'e']);
  assert.equal(logger.enabled('info'), false);
  assert.equal(logger.enabled('error'), true);
});

test('createLogger() with pretty writes a readable line, not JSON', () => {
  const { logger, lines } = capture('info', true);
  logger.request({ requestId: 'r-1', method: 'GET', path: '/events', status: 200, durationMs: 2, keyId: 'key_x' });
  logger.flush();
  assert.equal(lines()[0], '2026-09-01T17:00:00.005Z INFO  request request_id=r-1 method=GET path=/events status=200 duration_ms=2 key_id=key_x');
});

test('createLogger() batches lines into one write per turn of the event loop', async () => {
  const writes: string[] = [];
  const logger = createLogger({ write: (text) => writes.push(text) });
  logger.info('a');
  logger.info('b');
  assert.equal(writes.length, 0, 'nothing written synchronously');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(writes.length, 1);
  assert.equal(writes[0]!.split('\n').length, 3);
});

test('request() carries the client address and user agent when given (issue 11.9)', () => {
  const written: string[] = [];
  const logger = createLogger({ write: (text) => written.push(text), now: () => Date.UTC(2026, 8, 1, 17) });
  logger.request({ requestId: 'r', method: 'GET', path: '/events', status: 429, durationMs: 1, keyId: undefined, client: '2001:db8::7', userAgent: 'curl/8.5.0 "quoted"' });
  logger.flush();
  const line = JSON.parse(written.join('')) as Record<string, unknown>;
  assert.equal(line['client'], '2001:db8::7');
  assert.equal(line['user_agent'], 'curl/8.5.0 "quoted"');
});
