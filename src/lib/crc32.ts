// CRC-32 (IEEE, as zip and zlib use it) of bytes or UTF-8 text: zlib's native one when Node has it, else a table.
import * as zlib from 'node:zlib';

type Crc32Function = (data: Buffer | string, value?: number) => number;

/** `zlib.crc32` exists from Node 20.15; older Node 20 releases lack it, so it is looked up, not imported by name. */
const nativeCrc32 = (zlib as { crc32?: Crc32Function }).crc32;

let table: Uint32Array | undefined;

function crcTable(): Uint32Array {
  if (table !== undefined) return table;
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** The table-driven CRC-32, used when `zlib.crc32` is missing; exported so a test can check both agree. */
export function crc32Fallback(data: Buffer | string, value = 0): number {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const lookup = crcTable();
  let crc = ~value >>> 0;
  for (let i = 0; i < bytes.length; i++) crc = lookup[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

/**
 * CRC-32 of `data` (a string counts as its UTF-8 bytes). Pass a previous result as `value`
 * to continue it over more data: `crc32(b, crc32(a))` equals `crc32(a + b)`.
 */
export const crc32: Crc32Function = nativeCrc32 ?? crc32Fallback;

/** Continues a CRC-32 `value` over one more byte (cheaper than a native call for a single byte). */
export function crc32Byte(value: number, byte: number): number {
  const crc = ~value >>> 0;
  return ~(crcTable()[(crc ^ byte) & 0xff]! ^ (crc >>> 8)) >>> 0;
}

/** A CRC-32 as the 8 lowercase hex digits written in the log. */
export function crc32Hex(value: number): string {
  return value.toString(16).padStart(8, '0');
}
