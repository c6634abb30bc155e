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

/**
 * The bounds of each member of group line `buf[start, …)`, as `[start0, end0, start1, …]`, or why the line is bad.
 * `limit` is where the members' list must have closed: the line's end for the tab layout, the start of its
 * `,"crc":…` for the JSON one.
 */
export function groupBounds(buf: Buffer, start: number, limit: number): number[] | string {
  if (buf[start] === TAB) return tabbedBounds(buf, start, limit);
  let pos = afterSeq(buf, start, limit);
  if (pos < 0 || !matches(buf, pos, GROUP_OPEN, limit)) return 'the line does not start with {"seq":N,"op":"group","sizes":[';
  pos += GROUP_OPEN.length;
  const sizes: number[] = [];
  for (;;) {
    const digitsStart = pos;
    let size = 0;
    while (pos < limit && pos - digitsStart < 9 && buf[pos]! >= 0x30 && buf[pos]! <= 0x39) size = size * 10 + (buf[pos++]! - 0x30);
    if (pos === digitsStart || size === 0) return 'a group line\'s "sizes" holds something other than positive integers';
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
  return pos === limit ? bounds : 'a group line holds more than its "sizes" say';
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
