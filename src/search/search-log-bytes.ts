// Checks of a log line's bytes against fixed ASCII text four bytes at a time (32-bit reads of a DataView), for the
// search build's reading of each put line: a byte-by-byte comparison costs about a nanosecond a byte here, and a
// line's keys and times are some 250 bytes of it.

/**
 * A fixed shape of bytes, compared a 32-bit word at a time (the last word overlapping the one before when the length
 * is not a multiple of 4). A `#` in the text stands for any decimal digit.
 */
export interface BytePattern {
  readonly length: number;
  /** Per word, last first: its offset, the bits compared, what they must be, and the digit check's masks. */
  readonly offsets: Int32Array;
  readonly keep: Int32Array;
  readonly expected: Int32Array;
  readonly low: Int32Array;
  readonly six: Int32Array;
  readonly tens: Int32Array;
}

/** The pattern of `text` (ASCII, at least 4 bytes; `#` a digit). */
export function bytePattern(text: string): BytePattern {
  const bytes = Buffer.from(text, 'latin1');
  if (bytes.length < 4 || /[^\x00-\x7f]/.test(text)) throw new Error(`a byte pattern is 4 or more ASCII bytes: ${text}`);
  const count = Math.ceil(bytes.length / 4);
  const pattern = { length: bytes.length, offsets: new Int32Array(count), keep: new Int32Array(count), expected: new Int32Array(count), low: new Int32Array(count), six: new Int32Array(count), tens: new Int32Array(count) };
  for (let word = 0; word < count; word++) {
    const at = Math.min(word * 4, bytes.length - 4);
    const k = count - 1 - word;
    pattern.offsets[k] = at;
    for (let i = 3; i >= 0; i--) {
      const digit = bytes[at + i] === HASH;
      // A digit is 0x30–0x39: its high half 3, and its low half plus 6 below 16 (no carry out of the byte).
      pattern.keep[k] = (pattern.keep[k]! << 8) | (digit ? 0xf0 : 0xff);
      pattern.expected[k] = (pattern.expected[k]! << 8) | (digit ? 0x30 : bytes[at + i]!);
      pattern.low[k] = (pattern.low[k]! << 8) | (digit ? 0x0f : 0);
      pattern.six[k] = (pattern.six[k]! << 8) | (digit ? 0x06 : 0);
      pattern.tens[k] = (pattern.tens[k]! << 8) | (digit ? 0x10 : 0);
    }
  }
  return pattern;
}

/** Whether `pattern` is at `buf[pos]`; false when it does not fit in the buffer. */
export function matchesAt(buf: Uint8Array, pos: number, pattern: BytePattern): boolean {
  const words = wordsOf(buf);
  return wordsAt(words, pos, pattern) && digitsAt(words, pos, pattern);
}

/** Whether `pattern` ends at `buf[pos]`. */
export function endsAt(buf: Uint8Array, pos: number, pattern: BytePattern): boolean {
  return matchesAt(buf, pos - pattern.length, pattern);
}

/**
 * Whether the bytes at `pos` of `words` are the pattern's, a digit's place holding any of 0x30–0x3f (digitsAt then
 * tells the digits). Small, so the optimizing compiler inlines it at each of a view's dozen checks.
 */
export function wordsAt(words: DataView<ArrayBufferLike>, pos: number, pattern: BytePattern): boolean {
  if (pos < 0 || pos + pattern.length > words.byteLength) return false;
  const { offsets, keep, expected } = pattern;
  for (let k = 0; k < offsets.length; k++) if ((words.getInt32(pos + offsets[k]!, true) & keep[k]!) !== expected[k]) return false;
  return true;
}

/** After wordsAt: whether each digit's place holds 0–9 (a low half plus 6 below 16). True for a pattern without digits. */
export function digitsAt(words: DataView<ArrayBufferLike>, pos: number, pattern: BytePattern): boolean {
  const { offsets, low, six, tens } = pattern;
  for (let k = 0; k < offsets.length; k++) if ((((words.getInt32(pos + offsets[k]!, true) & low[k]!) + six[k]!) & tens[k]!) !== 0) return false;
  return true;
}

/** The DataView of the last buffer asked about (the build reads thousands of lines from one buffer). */
let viewed: Uint8Array | undefined;
let view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

/** A DataView of `buf`'s bytes: the one made last when `buf` is the same buffer. */
export function wordsOf(buf: Uint8Array): DataView<ArrayBufferLike> {
  if (buf !== viewed) {
    viewed = buf;
    view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  return view;
}

const HASH = 0x23;
