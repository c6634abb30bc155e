// The CRC-32 of two pieces put end to end, from the CRC and length of each (zlib's crc32_combine): a list page's
// checksum from its events' checksums, measured once each, instead of reading the whole page again per request.

/** The reflected CRC-32 polynomial (IEEE), as zlib uses it. */
const POLY = 0xedb88320;

/** a(x) · b(x) modulo the polynomial, both in CRC-32's reflected bit order (zlib's multmodp). */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let product = 0;
  for (;;) {
    if ((a & m) !== 0) {
      product ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo the polynomial, for k = 0…31. */
const X2N = new Uint32Array(32);
X2N[0] = 0x40000000; // x^1
for (let k = 1; k < 32; k++) X2N[k] = multModP(X2N[k - 1]!, X2N[k - 1]!);

/** x^(8·bytes) modulo the polynomial: the operator that moves a CRC past `bytes` bytes. */
function shiftFor(bytes: number): number {
  let product = 0x80000000; // x^0
  for (let n = bytes, k = 3; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) product = multModP(X2N[k & 31]!, product);
  return product;
}

/** Shift operators of the lengths met so far (a few hundred distinct event sizes): 0 means not computed yet. */
const SHIFTS_CACHED = 1 << 16;
const shifts = new Uint32Array(SHIFTS_CACHED);

/**
 * The CRC-32 of A followed by B, given `crcA`, `crcB` and B's length in bytes: equal to `crc32(A + B)`.
 * Costs one polynomial product (a few dozen steps) for lengths under 64 KiB, whose operators are kept.
 */
export function crc32Combine(crcA: number, crcB: number, bytesB: number): number {
  let shift: number;
  if (bytesB < SHIFTS_CACHED) {
    shift = shifts[bytesB]!;
    if (shift === 0) shift = shifts[bytesB] = shiftFor(bytesB);
  } else {
    shift = shiftFor(bytesB);
  }
  return (multModP(shift, crcA) ^ crcB) >>> 0;
}
