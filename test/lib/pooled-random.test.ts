// pooledRandomBytes: draws come from one filled pool, in order, never overlap, are zeroed behind, and large ones bypass it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pooledRandomBytes } from '../../src/lib/pooled-random.js';

/** A source whose bytes count up from 1 (mod 256) across calls, recording each call's size. */
function countingSource(): { source: (size: number) => Uint8Array; calls: number[] } {
  const calls: number[] = [];
  let next = 1;
  return {
    calls,
    source: (size) => {
      calls.push(size);
      return Uint8Array.from({ length: size }, () => next++ & 0xff);
    },
  };
}

test('pooledRandomBytes() serves small draws in order from one call per pool, then fills a new pool', () => {
  const { source, calls } = countingSource();
  const draw = pooledRandomBytes(source, 64);
  const draws = [draw(16), draw(16), draw(16), draw(16), draw(16)];
  assert.deepEqual(calls, [64, 64], 'four draws of 16 from the first pool of 64, the fifth from a second');
  assert.deepEqual([...draws[0]!], Array.from({ length: 16 }, (_, i) => i + 1));
  assert.deepEqual([...draws[3]!], Array.from({ length: 16 }, (_, i) => 49 + i));
  assert.deepEqual([...draws[4]!], Array.from({ length: 16 }, (_, i) => 65 + i));
});

test('pooledRandomBytes() gives each draw bytes of its own, from a Buffer source too: zeroing the pool and later draws change no earlier one', () => {
  let next = 1;
  const draw = pooledRandomBytes((size) => Buffer.from(Array.from({ length: size }, () => next++ & 0xff)), 32);
  const first = draw(8);
  assert.deepEqual([...first], [1, 2, 3, 4, 5, 6, 7, 8]);
  for (let i = 0; i < 10; i++) draw(8);
  assert.deepEqual([...first], [1, 2, 3, 4, 5, 6, 7, 8]);
});

test('pooledRandomBytes() leaves no drawn byte in the pool, and sends a draw over a quarter of the pool to the source', () => {
  let pool: Uint8Array | undefined;
  const draw = pooledRandomBytes((size) => (pool = new Uint8Array(size).fill(7)), 64);
  draw(16);
  assert.deepEqual([...pool!.subarray(0, 16)], new Array(16).fill(0), 'zeroed behind the draw');
  assert.deepEqual([...pool!.subarray(16, 20)], [7, 7, 7, 7], 'the rest waits for the next draws');
  const big = draw(17);
  assert.equal(big.length, 17);
  assert.notEqual(big, pool!.subarray(0, 17));
});
