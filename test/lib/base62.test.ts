// Tests for base62: fixed length, left-padded, big-endian, and a round trip back to the bytes.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { base62 } from "../../src/lib/base62.js";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

test("base62() writes fixed-length, left-padded, big-endian base62", () => {
  assert.equal(base62(new Uint8Array([]), 4), "0000");
  assert.equal(base62(new Uint8Array([0]), 3), "000");
  assert.equal(base62(new Uint8Array([61]), 3), "00z");
  assert.equal(base62(new Uint8Array([62]), 3), "010");
  assert.equal(base62(new Uint8Array([1, 0]), 3), "048"); // 256 = 4·62 + 8
  assert.equal(base62(new Uint8Array([255, 255, 255, 255]), 6), "4gfFC3"); // 2^32 − 1
});

test("base62() always gives the length asked for", () => {
  for (let i = 0; i < 100; i++) {
    const bytes = randomBytes(24);
    const text = base62(bytes, 33);
    assert.equal(text.length, 33);
    assert.match(text, /^[0-9A-Za-z]+$/);
    let value = 0n;
    for (const char of text) value = value * 62n + BigInt(ALPHABET.indexOf(char));
    assert.equal(value, BigInt(`0x${Buffer.from(bytes).toString("hex")}`), "round-trips");
  }
});
