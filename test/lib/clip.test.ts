// clip: a client's value cut short for a message.
import assert from 'node:assert/strict';
import test from 'node:test';
import { clip } from '../../src/lib/clip.js';

test('clip: text up to the width is kept whole; longer text is cut to the width, ending in ...', () => {
  assert.equal(clip('a'.repeat(60)), 'a'.repeat(60));
  assert.equal(clip('a'.repeat(61)), `${'a'.repeat(57)}...`);
  assert.equal(clip('b'.repeat(80), 80), 'b'.repeat(80));
  assert.equal(clip('b'.repeat(81), 80), `${'b'.repeat(77)}...`);
  assert.equal(clip('b'.repeat(81), 80).length, 80);
});
