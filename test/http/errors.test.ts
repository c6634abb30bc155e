// Tests for the error catalog against API.md §3, the JSON error body, and the 500 that reveals nothing.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError, ERROR_CATALOG, errorBody, INTERNAL_MESSAGE, toApiError } from "../../src/http/errors.js";

/** The §3 table of API.md, copied by hand so a change on either side fails here. */
const CONTRACT_TABLE: Record<string, number> = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

test("ERROR_CATALOG has exactly the codes of API.md §3", () => {
  assert.deepEqual(Object.keys(ERROR_CATALOG).sort(), Object.keys(CONTRACT_TABLE).sort());
});

for (const [code, status] of Object.entries(ERROR_CATALOG)) {
  test(`ERROR_CATALOG sends ${code} with status ${CONTRACT_TABLE[code]}`, () => {
    assert.equal(status, CONTRACT_TABLE[code]);
    const error = new ApiError(code as keyof typeof ERROR_CATALOG, `a ${code} message`);
    assert.equal(error.status, status);
    assert.equal(error.code, code);
    assert.deepEqual(JSON.parse(errorBody(error)), { error: code, message: `a ${code} message` });
  });
}

test("ApiError is an Error carrying code, status, details and headers", () => {
  const error = new ApiError("method_not_allowed", "PATCH is not allowed on /events.", { headers: { Allow: "GET, HEAD, POST, OPTIONS" } });
  assert.ok(error instanceof Error);
  assert.equal(error.name, "ApiError");
  assert.equal(error.message, "PATCH is not allowed on /events.");
  assert.equal(error.status, 405);
  assert.deepEqual(error.headers, { Allow: "GET, HEAD, POST, OPTIONS" });
  assert.equal(error.details, undefined);
});

test("errorBody() produces {error, message} without details when there are none", () => {
  const body = errorBody(new ApiError("not_found", "No event has the id evt_x."));
  assert.equal(body, '{"error":"not_found","message":"No event has the id evt_x."}');
});

test("errorBody() adds details when given, in order", () => {
  const details = [{ field: "title", message: "title is required" }, { field: "capacity", message: "capacity must be from 1 to 100000, got 0" }];
  const body = errorBody(new ApiError("validation_failed", "The event is not valid.", { details }));
  assert.deepEqual(JSON.parse(body), { error: "validation_failed", message: "The event is not valid.", details });
  assert.deepEqual(Object.keys(JSON.parse(body) as object), ["error", "message", "details"]);
});

test("toApiError() returns an ApiError unchanged", () => {
  const error = new ApiError("conflict", "capacity 3 is below registered_count 5.");
  assert.equal(toApiError(error), error);
});

test("toApiError() turns a non-ApiError into a 500 internal whose message reveals nothing of it", () => {
  const secret = "ENOENT: open '/srv/secret/path/events.jsonl' at Object.openSync";
  for (const thrown of [new Error(secret), new TypeError(secret), secret, { message: secret }, null, undefined, 42]) {
    const error = toApiError(thrown);
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, "internal");
    assert.equal(error.status, 500);
    assert.equal(error.message, INTERNAL_MESSAGE);
    assert.equal(error.details, undefined);
    const body = errorBody(error);
    assert.ok(!body.includes("ENOENT") && !body.includes("/srv") && !body.includes("openSync"), body);
    assert.deepEqual(JSON.parse(body), { error: "internal", message: INTERNAL_MESSAGE });
  }
});

test("INTERNAL_MESSAGE tells the client how to find the details", () => {
  assert.match(INTERNAL_MESSAGE, /X-Request-Id/);
});
