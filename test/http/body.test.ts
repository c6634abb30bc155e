// Tests for readJsonObject: 415, 413 and 400 in the order API.md §3 sets, on a fake PlainRequest.

import assert from "node:assert/strict";
import { test } from "node:test";
import { checkUnreadBody, isJsonMediaType, MAX_BODY_BYTES, MAX_BODY_DEPTH, readJsonObject } from "../../src/http/body.js";
import { ApiError, type ErrorCode } from "../../src/http/errors.js";
import type { PlainRequest } from "../../src/http/types.js";

/** A fake request; `contentType` null sends no Content-Type header. */
function request(body: string | Buffer | null, contentType: string | null = "application/json", bodyTooLarge = false): PlainRequest {
  return {
    method: "POST",
    target: "/events",
    headers: contentType === null ? {} : { "content-type": contentType },
    body: typeof body === "string" ? Buffer.from(body, "utf8") : body,
    bodyTooLarge,
    remoteAddress: "127.0.0.1",
  };
}

/** Asserts readJsonObject throws `code` with `status` and a message containing every part. */
function assertRefused(req: PlainRequest, code: ErrorCode, status: number, ...parts: string[]): void {
  assert.throws(
    () => readJsonObject(req),
    (error: unknown) => {
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.code, code);
      assert.equal(error.status, status);
      for (const part of parts) assert.ok(error.message.includes(part), `message ${JSON.stringify(error.message)} lacks ${JSON.stringify(part)}`);
      return true;
    },
  );
}

test("readJsonObject() returns the parsed object", () => {
  assert.deepEqual(readJsonObject(request('{"title":"Robotics","capacity":40}')), { title: "Robotics", capacity: 40 });
  assert.deepEqual(readJsonObject(request("{}")), {});
  assert.deepEqual(readJsonObject(request(' \n {"a":[1,{"b":null}]} \n')), { a: [1, { b: null }] });
});

test("readJsonObject() keeps __proto__ as an own data key, not a prototype", () => {
  const body = readJsonObject(request('{"__proto__":{"polluted":true}}'));
  assert.ok(Object.hasOwn(body, "__proto__"));
  assert.equal(Object.getPrototypeOf(body), Object.prototype);
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
});

test("readJsonObject() refuses a body without Content-Type with 415", () => {
  assertRefused(request("{}", null), "unsupported_media_type", 415, "Content-Type: application/json", "got none");
});

for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/jsonp", "application/json-patch+json", "text/json", "application/json; charset=latin1", "application/json; charset=iso-8859-1", "application/json;charset=utf-16", ""]) {
  test(`readJsonObject() refuses Content-Type ${JSON.stringify(contentType)} with 415, quoting it`, () => {
    assertRefused(request("{}", contentType), "unsupported_media_type", 415, `"${contentType}"`);
  });
}

for (const contentType of ["application/json", "Application/JSON", "application/json; charset=utf-8", "application/json;charset=UTF-8", 'application/json; charset="utf-8"', "application/json ; charset=utf-8", "application/json; boundary=x"]) {
  test(`readJsonObject() accepts Content-Type ${JSON.stringify(contentType)}`, () => {
    assert.deepEqual(readJsonObject(request('{"a":1}', contentType)), { a: 1 });
  });
}

test("readJsonObject() refuses a body over the cap with 413", () => {
  assertRefused(request(Buffer.alloc(MAX_BODY_BYTES, 0x20), "application/json", true), "payload_too_large", 413, "64 KiB");
  assert.equal(MAX_BODY_BYTES, 65_536);
});

test("readJsonObject() answers 415 before 413 when an oversized body has the wrong media type", () => {
  assertRefused(request(Buffer.alloc(1024), "text/plain", true), "unsupported_media_type", 415);
  assertRefused(request(Buffer.alloc(1024), null, true), "unsupported_media_type", 415);
});

test("readJsonObject() answers 413 before JSON errors", () => {
  assertRefused(request("{not json", "application/json", true), "payload_too_large", 413);
});

test("readJsonObject() refuses malformed JSON with 400", () => {
  for (const text of ["{", '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', "{a:1}", '{"a":01}', '{"a":NaN}']) {
    assertRefused(request(text), "bad_request", 400, "not valid JSON");
  }
});

for (const [text, got] of [["[]", "an array"], ['[{"a":1}]', "an array"], ["null", "null"], ["42", "a number"], ['"text"', "a string"], ["true", "a boolean"]] as const) {
  test(`readJsonObject() refuses the JSON body ${text} with 400`, () => {
    assertRefused(request(text), "bad_request", 400, "must be a JSON object", got);
  });
}

test("readJsonObject() refuses invalid UTF-8 with 400", () => {
  for (const bytes of [[0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d], [0x7b, 0x22, 0xc3, 0x22, 0x3a, 0x31, 0x7d], [0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]]) {
    assertRefused(request(Buffer.from(bytes)), "bad_request", 400, "UTF-8");
  }
});

