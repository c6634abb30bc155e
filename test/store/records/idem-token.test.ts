// The `idem` field of a line: every tag the store may write reads back equal, with nothing to escape, and any other
// token is refused. A failure prints its seed: rerun with IDEM_TOKEN_SEED=n.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeIdemToken, encodeIdemToken } from '../../../src/store/records/idem-token.js';
import type { IdempotencyTag } from '../../../src/store/views/idempotency-table.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['IDEM_TOKEN_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const random = mulberry32(SEED);
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const KEY_ID = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_';

function int(min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

function chars(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

/** A key of 1 to 255 characters, each one byte in latin1 (U+0000–U+00FF), dots and quotes included. */
function key(): string {
  let out = '';
  for (let n = int(1, 255); n > 0; n--) out += String.fromCharCode(random() < 0.2 ? pickOf('."\\\n\u0000\u00ff') : int(0, 255));
  return out;
}

function pickOf(text: string): number {
  return text.charCodeAt(Math.floor(random() * text.length));
}

test(`encodeIdemToken() writes a token with nothing to escape that decodeIdemToken() reads back equal: 1,000 seeded tags (IDEM_TOKEN_SEED=${SEED})`, () => {
  for (let n = 0; n < 1000; n++) {
    const tag: IdempotencyTag = { requestHash: chars(URL_SAFE, int(1, 64)), keyId: chars(KEY_ID, int(1, 64)), key: key() };
    const token = encodeIdemToken(tag);
    assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_]+\.[A-Za-z0-9_-]+$/, JSON.stringify(tag));
    assert.deepEqual(decodeIdemToken(token), tag, token);
  }
});

test('decodeIdemToken() refuses a token with other than three parts, a part empty or with a character of no part, or a key of 0 or 256 bytes', () => {
  const good = encodeIdemToken({ requestHash: 'h4sh', keyId: 'k1', key: 'retry-1' });
  assert.deepEqual(decodeIdemToken(good), { requestHash: 'h4sh', keyId: 'k1', key: 'retry-1' });
  const [hash, keyId, keyPart] = good.split('.') as [string, string, string];
  const refused = [
    `${hash}.${keyId}`,
    `${hash}.${keyId}.${keyPart}.${keyPart}`,
    `.${keyId}.${keyPart}`,
    `${hash}..${keyPart}`,
    `${hash}.${keyId}.`,
    `${hash}!.${keyId}.${keyPart}`,
    `${hash}.k-1.${keyPart}`,
    `${hash}.${'k'.repeat(65)}.${keyPart}`,
    `${hash}.${keyId}.${keyPart}=`,
    `${'h'.repeat(401)}.${keyId}.${keyPart}`,
    `${hash}.${keyId}.${Buffer.from('k'.repeat(256), 'latin1').toString('base64url')}`,
    // One base64url character holds 6 bits: alone, it decodes to no byte at all.
    `${hash}.${keyId}.A`,
    '',
  ];
  for (const token of refused) assert.equal(decodeIdemToken(token), undefined, token);
});

test('encodeIdemToken() refuses a tag replay could not read back: a hash or key id with a character of no part, a key empty, of 256 characters or past U+00FF', () => {
  const good: IdempotencyTag = { requestHash: 'h4sh', keyId: 'k1', key: 'retry-1' };
  const refused: IdempotencyTag[] = [
    { ...good, requestHash: '' },
    { ...good, requestHash: 'h.sh' },
    { ...good, requestHash: 'h'.repeat(401) },
    { ...good, keyId: '' },
    { ...good, keyId: 'k.1' },
    { ...good, keyId: 'k-1' },
    { ...good, key: '' },
    { ...good, key: 'k'.repeat(256) },
    { ...good, key: 'caf\u0113' },
  ];
  for (const tag of refused) assert.throws(() => encodeIdemToken(tag), new TypeError(`cannot log the idempotency tag of key ${JSON.stringify(tag.keyId)}`), JSON.stringify(tag));
});
