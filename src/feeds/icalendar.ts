// RFC 5545 building blocks: content lines folded at 75 octets, TEXT escaping, parameter quoting and UTC date-times.

/** The longest a physical line may be, in octets, not counting its CRLF (RFC 5545 §3.1). */
export const MAX_LINE_OCTETS = 75;

/**
 * A TEXT value escaped per RFC 5545 §3.3.11: backslash, semicolon and comma get a backslash,
 * and every line break (CRLF, CR or LF) becomes `\n`.
 */
export function escapeText(value: string): string {
  // Most titles, places and descriptions need nothing: the same string, not one rebuilt a character at a time.
  if (!NEEDS_ESCAPE.test(value)) return value;
  let escaped = '';
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    if (char === '\\' || char === ';' || char === ',') escaped += '\\' + char;
    else if (char === '\r') {
      escaped += '\\n';
      if (value[i + 1] === '\n') i++;
    } else if (char === '\n') escaped += '\\n';
    else escaped += char;
  }
  return escaped;
}

/** A character escapeText changes. */
const NEEDS_ESCAPE = /[\\;,\r\n]/;

/**
 * A parameter value, always quoted (so `:`, `;` and `,` in it are safe), with the characters a
 * quoted value cannot hold written per RFC 6868: `^` as `^^`, `"` as `^'`, a line break as `^n`.
 */
export function quoteParameter(value: string): string {
  return '"' + value.replace(/\^/g, '^^').replace(/"/g, "^'").replace(/\r\n|\r|\n/g, '^n') + '"';
}

/**
 * `mailto:` and an e-mail address as a URI (RFC 6068): every octet outside the characters a mailto
 * address may carry as they are is percent-encoded, so the value is one valid CAL-ADDRESS.
 */
export function mailtoUri(email: string): string {
  let uri = 'mailto:';
  for (const byte of Buffer.from(email, 'utf8')) {
    const char = String.fromCharCode(byte);
    uri += byte < 0x80 && MAILTO_SAFE.test(char) ? char : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return uri;
}

const MAILTO_SAFE = /[A-Za-z0-9.!$'*+\-/=^_`{|}~@]/;

/** A UTC DATE-TIME (RFC 5545 §3.3.5, form 2) of an instant in ms: `20260901T170000Z`; milliseconds are dropped. */
export function utcDateTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-09-01T17:00:00.000Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

/**
 * One content line with its CRLF, folded (RFC 5545 §3.1): no physical line over 75 octets, each
 * continuation starting with one space, and a break never inside a character's UTF-8 octets.
 */
export function foldLine(line: string): string {
  if (line.length <= MAX_LINE_OCTETS && Buffer.byteLength(line) <= MAX_LINE_OCTETS) return line + '\r\n';
  // Cut into slices, joined once: a string grown a character at a time cost a 20 KB description about a millisecond.
  const pieces: string[] = [];
  let start = 0;
  let octets = 0;
  for (let i = 0; i < line.length; ) {
    const unit = line.charCodeAt(i);
    const pair = unit >= 0xd800 && unit < 0xdc00 && (line.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    // A pair is a code point of 4 octets; a lone surrogate is written as U+FFFD, 3.
    const size = pair ? 4 : unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3;
    if (octets + size > MAX_LINE_OCTETS) {
      pieces.push(line.slice(start, i));
      start = i;
      octets = 1; // the space that starts the continuation counts
    }
    octets += size;
    i += pair ? 2 : 1;
  }
  pieces.push(line.slice(start));
  return pieces.join('\r\n ') + '\r\n';
}

