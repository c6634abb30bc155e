// Copy tokens: only the whole token is read (junk before or after a well-signed body is refused), tokens issued by
// another instance or before a restart read the same (the default key is fixed), and a copy lives 24 hours.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHmac } from 'node:crypto';
import { COPY_TOKEN_MAX_AGE_MS, readCopyToken, signCopyToken } from '../../../src/store/views/copy-token.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['TOKEN_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
/** The key every instance shares unless given another: tokens already handed to clients are signed with it. */
const ISSUED_KEY = 'campus-events change-feed copy v1';
const mac = (body: string, key = ISSUED_KEY): string => createHmac('sha256', key).update(body).digest('base64url').slice(0, 22);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

test(`readCopyToken() refuses junk before or after a token, even when the checksum covers what it reads (TOKEN_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  for (let round = 0; round < 200; round++) {
    const began = Math.floor(random() * 2 ** 40);
    const seconds = Math.floor(random() * 4_102_444_800);
    const body = `1_${began.toString(36)}_${seconds.toString(36)}`;
    const junk = Array.from({ length: 1 + Math.floor(random() * 4) }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join('');
    // What precedes the 23 last characters is what a reader checks the checksum against: sign exactly that.
    const before = `${junk}${body}`;
    assert.equal(readCopyToken(`${before}_${mac(before)}`), undefined, `junk before: ${before} (TOKEN_SEED=${SEED})`);
    // One extra character after the checksum: the body a reader would check is `${body}_`, so sign that.
    const lengthened = `${body}_${mac(`${body}_`)}${junk[0]}`;
    assert.equal(readCopyToken(lengthened), undefined, `junk after: ${lengthened} (TOKEN_SEED=${SEED})`);
    // The honest token of the same start reads, and equals one signed by hand with the issued key.
    const honest = `${body}_${mac(body)}`;
    assert.equal(signCopyToken({ began, startedMs: seconds * 1000 + Math.floor(random() * 1000) }), honest, `TOKEN_SEED=${SEED}`);
    assert.deepEqual(readCopyToken(honest), { began, startedMs: seconds * 1000 });
  }
});

test('a token signed before a restart, or by another instance, with the default key reads back', () => {
  const body = `1_${(987654).toString(36)}_${(1_764_000_000).toString(36)}`;
  assert.deepEqual(readCopyToken(`${body}_${mac(body)}`), { began: 987654, startedMs: 1_764_000_000_000 });
  assert.equal(readCopyToken(`${body}_${mac(body, '')}`), undefined, 'a token under an empty key is forged');
});

test('a copy may last 24 hours, and a refused start names itself', () => {
  assert.equal(COPY_TOKEN_MAX_AGE_MS, 86_400_000);
  assert.throws(() => signCopyToken({ began: -7, startedMs: 0 }), { name: 'RangeError', message: 'a copy begins at a seq of at least 0, got -7' });
});
