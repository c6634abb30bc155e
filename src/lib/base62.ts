// base62: bytes as a fixed number of [0-9A-Za-z] characters, for ids and key secrets that survive URLs and double-clicks.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Writes `bytes` as `length` base62 characters (big-endian, left-padded; only the lowest `length` digits when the
 * number is larger). Long division of the bytes by 62, one digit per pass, in plain numbers: every write makes an id,
 * and the BigInt arithmetic this replaced allocated a BigInt per byte and per digit (2 % of a create's CPU).
 */
export function base62(bytes: Uint8Array, length: number): string {
  const digits = Uint8Array.from(bytes);
  const chars: string[] = new Array<string>(length);
  for (let i = length - 1; i >= 0; i--) {
    let remainder = 0;
    for (let j = 0; j < digits.length; j++) {
      // At most 61 · 256 + 255: exact in a double, and the quotient fits a byte.
      const current = remainder * 256 + digits[j]!;
      const quotient = Math.floor(current / 62);
      digits[j] = quotient;
      remainder = current - quotient * 62;
    }
    chars[i] = ALPHABET[remainder]!;
  }
  return chars.join('');
}
