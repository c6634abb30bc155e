// SseParser: messages from text cut anywhere, with the line endings, comments and fields of the SSE format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser } from '../../../src/console/web/sse.js';
import { mulberry32 } from '../../helpers/random.js';

const STREAM = ': keep-alive\n\nid: 41\nevent: change\ndata: {"seq":41}\n\r\nid: 42\r\nevent: change\r\ndata: {"seq":\r\ndata: 42}\r\n\r\n:comment\rid:43\revent:change\rdata:{"seq":43}\r\r';

test('SseParser.push() dispatches each message at its blank line with its id, event and joined data', () => {
  const messages = new SseParser().push(STREAM);
  assert.deepEqual(messages, [
    { id: '41', event: 'change', data: '{"seq":41}' },
    { id: '42', event: 'change', data: '{"seq":\n42}' },
    { id: '43', event: 'change', data: '{"seq":43}' },
  ]);
});

test('SseParser.push() gives the same messages however the text is cut (CRLF split across chunks included)', () => {
  const whole = new SseParser().push(STREAM);
  const seed = Date.now() % 1_000_000;
  const random = mulberry32(seed);
  for (let round = 0; round < 200; round++) {
    const parser = new SseParser();
    const got = [];
    let at = 0;
    while (at < STREAM.length) {
      const size = 1 + Math.floor(random() * 8);
      got.push(...parser.push(STREAM.slice(at, at + size)));
      at += size;
    }
    assert.deepEqual(got, whole, `seed ${seed}, round ${round}`);
  }
});

test('SseParser.push() ignores comments and blank lines without data, defaults the event to message, keeps the last id', () => {
  const parser = new SseParser();
  assert.deepEqual(parser.push(': only a comment\n\n\n'), []);
  assert.deepEqual(parser.push('id: 7\n\ndata: x\n\n'), [{ id: '7', event: 'message', data: 'x' }]);
  assert.deepEqual(parser.push('data: y\n'), [], 'no blank line yet');
  assert.deepEqual(parser.push('\n'), [{ id: '7', event: 'message', data: 'y' }]);
});
