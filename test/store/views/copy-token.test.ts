// Copy tokens of the change feed: what is signed reads back; any change to a token, or another key, does not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHmac } from 'node:crypto';
import { DEFAULT_COPY_KEY, readCopyToken, signCopyToken } from '../../../src/store/views/copy-token.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['TOKEN_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

test(`signCopyToken() and readCopyToken() round-trip any start, to the second, in at most 200 characters of [A-Za-z0-9_-] (TOKEN_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const starts = [
    { began: 0, startedMs: 0 },
    { began: Number.MAX_SAFE_INTEGER, startedMs: 253_402_300_799_999 },
    ...Array.from({ length: 200 }, () => ({ began: Math.floor(random() * 2 ** 50), startedMs: Math.floor(random() * 4_102_444_800_000) })),
  ];
  for (const start of starts) {
    const token = signCopyToken(start);
    assert.match(token, /^[A-Za-z0-9_-]{1,200}$/);
    assert.deepEqual(readCopyToken(token), { began: start.began, startedMs: Math.floor(start.startedMs / 1000) * 1000 });
    assert.equal(readCopyToken(token, 'another key'), undefined, 'a token of another key is forged');
    assert.equal(signCopyToken(start), token, 'the same start gives the same token');
    assert.equal(signCopyToken(start, DEFAULT_COPY_KEY), token);
  }
});

test('readCopyToken() refuses a token changed at any character, cut, lengthened, or not a token at all', () => {
  const token = signCopyToken({ began: 12345, startedMs: 1_764_000_000_000 });
  for (let at = 0; at < token.length; at++) {
    for (const replacement of ['0', 'z', 'A', '_', '-']) {
      if (token[at] === replacement) continue;
      const changed = token.slice(0, at) + replacement + token.slice(at + 1);
      assert.equal(readCopyToken(changed), undefined, `changed at ${at} to ${replacement}: ${changed}`);
    }
  }
  for (const bad of [token.slice(0, -1), `${token}A`, `x${token}`, '', '1', '1_a_b_', `2${token.slice(1)}`, token.replace(/_/g, '-')]) assert.equal(readCopyToken(bad), undefined, bad);
  // Well-formed, well-signed, but a number past 2^53: never made by signCopyToken.
  const body = `1_${'z'.repeat(11)}_1`;
  assert.equal(readCopyToken(`${body}_${createHmac('sha256', DEFAULT_COPY_KEY).update(body).digest('base64url').slice(0, 22)}`), undefined);
  const fair = `1_${'2'.repeat(10)}_1`;
  assert.deepEqual(readCopyToken(`${fair}_${createHmac('sha256', DEFAULT_COPY_KEY).update(fair).digest('base64url').slice(0, 22)}`), { began: parseInt('2'.repeat(10), 36), startedMs: 1000 }, 'the same, within 2^53, reads');
});

test('signCopyToken() refuses a start that is not a seq', () => {
  for (const began of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) assert.throws(() => signCopyToken({ began, startedMs: 0 }), RangeError, String(began));
});
