// Reading a log in chunks: what is left of a buffer once its whole lines are read.

/**
 * The buffer to read on into, once the whole lines before `lineStart` of its first `filled` bytes are read: the
 * partial line left is moved to its start, or, when one line fills the whole buffer, copied into one twice as long.
 * The caller then drops `lineStart` bytes from its count (0 in the second case).
 */
export function carryPartialLine(buffer: Buffer<ArrayBuffer>, lineStart: number, filled: number): Buffer<ArrayBuffer> {
  if (lineStart === 0 && filled === buffer.length) {
    const larger = Buffer.allocUnsafe(buffer.length * 2);
    buffer.copy(larger, 0, 0, filled);
    return larger;
  }
  buffer.copy(buffer, 0, lineStart, filled);
  return buffer;
}
