// Tests for API key secrets: their shape, their checksum and their hash.

import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { test } from "node:test";
import { hashSecret, looksLikeKey, newKeyId, newSecret, sameHash } from "../../src/auth/api-key.js";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A deterministic randomBytes that returns `byte` repeated. */
const filled = (byte: number) => (size: number) => new Uint8Array(size).fill(byte);

test("newSecret() has the shape cek_ + 39 base62 characters", () => {
  for (let i = 0; i < 200; i++) assert.match(newSecret(randomBytes), /^cek_[A-Za-z0-9]{39}$/);
});

test("newSecret() asks for 24 random bytes (192 bits)", () => {
  const sizes: number[] = [];
  newSecret((size) => {
    sizes.push(size);
    return new Uint8Array(size);
  });
  assert.deepEqual(sizes, [24]);
});

test("newSecret() is a pure function of its random bytes and differs when they differ", () => {
  assert.equal(newSecret(filled(7)), newSecret(filled(7)));
  assert.notEqual(newSecret(filled(7)), newSecret(filled(8)));
  const all = new Set(Array.from({ length: 500 }, () => newSecret(randomBytes)));
  assert.equal(all.size, 500);
});

test("newSecret() encodes all-zero and all-one bytes at full length", () => {
  assert.match(newSecret(filled(0)), /^cek_0{33}[A-Za-z0-9]{6}$/);
  assert.match(newSecret(filled(255)), /^cek_[A-Za-z0-9]{39}$/);
});

test("looksLikeKey() accepts generated keys", () => {
  for (let i = 0; i < 200; i++) assert.equal(looksLikeKey(newSecret(randomBytes)), true);
  assert.equal(looksLikeKey(newSecret(filled(0))), true);
  assert.equal(looksLikeKey(newSecret(filled(255))), true);
});

test("looksLikeKey() refuses every one-character change of a key (checksum)", () => {
  const key = newSecret(randomBytes);
  for (let position = 4; position < key.length; position++) {
    const original = key[position]!;
    const replacement = ALPHABET[(ALPHABET.indexOf(original) + 1 + (position % 61)) % 62]!;
    assert.notEqual(replacement, original);
    const changed = key.slice(0, position) + replacement + key.slice(position + 1);
    assert.equal(looksLikeKey(changed), false, `change at ${position}: ${changed}`);
  }
});

test("looksLikeKey() refuses two neighbouring characters swapped", () => {
  const key = newSecret(filled(0x5a));
  const body = key.slice(4);
  const i = [...body].findIndex((c, index) => index + 1 < body.length && c !== body[index + 1]);
  assert.ok(i >= 0);
  const swapped = `cek_${body.slice(0, i)}${body[i + 1]}${body[i]}${body.slice(i + 2)}`;
  assert.equal(looksLikeKey(swapped), false);
});

test("looksLikeKey() refuses wrong prefixes, lengths and characters", () => {
  const key = newSecret(randomBytes);
  for (const bad of ["", "cek_", key.slice(0, -1), `${key}0`, key.replace("cek_", "CEK_"), key.replace("cek_", "cek-"), `x${key.slice(1)}`, `${key.slice(0, 10)}-${key.slice(11)}`, ` ${key}`, `${key}\n`, "Bearer " + key]) {
    assert.equal(looksLikeKey(bad), false, JSON.stringify(bad));
  }
});

test("hashSecret() is the SHA-256 of the secret in lower-case hex", () => {
  const key = newSecret(randomBytes);
  const hash = hashSecret(key);
  assert.match(hash, /^[0-9a-f]{64}$/);
  assert.equal(hash, createHash("sha256").update(key, "utf8").digest("hex"));
  assert.equal(hashSecret("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

test("sameHash() compares hashes, false on a different or shorter hash", () => {
  const hash = hashSecret("a");
  assert.equal(sameHash(hash, hashSecret("a")), true);
  assert.equal(sameHash(hash, hashSecret("b")), false);
  assert.equal(sameHash(hash, hash.slice(0, 62)), false);
});

test("newKeyId() is key_ + 12 base62 characters", () => {
  assert.match(newKeyId(randomBytes), /^key_[0-9A-Za-z]{12}$/);
  assert.equal(newKeyId(filled(0)), "key_000000000000");
});
