// crc32: the native and the table-driven CRC-32 agree, on bytes and on UTF-8 text.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { crc32, crc32Byte, crc32Fallback, crc32Hex } from '../../src/lib/crc32.js';

test('crc32() gives the standard check value of "123456789"', () => {
  assert.equal(crc32('123456789'), 0xcbf43926);
  assert.equal(crc32Fallback('123456789'), 0xcbf43926);
  assert.equal(crc32Hex(crc32('')), '00000000');
});

test('crc32Fallback() agrees with crc32() on random bytes, text and continuations', () => {
  for (let length = 0; length < 300; length += 7) {
    const bytes = randomBytes(length);
    assert.equal(crc32Fallback(bytes), crc32(bytes));
    // (Not on empty data with a seed: zlib.crc32 then answers 0, as zlib's crc32(crc, NULL, 0) does; the store never asks.)
    const seed = crc32(randomBytes(5));
    if (length > 0) assert.equal(crc32Fallback(bytes, seed), crc32(bytes, seed));
  }
  const text = 'Café — 日本語 🎉 "quoted" \\ \n';
  assert.equal(crc32Fallback(text), crc32(text));
  assert.equal(crc32(text), crc32(Buffer.from(text, 'utf8')));
});

test('crc32Byte() continues a CRC over one byte as crc32() does', () => {
  for (const text of ['', 'a', '{"seq":1', 'Café']) {
    assert.equal(crc32Byte(crc32(text), 0x7d), crc32(text + '}'));
  }
});

test('crc32Hex() writes 8 lowercase hex digits', () => {
  assert.equal(crc32Hex(0x1a2b3c4d), '1a2b3c4d');
  assert.equal(crc32Hex(0xff), '000000ff');
  assert.equal(crc32Hex(0xffffffff), 'ffffffff');
});
