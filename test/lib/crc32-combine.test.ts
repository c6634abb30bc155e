// crc32Combine: the CRC of two pieces end to end from their CRCs and the second's length equals the CRC of the whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32 } from '../../src/lib/crc32.js';
import { crc32Combine } from '../../src/lib/crc32-combine.js';
import { mulberry32 } from '../helpers/random.js';

function bytesOf(random: () => number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

test('crc32Combine() equals crc32 of the concatenation, for lengths from 1 byte to past the cached 64 KiB', () => {
  const seed = Number(process.env['CRC_SEED'] ?? Date.now() % 1_000_000);
  const random = mulberry32(seed);
  const lengths = [1, 2, 3, 7, 8, 100, 475, 1023, 65_535, 65_536, 70_001];
  for (const length of lengths) {
    const a = bytesOf(random, 1 + Math.floor(random() * 600));
    const b = bytesOf(random, length);
    assert.equal(crc32Combine(crc32(a), crc32(b), b.length), crc32(Buffer.concat([a, b])), `seed ${seed} (CRC_SEED repeats it), |b| ${length}`);
    // Twice: the second call takes the cached operator.
    assert.equal(crc32Combine(crc32(a), crc32(b), b.length), crc32(Buffer.concat([a, b])), `seed ${seed}, |b| ${length}, cached`);
  }
});

test('crc32Combine() folds a hundred pieces as one page: the standard check value survives being split', () => {
  const text = '123456789';
  let crc = crc32(text.slice(0, 1));
  for (let i = 1; i < text.length; i++) crc = crc32Combine(crc, crc32(text[i]!), 1);
  assert.equal(crc, 0xcbf43926);
});
