// The framing of a log line that holds other lines (an atomic group: a series and its occurrences), read in its bytes:
// one JSON object, {"seq":NEWEST,"op":"group","sizes":[B1,…],"lines":[M1,…],"crc":"…"}, each member Mi a whole line
// of Bi bytes. Lines written before that layout put a tab before each member instead (JSON never holds a raw tab);
// both are read. Checksums are the caller's: see store/records/group-line.ts.

const TAB = 0x09;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const SEQ_OPEN = Buffer.from('{"seq":');
const GROUP_OPEN = Buffer.from(',"op":"group","sizes":[');
const LINES_OPEN = Buffer.from('],"lines":[');

/** True when the line `buf[start, end)` is a group line, in either layout (nothing of it checked yet). */
export function isGroupLine(buf: Buffer, start: number, end: number): boolean {
  if (buf[start] === TAB) return true;
  const pos = afterSeq(buf, start, end);
  return pos > 0 && matches(buf, pos, GROUP_OPEN, end);
}

/** The members of a group line: the seq its head names (undefined in the tab layout, which has none) and their bounds. */
export interface GroupBounds {
  seq: number | undefined;
  /** `[start0, end0, start1, …]`. */
  bounds: number[];
}

/**
 * The bounds of each member of group line `buf[start, …)`, or why the line is bad. `limit` is where the members'
 * list must have closed: the line's end for the tab layout, the start of its `,"crc":…` for the JSON one.
 */
export function groupBounds(buf: Buffer, start: number, limit: number): GroupBounds | string {
  if (buf[start] === TAB) {
    const bounds = tabbedBounds(buf, start, limit);
    return typeof bounds === 'string' ? bounds : { seq: undefined, bounds };
  }
  let pos = afterSeq(buf, start, limit);
  if (pos < 0 || !matches(buf, pos, GROUP_OPEN, limit)) return 'the line does not start with {"seq":N,"op":"group","sizes":[';
  const seq = positiveInteger(buf, start + SEQ_OPEN.length, pos);
  if (seq === undefined) return 'the sequence number of a group line is not a positive integer';
  pos += GROUP_OPEN.length;
  const sizes: number[] = [];
  for (;;) {
    const digitsStart = pos;
    while (pos < limit && pos - digitsStart < 9 && buf[pos]! >= 0x30 && buf[pos]! <= 0x39) pos++;
    const size = positiveInteger(buf, digitsStart, pos);
    if (size === undefined) return 'a group line\'s "sizes" holds something other than positive integers';
    sizes.push(size);
    if (buf[pos] !== COMMA) break;
    pos++;
  }
  if (!matches(buf, pos, LINES_OPEN, limit)) return 'a group line\'s "sizes" is not followed by "lines"';
  pos += LINES_OPEN.length;
  const bounds: number[] = [];
  for (const [index, size] of sizes.entries()) {
    if (pos + size >= limit) return `member ${index + 1} of an atomic group runs past the line's end`;
    bounds.push(pos, pos + size);
    pos += size;
    if (buf[pos] !== (index === sizes.length - 1 ? CLOSE_BRACKET : COMMA)) return `member ${index + 1} of an atomic group is not the ${size} bytes its "sizes" say`;
    pos++;
  }
  return pos === limit ? { seq, bounds } : 'a group line holds more than its "sizes" say';
}

/** The digits `buf[from, to)` as a number when they are one JSON writes (no leading zero) above 0, else undefined. */
function positiveInteger(buf: Buffer, from: number, to: number): number | undefined {
  if (to === from || to - from > 15 || buf[from] === 0x30) return undefined;
  let value = 0;
  for (let pos = from; pos < to; pos++) value = value * 10 + (buf[pos]! - 0x30);
  return value;
}

/** Bytes of the `,"crc":"xxxxxxxx"}` that ends a line of the JSON layout. */
const CRC_SUFFIX_LENGTH = 18;

/** groupBounds() of a line trusted whole (its checksums checked by its reader's caller): `end` is the line's end. */
export function trustedGroupBounds(buf: Buffer, start: number, end: number): GroupBounds | string {
  return groupBounds(buf, start, buf[start] === TAB ? end : end - CRC_SUFFIX_LENGTH);
}

/** The members of a group line of the older layout: each after a tab. */
function tabbedBounds(buf: Buffer, start: number, end: number): number[] | string {
  const bounds: number[] = [];
  for (let member = start + 1; member <= end; ) {
    let next = buf.indexOf(TAB, member);
    if (next < 0 || next > end) next = end;
    bounds.push(member, next);
    member = next + 1;
  }
  return bounds.length === 0 ? 'an atomic group line holds no lines' : bounds;
}

/** Where the bytes after `{"seq":N` begin, or -1 when the line does not start so. */
function afterSeq(buf: Buffer, start: number, end: number): number {
  if (!matches(buf, start, SEQ_OPEN, end)) return -1;
  const digits = start + SEQ_OPEN.length;
  let pos = digits;
  while (pos < end && pos - digits < 15 && buf[pos]! >= 0x30 && buf[pos]! <= 0x39) pos++;
  return pos === digits ? -1 : pos;
}

/** True when `literal` is at `pos`, wholly before `limit`. */
function matches(buf: Buffer, pos: number, literal: Buffer, limit: number): boolean {
  if (pos + literal.length > limit) return false;
  for (let i = 0; i < literal.length; i++) if (buf[pos + i] !== literal[i]) return false;
  return true;
}
