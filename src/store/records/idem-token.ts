// The `idem` field of a line: the Idempotency-Key a write was sent with, its API key and the hash of its request,
// written so that it needs no escaping, and read back.
import type { IdempotencyTag } from '../views/idempotency-table.js';
import { ID_PATTERN } from './record-checks.js';

/** The `idem` field of a line: request hash, API key id and the base64url Idempotency-Key, dot-separated, so it needs no escaping. */
export function encodeIdemToken(tag: IdempotencyTag): string {
  if (!TOKEN_PART.test(tag.requestHash) || !ID_PATTERN.test(tag.keyId) || !LOGGABLE_KEY.test(tag.key)) throw new TypeError(`cannot log the idempotency tag of key ${JSON.stringify(tag.keyId)}`);
  return `${tag.requestHash}.${tag.keyId}.${Buffer.from(tag.key, 'latin1').toString('base64url')}`;
}

/** The tag an `idem` field holds, or undefined when the field is malformed. */
export function decodeIdemToken(token: string): IdempotencyTag | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !TOKEN_PART.test(parts[0]!) || !ID_PATTERN.test(parts[1]!) || !TOKEN_PART.test(parts[2]!)) return undefined;
  const key = Buffer.from(parts[2]!, 'base64url').toString('latin1');
  if (key.length < 1 || key.length > 255) return undefined;
  return { requestHash: parts[0]!, keyId: parts[1]!, key };
}

const TOKEN_PART = /^[A-Za-z0-9_-]{1,400}$/;
/** The keys replay reads back: 1 to 255 characters, each one byte in latin1 (HTTP allows only printable ASCII). */
const LOGGABLE_KEY = /^[\u0000-\u00ff]{1,255}$/;
