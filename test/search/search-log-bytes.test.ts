// Byte patterns compared four bytes at a time against the plain rule (byte by byte; `#` any of 0–9), on seeded random
// bytes near the pattern: one byte changed to a neighbour of a digit or of the expected byte, at every offset and
// alignment, at the buffer's edges. SEARCH_LOG_BYTES_SEED=n replays one run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytePattern, endsAt, matchesAt } from '../../src/search/search-log-bytes.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['SEARCH_LOG_BYTES_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const TEXTS = [',"id', '{"id":"evt_', ',"start_time":"####-##-##T##:##:##.###Z","end_time":"', '####', '","category":"academic', 'a#b#c'];

/** The plain rule: every byte of `text` at `pos`, a `#` any decimal digit; nothing past either end of the buffer. */
function plain(buf: Uint8Array, pos: number, text: string): boolean {
  if (pos < 0 || pos + text.length > buf.length) return false;
  for (let i = 0; i < text.length; i++) {
    const byte = buf[pos + i]!;
    if (text[i] === '#' ? byte < 0x30 || byte > 0x39 : byte !== text.charCodeAt(i)) return false;
  }
  return true;
}

test(`matchesAt and endsAt agree with a byte-by-byte comparison on 20,000 near misses (seed ${SEED}; SEARCH_LOG_BYTES_SEED replays it)`, (t) => {
  t.diagnostic(`seed ${SEED}`);
  const random = mulberry32(SEED);
  let matched = 0;
  for (let n = 0; n < 20_000; n++) {
    const text = TEXTS[Math.floor(random() * TEXTS.length)]!;
    const pattern = bytePattern(text);
    const lead = Math.floor(random() * 6);
    const bytes = Buffer.from(`${'x'.repeat(lead)}${text.replace(/#/g, () => String(Math.floor(random() * 10)))}${'y'.repeat(Math.floor(random() * 3))}`, 'latin1');
    if (random() < 0.7) {
      // Around a digit (the slash and colon, 0x3a–0x3f, 0x20–0x29 share bits with one), or the expected byte with one bit flipped.
      const at = lead + Math.floor(random() * text.length);
      bytes[at] = random() < 0.5 ? [0x2f, 0x3a, 0x3f, 0x20, 0x29, 0xb0, 0x39, 0x30][Math.floor(random() * 8)]! : bytes[at]! ^ (1 << Math.floor(random() * 8));
    }
    // A sub-array with a byte offset, so the words are read at every alignment of the underlying memory.
    const buf = random() < 0.5 ? bytes : new Uint8Array(Buffer.concat([Buffer.from('zz'), bytes]).buffer, 2, bytes.length);
    const pos = random() < 0.6 ? lead : lead + (random() < 0.5 ? -1 : 1);
    const where = `seed ${SEED}, ${JSON.stringify(Buffer.from(buf).toString('latin1'))} at ${pos} for ${text}`;
    const expected = plain(buf, pos, text);
    assert.equal(matchesAt(buf, pos, pattern), expected, where);
    assert.equal(endsAt(buf, pos + text.length, pattern), expected, `${where}, from its end`);
    if (expected) matched++;
  }
  assert.ok(matched > 1500, `seed ${SEED}: only ${matched} matched`);
});

test('a pattern shorter than a word, or not ASCII, is refused when made', () => {
  assert.throws(() => bytePattern('"}}'), /4 or more ASCII bytes/);
  assert.throws(() => bytePattern('café'), /4 or more ASCII bytes/);
});
