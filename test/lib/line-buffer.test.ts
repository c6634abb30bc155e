// carryPartialLine: what a chunked log reader keeps of its buffer once the whole lines in it are read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { carryPartialLine } from '../../src/lib/line-buffer.js';

test('the partial line after the whole ones moves to the start of the same buffer', () => {
  const buffer = Buffer.from('ab\ncd\nef');
  const next = carryPartialLine(buffer, 6, 8);
  assert.equal(next, buffer);
  assert.equal(next.toString('latin1', 0, 2), 'ef');
});

test('one line that fills the whole buffer is kept, in a buffer twice as long', () => {
  const buffer = Buffer.from('abcdefgh');
  const next = carryPartialLine(buffer, 0, 8);
  assert.notEqual(next, buffer);
  assert.equal(next.length, 16);
  assert.equal(next.toString('latin1', 0, 8), 'abcdefgh');
});

test('a partial line at the start of a buffer it does not fill stays in that buffer: only a full one grows', () => {
  const buffer = Buffer.alloc(8);
  buffer.write('abc', 'latin1');
  const next = carryPartialLine(buffer, 0, 3);
  assert.equal(next, buffer);
  assert.equal(next.length, 8);
  assert.equal(next.toString('latin1', 0, 3), 'abc');
});
