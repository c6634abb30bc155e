// base62: bytes as a fixed number of [0-9A-Za-z] characters, for ids and key secrets that survive URLs and double-clicks.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 2^32: the base of the limbs the bytes are divided in. */
const LIMB = 0x1_0000_0000;

/** The limbs of a number of up to 32 bytes, reused by every call (each runs to its end): an id made no array of them. */
const SCRATCH_LIMBS = new Float64Array(8);

/**
 * Writes `bytes` as `length` base62 characters (big-endian, left-padded; only the lowest `length` digits when the
 * number is larger). The text is made in one piece from its character codes (see base62Into).
 */
export function base62(bytes: Uint8Array, length: number): string {
  const codes = new Array<number>(length);
  base62Into(bytes, length, codes, 0);
  return String.fromCharCode(...codes);
}

/**
 * Puts the character codes of base62(bytes, length) into `codes` from `at`, so that a caller can make an id (prefix
 * and digits) as one string: text grown a character at a time, or a prefix joined to it, is a rope that V8 compares
 * and hashes through its runtime every time, and ids are compared some twenty times an insert in the list order.
 * Long division by 62, one digit per pass, in plain numbers over 32-bit limbs: a remainder times 2^32 plus a limb stays
 * below 62 · 2^32, exact in a double.
 */
export function base62Into(bytes: Uint8Array, length: number, codes: number[], at: number): void {
  // Leading zero bytes pad the number to whole limbs without changing it.
  const count = Math.ceil(bytes.length / 4);
  const limbs = count <= SCRATCH_LIMBS.length ? SCRATCH_LIMBS.fill(0, 0, count) : new Float64Array(count);
  const pad = count * 4 - bytes.length;
  for (let i = 0; i < bytes.length; i++) {
    const place = i + pad;
    limbs[place >>> 2] = limbs[place >>> 2]! * 256 + bytes[i]!;
  }
  for (let i = length - 1; i >= 0; i--) {
    let remainder = 0;
    for (let j = 0; j < count; j++) {
      const current = remainder * LIMB + limbs[j]!;
      const quotient = Math.floor(current / 62);
      limbs[j] = quotient;
      remainder = current - quotient * 62;
    }
    codes[at + i] = ALPHABET.charCodeAt(remainder);
  }
}
