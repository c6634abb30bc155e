// Tests of the RFC 5545 building blocks: folding at 75 octets without splitting a UTF-8 character, TEXT escaping, quoting, UTC times.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeText, foldLine, mailtoUri, MAX_LINE_OCTETS, quoteParameter, utcDateTime } from '../../src/feeds/icalendar.js';
import { mulberry32 } from '../helpers/random.js';

/** The physical lines of a folded line (without the final CRLF), as bytes. */
function physicalLines(folded: string): Buffer[] {
  assert.ok(folded.endsWith('\r\n'), 'a content line ends with CRLF');
  const bytes = Buffer.from(folded, 'utf8');
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length - 1; i++) {
    if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a) {
      lines.push(bytes.subarray(start, i));
      start = i + 2;
    }
  }
  assert.equal(start, bytes.length, 'nothing after the last CRLF');
  return lines;
}

/** Asserts the folding rules on `folded` and that unfolding gives back `line`. */
function assertFolded(line: string, folded: string): void {
  const lines = physicalLines(folded);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const [index, bytes] of lines.entries()) {
    assert.ok(bytes.length <= MAX_LINE_OCTETS, `line ${index} has ${bytes.length} octets`);
    if (index > 0) assert.equal(bytes[0], 0x20, `continuation ${index} starts with a space`);
    // A fold inside a character would leave invalid UTF-8 at the end of one line and the start of the next.
    assert.doesNotThrow(() => decoder.decode(bytes), `line ${index} is whole UTF-8 by itself`);
    if (index < lines.length - 1) assert.ok(bytes.length >= MAX_LINE_OCTETS - 3, `line ${index} was not folded early (${bytes.length} octets)`);
  }
  assert.equal(folded.slice(0, -2).split('\r\n ').join(''), line, 'unfolding gives the line back');
}

test('foldLine() leaves a line of 75 octets whole and folds one of 76', () => {
  const exact = 'X'.repeat(75);
  assert.equal(foldLine(exact), exact + '\r\n');
  const over = 'Y'.repeat(76);
  assert.equal(foldLine(over), 'Y'.repeat(75) + '\r\n Y\r\n');
});

test('foldLine() counts the leading space of a continuation: continuations carry 74 octets of the line', () => {
  const folded = foldLine('Z'.repeat(75 + 74 + 74 + 1));
  assert.deepEqual(physicalLines(folded).map((line) => line.length), [75, 75, 75, 2]);
});

test('foldLine() counts octets, not characters: 40 two-octet characters fold before the 38th', () => {
  const line = 'é'.repeat(40); // 80 octets, 40 characters
  const lines = physicalLines(foldLine(line));
  assert.equal(lines[0]!.length, 74, '37 × 2 octets; the 38th would make 76');
  assertFolded(line, foldLine(line));
});

test('foldLine() never splits a 4-byte emoji, at every offset of the fold', () => {
  for (let pad = 0; pad < 8; pad++) {
    const line = 'SUMMARY:' + 'a'.repeat(pad) + '🎉'.repeat(60) + '日本語'.repeat(10);
    assertFolded(line, foldLine(line));
  }
});

test('foldLine() keeps random mixes of 1- to 4-octet characters within 75 octets and whole', () => {
  const seed = Date.now() % 1_000_000;
  const random = mulberry32(seed);
  const alphabet = ['a', 'Z', ' ', ';', 'ß', 'é', '€', '日', '🎉', '👩‍🔬', '𝄞', '\\n'];
  for (let round = 0; round < 300; round++) {
    let line = 'DESCRIPTION:';
    const length = Math.floor(random() * 400);
    for (let i = 0; i < length; i++) line += alphabet[Math.floor(random() * alphabet.length)]!;
    try {
      assertFolded(line, foldLine(line));
    } catch (error) {
      console.error(`foldLine random test failed with seed ${seed}, round ${round}`);
      throw error;
    }
  }
});