test("readJsonObject() decodes multi-byte UTF-8 and drops a byte-order mark", () => {
  assert.deepEqual(readJsonObject(request('{"t":"Café 🎉"}')), { t: "Café 🎉" });
  assert.deepEqual(readJsonObject(request(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]))), { a: 1 });
});

test("readJsonObject() refuses an empty body with 400", () => {
  assertRefused(request(""), "bad_request", 400, "JSON object body");
  assertRefused(request(null), "bad_request", 400, "JSON object body");
  assertRefused(request(null, null), "bad_request", 400, "JSON object body");
});

test("readJsonObject() refuses a whitespace-only body as malformed JSON", () => {
  assertRefused(request("   "), "bad_request", 400, "not valid JSON");
});

test("isJsonMediaType() is false for a missing header", () => {
  assert.equal(isJsonMediaType(undefined), false);
  assert.equal(isJsonMediaType("application/json"), true);
});

test("readJsonObject() answers 415 for a wrong Content-Type even when the body is empty", () => {
  assertRefused(request("", "text/plain"), "unsupported_media_type", 415, '"text/plain"');
});

/** A JSON object nesting arrays `depth` levels deep in all (the outer object counts as one). */
function nested(depth: number, open = "[", close = "]"): string {
  return `{"a":${open.repeat(depth - 1)}${close.repeat(depth - 1)}}`;
}

test("readJsonObject() accepts nesting exactly MAX_BODY_DEPTH deep and refuses one level more with 400", () => {
  assert.equal(MAX_BODY_DEPTH, 32);
  assert.deepEqual(Object.keys(readJsonObject(request(nested(MAX_BODY_DEPTH)))), ["a"]);
  assertRefused(request(nested(MAX_BODY_DEPTH + 1)), "bad_request", 400, "more than 32 levels deep");
  assertRefused(request(`{"a":${'{"b":'.repeat(MAX_BODY_DEPTH)}1${"}".repeat(MAX_BODY_DEPTH)}}`), "bad_request", 400, "32 levels");
});

test("readJsonObject() does not count brackets inside strings, escaped quotes included, as nesting", () => {
  const brackets = "[".repeat(100);
  assert.equal(readJsonObject(request(JSON.stringify({ a: brackets, b: `\\"${brackets}`, c: "\\" }))).a, brackets);
  // Closing brackets bring the depth back down: many shallow arrays in a row are fine.
  assert.equal((readJsonObject(request(`{"a":[${"[[[]]],".repeat(200)}[]]}`)).a as unknown[]).length, 201);
});

test("checkUnreadBody() lets a request without a body, or with an empty one, through whatever its Content-Type", () => {
  assert.doesNotThrow(() => checkUnreadBody(request(null, null)));
  assert.doesNotThrow(() => checkUnreadBody(request("", null)));
  assert.doesNotThrow(() => checkUnreadBody(request("", "text/plain")));
});

test("checkUnreadBody() refuses a body sent without application/json with 415, quoting the type", () => {
  assertUnread(request("x", null), "unsupported_media_type", 415, "got none");
  assertUnread(request("{}", "text/plain"), "unsupported_media_type", 415, '"text/plain"');
  assertUnread(request("", "text/plain", true), "unsupported_media_type", 415, "text/plain");
});

test("checkUnreadBody() refuses a JSON body over the cap with 413, and ignores one within it", () => {
  assertUnread(request("", "application/json", true), "payload_too_large", 413, "64 KiB");
  assert.doesNotThrow(() => checkUnreadBody(request('{"ignored":true}')));
  assert.doesNotThrow(() => checkUnreadBody(request("not even json")));
});

function assertUnread(req: PlainRequest, code: ErrorCode, status: number, part: string): void {
  assert.throws(
    () => checkUnreadBody(req),
    (error: unknown) => error instanceof ApiError && error.code === code && error.status === status && error.message.includes(part),
  );
}

test("readJsonObject() and checkUnreadBody() refuse a body in any Content-Encoding but identity with 415, before its size", () => {
  const encoded = (coding: string, body = '{"a":1}', tooLarge = false): PlainRequest => {
    const req = request(body, "application/json", tooLarge);
    req.headers["content-encoding"] = coding;
    return req;
  };
  for (const coding of ["gzip", "br", "deflate, gzip"]) {
    assertRefused(encoded(coding), "unsupported_media_type", 415, "uncompressed", `"${coding}"`);
    assertUnread(encoded(coding), "unsupported_media_type", 415, "uncompressed");
  }
  assertRefused(encoded("gzip", "", true), "unsupported_media_type", 415, "uncompressed");
  for (const coding of ["identity", "IDENTITY", ""]) assert.deepEqual(readJsonObject(encoded(coding)), { a: 1 });
  // Without a body the coding says nothing: a check-in with none is still read as usual.
  assert.doesNotThrow(() => checkUnreadBody(encoded("gzip", "")));
});
