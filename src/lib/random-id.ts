// Ids nobody can guess: a prefix and 22 base62 characters carrying 128 random bits.
import { base62 } from './base62.js';

/** `PREFIX_` + 22 base62 characters from 16 random bytes (e.g. `evt_…`, `reg_…`). */
export function randomId(prefix: string, randomBytes: (size: number) => Uint8Array): string {
  return `${prefix}_${base62(randomBytes(16), 22)}`;
}
