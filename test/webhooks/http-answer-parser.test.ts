// AnswerParser reads a receiver's answer: its status, where it ends, whether its connection may be used again, and
// never more than the 64 KiB of body API.md §13 allows; whatever way the bytes are cut into chunks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnswerParser, headWork, type AnswerAtClose, type AnswerProgress } from '../../src/webhooks/http-answer-parser.js';
import { mulberry32 } from '../helpers/random.js';

const LIMIT = 64 * 1024;

interface Read {
  progress: AnswerProgress;
  status: number | null;
  reusable: boolean;
  /** What closed() said, when the bytes ran out with the answer partial and `close` was asked. */
  atClose?: AnswerAtClose;
}

/** Feeds `text` in the given chunk sizes (the rest in one) and stops at the first progress that is not partial. */
function read(text: string | Buffer, sizes: readonly number[] = [], options: { close?: boolean } = {}): Read {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'latin1') : text;
  const parser = new AnswerParser(LIMIT);
  let at = 0;
  let progress: AnswerProgress = 'partial';
  for (let n = 0; at < bytes.length && progress === 'partial'; n++) {
    const size = sizes[n] ?? bytes.length - at;
    progress = parser.feed(bytes.subarray(at, at + size));
    at += size;
  }
  const result: Read = { progress, status: parser.status, reusable: parser.reusable };
  if (options.close === true && progress === 'partial') result.atClose = parser.closed();
  return result;
}

/** Chunk sizes cutting `length` bytes at random places (1 to 7 bytes mostly, so every boundary is crossed). */
function randomCuts(random: () => number, length: number): number[] {
  const sizes: number[] = [];
  for (let total = 0; total < length; ) {
    const size = 1 + Math.floor(random() * (random() < 0.9 ? 7 : 200));
    sizes.push(size);
    total += size;
  }
  return sizes;
}

