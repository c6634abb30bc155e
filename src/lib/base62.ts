// base62: bytes as a fixed number of [0-9A-Za-z] characters, for ids and key secrets that survive URLs and double-clicks.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 2^32: the base of the limbs the bytes are divided in. */
const LIMB = 0x1_0000_0000;

/**
 * Writes `bytes` as `length` base62 characters (big-endian, left-padded; only the lowest `length` digits when the
 * number is larger). Long division by 62, one digit per pass, in plain numbers over 32-bit limbs: a remainder times
 * 2^32 plus a limb stays below 62 · 2^32, exact in a double. Every write makes an id; dividing byte by byte took 16
 * divisions a digit (and the BigInt arithmetic before that a BigInt per byte and per digit), 2–4 % of a write's CPU.
 */
export function base62(bytes: Uint8Array, length: number): string {
  // Leading zero bytes pad the number to whole limbs without changing it.
  const limbs = new Array<number>(Math.ceil(bytes.length / 4)).fill(0);
  const pad = limbs.length * 4 - bytes.length;
  for (let i = 0; i < bytes.length; i++) {
    const at = i + pad;
    limbs[at >>> 2] = limbs[at >>> 2]! * 256 + bytes[i]!;
  }
  let text = '';
  for (let i = 0; i < length; i++) {
    let remainder = 0;
    for (let j = 0; j < limbs.length; j++) {
      const current = remainder * LIMB + limbs[j]!;
      const quotient = Math.floor(current / 62);
      limbs[j] = quotient;
      remainder = current - quotient * 62;
    }
    text = ALPHABET[remainder]! + text;
  }
  return text;
}
