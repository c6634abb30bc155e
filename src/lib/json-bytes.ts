// Reading JSON text in its bytes without parsing it: where a string literal opens or closes, where digits start.
// Pure helpers for the byte-level readers of logged views (the replay's and the search index's build from the log).

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Given the position just after a JSON string's closing quote, the position of its opening quote
 * (not after `floor`), or -1. Inside a string every quote is escaped, i.e. preceded by an odd
 * number of backslashes; the first quote going backward with an even number is the opening one.
 */
export function openingQuote(buf: Buffer, afterClosing: number, floor: number): number {
  if (buf[afterClosing - 1] !== QUOTE) return -1;
  for (let pos = afterClosing - 2; pos > floor; pos--) {
    if (buf[pos] !== QUOTE) continue;
    let backslashes = 0;
    while (buf[pos - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return pos;
  }
  return -1;
}

/** The position of the first of the digits that end at `pos`, or -1 when none do (or `pos` is -1). */
export function digitsBefore(buf: Buffer, pos: number): number {
  let first = pos;
  while (buf[first - 1]! >= 0x30 && buf[first - 1]! <= 0x39) first--;
  return first === pos ? -1 : first;
}

/** Given the position of a JSON string's opening quote, the position of its closing quote (the first unescaped one), or -1. */
export function closingQuote(buf: Buffer, opening: number, end: number): number {
  for (let pos = opening + 1; pos < end; pos++) {
    const byte = buf[pos];
    if (byte === BACKSLASH) pos++;
    else if (byte === QUOTE) return pos;
  }
  return -1;
}