const ANSWERS: readonly { name: string; text: string; status: number; reusable: boolean }[] = [
  { name: 'a 204', text: 'HTTP/1.1 204 No Content\r\nDate: Wed, 25 Nov 2026 08:00:00 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n', status: 204, reusable: true },
  { name: 'a 200 with Content-Length', text: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world', status: 200, reusable: true },
  { name: 'a chunked 500 with extensions and trailers', text: 'HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nbroke\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: yes\r\n\r\n', status: 500, reusable: true },
  { name: 'a 100 Continue, then a 202', text: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\nok', status: 202, reusable: true },
  { name: 'an answer asking to close', text: 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok', status: 200, reusable: false },
  { name: 'an HTTP/1.0 answer', text: 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok', status: 200, reusable: false },
  { name: 'an HTTP/1.0 answer that keeps its connection', text: 'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok', status: 200, reusable: true },
  { name: 'a 302 (not followed: only its status counts)', text: 'HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/elsewhere\r\nContent-Length: 0\r\n\r\n', status: 302, reusable: true },
  { name: 'an answer with bare LF line ends', text: 'HTTP/1.1 200 OK\nContent-Length: 2\n\nok', status: 200, reusable: true },
  { name: 'framing headers in any case, beside look-alikes', text: 'HTTP/1.1 200 OK\r\nX-Content-Length: 99\r\nContent-Lengthy: 98\r\nCoNtEnT-LeNgTh:   2  \r\nCONNECTION: Keep-Alive\r\n\r\nok', status: 200, reusable: true },
  { name: 'a 304 with a Content-Length (no body follows)', text: 'HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n', status: 304, reusable: true },
];

for (const answer of ANSWERS) {
  test(`AnswerParser reads ${answer.name} whole, in one chunk and cut anywhere`, () => {
    assert.deepEqual(read(answer.text), { progress: 'complete', status: answer.status, reusable: answer.reusable });
    const seed = Number(process.env['PARSER_SEED'] ?? Date.now() % 1_000_000);
    const random = mulberry32(seed);
    for (let round = 0; round < 50; round++) {
      const sizes = randomCuts(random, answer.text.length);
      assert.deepEqual(read(answer.text, sizes), { progress: 'complete', status: answer.status, reusable: answer.reusable }, `PARSER_SEED=${seed}, chunks ${sizes.join(',')}`);
    }
  });
}

test('AnswerParser waits for the rest of a Content-Length body, and a close before it leaves the status (truncated)', () => {
  const text = 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf';
  assert.deepEqual(read(text, [], { close: true }), { progress: 'partial', status: 200, reusable: false, atClose: 'truncated' });
});

test('AnswerParser reads a body without length or chunks up to the close, and never reuses its connection', () => {
  const text = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nto the end';
  assert.deepEqual(read(text, [], { close: true }), { progress: 'partial', status: 200, reusable: false, atClose: 'complete' });
  const unknownCoding = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzzz';
  assert.deepEqual(read(unknownCoding, [], { close: true }), { progress: 'partial', status: 200, reusable: false, atClose: 'complete' });
});

test('AnswerParser says none when the connection closes before a whole head', () => {
  assert.equal(read('', [], { close: true }).atClose, 'none');
  assert.equal(read('HTTP/1.1 200 OK\r\nContent-Le', [], { close: true }).atClose, 'none');
});

test('AnswerParser stops at 64 KiB of body, keeping the status: Content-Length, chunked and close-delimited alike', () => {
  const big = Buffer.alloc(LIMIT + 10, 120);
  const chunked = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${(10 * LIMIT).toString(16)}\r\n`), big]);
  for (const [name, bytes] of [
    ['Content-Length', Buffer.concat([Buffer.from(`HTTP/1.1 500 Oops\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`), big])],
    ['chunked', chunked],
    ['close-delimited', Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\n\r\n'), big])],
  ] as const) {
    const result = read(bytes, [1000, 30_000, 40_000]);
    assert.equal(result.progress, 'too-large', name);
    assert.equal(result.reusable, false, name);
    assert.ok(result.status === 500 || result.status === 200, name);
  }
  // Just under the limit, complete: read whole.
  const under = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${LIMIT - 1}\r\n\r\n`), Buffer.alloc(LIMIT - 1, 120)]);
  assert.deepEqual(read(under), { progress: 'complete', status: 200, reusable: true });
});

test('AnswerParser calls an answer invalid when it is not HTTP/1.x or its framing cannot be trusted', () => {
  for (const garbage of [
    'SSH-2.0-OpenSSH_9.6\r\n\r\n',
    'HTTP/2 200\r\n\r\n',
    'HTTP/1.1 2000 OK\r\n\r\n',
    'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n',
    'HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n',
    'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc',
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n0\r\n\r\n',
  ]) {
    const parser = new AnswerParser(LIMIT);
    assert.equal(parser.feed(Buffer.from(garbage, 'latin1')), 'invalid', JSON.stringify(garbage));
    assert.notEqual(parser.problem, '');
    assert.equal(parser.reusable, false);
  }
  const endless = new AnswerParser(LIMIT);
  let progress: AnswerProgress = endless.feed(Buffer.from('HTTP/1.1 200 OK\r\n'));
  for (let n = 0; n < 100 && progress === 'partial'; n++) progress = endless.feed(Buffer.from(`X-Filler-${n}: ${'y'.repeat(1000)}\r\n`));
  assert.equal(progress, 'invalid', 'a head that never ends is cut at 64 KiB');
});

test('AnswerParser does not reuse a connection that sent bytes after the answer', () => {
  assert.deepEqual(read('HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\n\r\n'), { progress: 'complete', status: 204, reusable: false });
  assert.deepEqual(read('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA'), { progress: 'complete', status: 200, reusable: false });
  assert.deepEqual(read('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nEXTRA'), { progress: 'complete', status: 200, reusable: false });
});

test('AnswerParser reads a body framed by both Transfer-Encoding and Content-Length by its chunks, and drops the connection', () => {
  assert.deepEqual(read('HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'), { progress: 'complete', status: 200, reusable: false });
});

test('AnswerParser skips empty lines before a status line, as a stray CRLF after the previous answer leaves them', () => {
  assert.deepEqual(read('\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'), { progress: 'complete', status: 200, reusable: true });
  assert.deepEqual(read('\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n', [1, 1, 1, 1, 3]), { progress: 'complete', status: 204, reusable: true });
  assert.deepEqual(read('\r\n', []), { progress: 'partial', status: null, reusable: false });
});

test('AnswerParser reads a head that comes a byte at a time with work in proportion to its length, and still refuses one over 64 KiB', () => {
  // A receiver may dribble its head: held bytes were copied whole and searched again from their start on every byte.
  const lines = Array.from({ length: 1_400 }, (_, n) => `X-Filler-${n}: ${'v'.repeat(30)}\r\n`).join('');
  const text = `HTTP/1.1 100 Continue\r\n\r\n\r\nHTTP/1.1 200 OK\r\n${lines}Content-Length: 2\r\n\r\nok`;
  assert.ok(text.length > 60_000 && text.length < LIMIT, `a head of ${text.length} bytes`);
  const before = { ...headWork };
  const sizes = Array.from({ length: text.length }, () => 1);
  assert.deepEqual(read(text, sizes), { progress: 'complete', status: 200, reusable: true });
  const copied = headWork.copied - before.copied;
  const searched = headWork.searched - before.searched;
  assert.ok(copied <= 4 * text.length, `copied ${copied} bytes for a head of ${text.length}`);
  assert.ok(searched <= 6 * text.length, `searched ${searched} bytes for a head of ${text.length}`);
  const tooLong = `HTTP/1.1 200 OK\r\nX-Long: ${'v'.repeat(LIMIT)}\r\n\r\n`;
  assert.equal(read(tooLong, Array.from({ length: tooLong.length }, () => 1)).progress, 'invalid');
});
