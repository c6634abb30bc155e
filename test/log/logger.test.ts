// The logger: one JSON object per line, levels, the request line's fixed shape, and batching.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, FLUSH_DELAY_MS, jsonString } from '../../src/log/logger.js';
import { mulberry32 } from '../helpers/random.js';

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

test('createLogger() gathers the lines of FLUSH_DELAY_MS into one write, scheduled once at the first line', () => {
  const writes: string[] = [];
  const timers: Array<() => void> = [];
  const logger = createLogger({ write: (text) => writes.push(text), schedule: (flush) => timers.push(flush) });
  logger.info('a');
  logger.request({ requestId: 'r', method: 'GET', path: '/', status: 200, durationMs: 1, keyId: undefined });
  logger.info('b');
  assert.equal(writes.length, 0, 'nothing written synchronously');
  assert.equal(timers.length, 1, 'one timer for the three lines');
  timers[0]!();
  assert.equal(writes.length, 1);
  assert.equal(writes[0]!.split('\n').length, 4);
  logger.info('c');
  assert.equal(timers.length, 2, 'a line after the write schedules the next one');
});

test('createLogger() writes at once past 64 KiB, and flush() leaves the pending timer nothing to write twice', () => {
  const writes: string[] = [];
  const timers: Array<() => void> = [];
  const logger = createLogger({ write: (text) => writes.push(text), schedule: (flush) => timers.push(flush) });
  for (let i = 0; writes.length === 0; i++) logger.info('x'.repeat(1000), { i });
  assert.ok(writes[0]!.length > 65_536);
  logger.info('tail');
  logger.flush();
  assert.equal(writes.length, 2);
  for (const timer of timers) timer();
  assert.equal(writes.length, 2, 'the timer found the buffer empty');
  assert.equal(writes.join('').split('\n').filter((line) => line !== '').length, writes.join('').split('\n').length - 1);
});

test('createLogger() by default writes the buffered lines on a timer, within FLUSH_DELAY_MS', async () => {
  const writes: string[] = [];
  const logger = createLogger({ write: (text) => writes.push(text) });
  logger.info('a');
  logger.info('b');
  assert.equal(writes.length, 0);
  await new Promise((resolve) => setTimeout(resolve, FLUSH_DELAY_MS * 3));
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

test('jsonString() writes exactly what JSON.stringify writes, for plain text and for every character that needs an escape', () => {
  const seed = Number(process.env['LOG_SEED'] ?? Date.now() % 1_000_000);
  const random = mulberry32(seed);
  // Plain ASCII, the characters JSON escapes, surrogates paired and lone, and other non-ASCII text.
  const pool = ['a', 'Z', '/', '?', '=', ' ', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', 'é', '€', '\ud83d\ude00', '\ud800', '\udfff', '\u2028'];
  for (let i = 0; i < 2000; i++) {
    let text = '';
    const length = Math.floor(random() * 12);
    for (let c = 0; c < length; c++) text += pool[Math.floor(random() * (random() < 0.8 ? 6 : pool.length))];
    assert.equal(jsonString(text), JSON.stringify(text), `seed ${seed} (LOG_SEED=${seed} repeats it), text ${JSON.stringify(text)}`);
  }
});

test('request() writes the line byte for byte in its fixed field order, escaping a path, client and User-Agent only when they need it', () => {
  const { logger, lines } = capture();
  logger.request({ requestId: 'p-1', method: 'GET', path: '/events/evt_1?x=%22', status: 200, durationMs: 0.042, keyId: 'key_a', client: '::1', userAgent: 'curl/8.5 "x"' });
  logger.request({ requestId: 'p-2', method: 'DELETE', path: '/e\u0001', status: 204, durationMs: 12.5, keyId: undefined, client: '127.0.0.1', userAgent: 'w\ud800' });
  logger.flush();
  assert.deepEqual(lines(), [
    '{"time":"2026-09-01T17:00:00.005Z","level":"info","msg":"request","request_id":"p-1","method":"GET","path":"/events/evt_1?x=%22","status":200,"duration_ms":0.042,"key_id":"key_a","client":"::1","user_agent":"curl/8.5 \\"x\\""}',
    '{"time":"2026-09-01T17:00:00.005Z","level":"info","msg":"request","request_id":"p-2","method":"DELETE","path":"/e\\u0001","status":204,"duration_ms":12.5,"client":"127.0.0.1","user_agent":"w\\ud800"}',
  ]);
});
