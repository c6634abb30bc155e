// Ids nobody can guess: a prefix and 22 base62 characters carrying 128 random bits.
import { base62Into } from './base62.js';

/** `PREFIX_` + 22 base62 characters from 16 random bytes (e.g. `evt_…`, `reg_…`), made as one flat string (see base62Into). */
export function randomId(prefix: string, randomBytes: (size: number) => Uint8Array): string {
  const codes = CODES;
  codes.length = prefix.length + 23;
  for (let i = 0; i < prefix.length; i++) codes[i] = prefix.charCodeAt(i);
  codes[prefix.length] = 95; // '_'
  base62Into(randomBytes(16), 22, codes, prefix.length + 1);
  return String.fromCharCode.apply(null, codes);
}

/** The character codes of the id being made, reused by every call (each runs to its end). */
const CODES: number[] = [];