test('foldLine() folds exactly where a fold of one code point at a time does, lone surrogates (3 octets, as U+FFFD) included', () => {
  const reference = (line: string): string => {
    let folded = '';
    let octets = 0;
    for (const char of line) {
      const code = char.codePointAt(0)!;
      const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
      if (octets + size > MAX_LINE_OCTETS) {
        folded += '\r\n ';
        octets = 1;
      }
      folded += char;
      octets += size;
    }
    return folded + '\r\n';
  };
  const seed = Date.now() % 1_000_000;
  const random = mulberry32(seed);
  const alphabet = ['a', ' ', 'ß', '€', '日', '🎉', '𝄞', '\ud800', '\udc00', '\udbff'];
  for (let round = 0; round < 500; round++) {
    let line = 'DESCRIPTION:';
    const length = Math.floor(random() * 300);
    for (let i = 0; i < length; i++) line += alphabet[Math.floor(random() * alphabet.length)]!;
    assert.equal(foldLine(line), reference(line), `seed ${seed}, round ${round}`);
  }
  assert.equal(foldLine('X:' + 'a'.repeat(70) + '\ud83cb'), 'X:' + 'a'.repeat(70) + '\ud83c\r\n b\r\n', 'a lone high surrogate before a letter: 3 octets, the fold after it');
  assert.equal(foldLine('X:' + 'a'.repeat(71) + '\ud83c'), 'X:' + 'a'.repeat(71) + '\r\n \ud83c\r\n', 'a lone high surrogate last: 3 octets, folded before it');
});

test('escapeText() escapes backslash, semicolon and comma, and turns every line break into \\n', () => {
  assert.equal(escapeText('a\\b;c,d'), 'a\\\\b\\;c\\,d');
  assert.equal(escapeText('one\ntwo\r\nthree\rfour'), 'one\\ntwo\\nthree\\nfour');
  assert.equal(escapeText('C:\\new'), 'C:\\\\new', 'a backslash before n stays a backslash, not a line break');
  assert.equal(escapeText('tab\tand colon: kept 🎉'), 'tab\tand colon: kept 🎉');
  assert.equal(escapeText(''), '');
});

test('quoteParameter() quotes always and writes ^, " and line breaks per RFC 6868', () => {
  assert.equal(quoteParameter('Ada Admin'), '"Ada Admin"');
  assert.equal(quoteParameter('Doe, Jane; "JD": ^x'), '"Doe, Jane; ^\'JD^\': ^^x"');
  assert.equal(quoteParameter('a\nb'), '"a^nb"');
});

test('mailtoUri() percent-encodes what a mailto address cannot carry as is', () => {
  assert.equal(mailtoUri('ada@campus.edu'), 'mailto:ada@campus.edu');
  assert.equal(mailtoUri("o'neil+events@campus.edu"), "mailto:o'neil+events@campus.edu");
  assert.equal(mailtoUri('a,b;c:d%e?f#g@x.edu'), 'mailto:a%2Cb%3Bc%3Ad%25e%3Ff%23g@x.edu');
  assert.equal(mailtoUri('zoë@x.edu'), 'mailto:zo%C3%AB@x.edu');
  assert.equal(mailtoUri('a\u0001 \u007f@x.edu'), 'mailto:a%01%20%7F@x.edu', 'two hex digits always');
});

test('utcDateTime() writes the UTC form 20260901T170000Z and drops milliseconds', () => {
  assert.equal(utcDateTime(Date.UTC(2026, 8, 1, 17, 0, 0)), '20260901T170000Z');
  assert.equal(utcDateTime(Date.UTC(1970, 0, 1, 0, 0, 0, 999)), '19700101T000000Z');
  assert.equal(utcDateTime(Date.UTC(9999, 11, 31, 23, 59, 59, 500)), '99991231T235959Z');
});

test('foldLine() folds exactly where the next character would pass 75 octets: U+007F, U+0080, U+07FF, U+0800, U+FFFF and U+10000 at the boundary', () => {
  for (const [char, size] of [['\u007f', 1], ['\u0080', 2], ['\u07ff', 2], ['\u0800', 3], ['\uffff', 3], ['\u{10000}', 4]] as const) {
    for (let lead = 70; lead <= 75; lead++) {
      const line = 'a'.repeat(lead) + char + 'b';
      const first = foldLine(line).split('\r\n')[0]!;
      const fits = lead + size <= MAX_LINE_OCTETS;
      assert.equal(first, fits ? 'a'.repeat(lead) + char + (lead + size < MAX_LINE_OCTETS ? 'b' : '') : 'a'.repeat(lead), `U+${char.codePointAt(0)!.toString(16)} after ${lead} octets`);
      assert.ok(Buffer.byteLength(first) <= MAX_LINE_OCTETS);
    }
  }
});
