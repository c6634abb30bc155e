// API key secrets: `cek_` + 192 random bits in base62 + a CRC-32 checksum; only their SHA-256 is ever stored.
import { createHash, timingSafeEqual } from 'node:crypto';
import { base62 } from '../lib/base62.js';
import { crc32 } from '../lib/crc32.js';

const PREFIX = 'cek_';
const BODY_LENGTH = 33; // 33 base62 characters carry 196 bits, of which 192 random
const CHECKSUM_LENGTH = 6; // a CRC-32 in base62
const KEY_SHAPE = /^cek_[0-9A-Za-z]{39}$/;

function checksum(body: string): string {
  const sum = crc32(body);
  return base62(new Uint8Array([sum >>> 24, (sum >>> 16) & 255, (sum >>> 8) & 255, sum & 255]), CHECKSUM_LENGTH);
}

/** A new secret from 24 random bytes. */
export function newSecret(randomBytes: (size: number) => Uint8Array): string {
  const body = base62(randomBytes(24), BODY_LENGTH);
  return `${PREFIX}${body}${checksum(body)}`;
}

/** True when a string has the shape and checksum of a key, so typos are caught without a lookup. */
export function looksLikeKey(secret: string): boolean {
  if (!KEY_SHAPE.test(secret)) return false;
  const body = secret.slice(PREFIX.length, PREFIX.length + BODY_LENGTH);
  return secret.endsWith(checksum(body));
}

/** The SHA-256 of a secret, in hex: what keys.json keeps. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Compares two hex hashes in constant time. */
export function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** What every key's id starts with (the rate limit's slots on PostgreSQL are kept under it). */
export const KEY_ID_PREFIX = 'key_';

/** A short public id for a key, shown by `keys list` and in logs. */
export function newKeyId(randomBytes: (size: number) => Uint8Array): string {
  return `${KEY_ID_PREFIX}${base62(randomBytes(10), 12)}`;
}
