// openingQuote, closingQuote and digitsBefore: a JSON string literal's quotes and a number's digits found in bytes,
// checked against JSON.stringify's own literals for seeded random strings. JSON_BYTES_SEED=n replays one run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closingQuote, digitsBefore, openingQuote } from '../../src/lib/json-bytes.js';
import { mulberry32 } from '../helpers/random.js';

const SEED = Number(process.env['JSON_BYTES_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

/** Characters that make a literal hard to walk: quotes, backslashes (escaped in the literal), controls, non-ASCII. */
const HARD = ['"', '\\', '\\"', '"\\', 'a', 'é', '\n', '\u0001', '😀', ' ', '1'];

test(`the quotes of 2,000 random JSON string literals, found from either end, are the ones JSON.stringify wrote (seed ${SEED}; JSON_BYTES_SEED replays it)`, (t) => {
  t.diagnostic(`seed ${SEED}`);
  const random = mulberry32(SEED);
  for (let n = 0; n < 2000; n++) {
    let text = '';
    for (let length = Math.floor(random() * 12); length > 0; length--) text += HARD[Math.floor(random() * HARD.length)]!;
    const literal = JSON.stringify(text);
    // Keys and a literal before it, as in a view: the walk back must stop at this literal's opening quote.
    const before = `{"k":"x\\"","t":`;
    const buf = Buffer.from(`${before}${literal},"n":1}`);
    const opening = Buffer.byteLength(before);
    const afterClosing = opening + Buffer.byteLength(literal);
    assert.equal(openingQuote(buf, afterClosing, 0), opening, `seed ${SEED}, literal ${literal}: opening quote`);
    assert.equal(closingQuote(buf, opening, buf.length), afterClosing - 1, `seed ${SEED}, literal ${literal}: closing quote`);
  }
});

test('openingQuote() is -1 when no quote ends the literal, or when its opening one is not after the floor', () => {
  const buf = Buffer.from('{"t":"ab"}');
  assert.equal(openingQuote(buf, 9, 0), 5);
  assert.equal(openingQuote(buf, 8, 0), -1, 'the byte before is a letter, not a closing quote');
  assert.equal(openingQuote(buf, 9, 5), -1, 'the opening quote sits at the floor');
});

test('closingQuote() steps over an escaped quote and is -1 when the literal does not close before the end', () => {
  const buf = Buffer.from('"a\\"b"');
  assert.equal(closingQuote(buf, 0, buf.length), 5);
  assert.equal(closingQuote(buf, 0, 5), -1);
});

test('digitsBefore() gives the first of the digits ending at a position, and -1 for none or for -1', () => {
  const buf = Buffer.from('"capacity":120,');
  assert.equal(digitsBefore(buf, 14), 11);
  assert.equal(digitsBefore(buf, 11), -1, 'a colon ends there');
  assert.equal(digitsBefore(buf, -1), -1);
});
