// base62: bytes as a fixed number of [0-9A-Za-z] characters, for ids and key secrets that survive URLs and double-clicks.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Writes `bytes` as `length` base62 characters (big-endian, left-padded). */
export function base62(bytes: Uint8Array, length: number): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value % 62n)]! + out;
    value /= 62n;
  }
  return out;
}
