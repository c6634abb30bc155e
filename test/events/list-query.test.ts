// Tests for the GET /events query: every parameter, defaults, strict values, and a 400 naming the parameter.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../../src/http/errors.js";
import { parseListQuery, parsePaging } from "../../src/events/list-query.js";

/** Asserts `query` is a 400 `bad_request` whose message contains every part. */
function assertBadQuery(query: string, ...parts: string[]): void {
  assert.throws(
    () => parseListQuery(query),
    (error: unknown) => {
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.code, "bad_request");
      assert.equal(error.status, 400);
      assert.equal(error.details, undefined);
      for (const part of parts) assert.ok(error.message.includes(part), `message ${JSON.stringify(error.message)} lacks ${JSON.stringify(part)}`);
      return true;
    },
  );
}

test("parseListQuery() defaults to limit 50, page 1 and no filters", () => {
  assert.deepEqual(parseListQuery(""), { limit: 50, page: 1, filters: [] });
});

test("parseListQuery() reads every parameter", () => {
  assert.deepEqual(parseListQuery("category=social&start_date=2026-09-01&end_date=2026-09-30&limit=10&page=3"), {
    category: "social",
    startFromMs: Date.UTC(2026, 8, 1),
    endByMs: Date.UTC(2026, 9, 1),
    limit: 10,
    page: 3,
    filters: [["category", "social"], ["start_date", "2026-09-01"], ["end_date", "2026-09-30"]],
  });
});

test("parseListQuery() keeps filters in a fixed order whatever the query order, without paging", () => {
  const parsed = parseListQuery("page=2&end_date=2026-09-30&limit=5&start_date=2026-09-01&category=academic");
  assert.deepEqual(parsed.filters, [["category", "academic"], ["start_date", "2026-09-01"], ["end_date", "2026-09-30"]]);
});

test("parseListQuery() takes each category", () => {
  for (const category of ["academic", "social", "athletic", "cultural"]) assert.equal(parseListQuery(`category=${category}`).category, category);
});

test("parseListQuery() refuses an unknown category, naming the parameter", () => {
  assertBadQuery("category=sports", "category", '"sports"');
  assertBadQuery("category=", "category");
  assertBadQuery("category=Social", "category");
});

test("parseListQuery() start_date is midnight UTC of that day", () => {
  assert.equal(parseListQuery("start_date=2026-09-01").startFromMs, Date.UTC(2026, 8, 1, 0, 0, 0));
});

test("parseListQuery() start_date=1970-01-01 is the instant 0, kept as a filter (not taken for no filter)", () => {
  const parsed = parseListQuery("start_date=1970-01-01&end_date=1970-01-01");
  assert.equal(parsed.startFromMs, 0);
  assert.equal(parsed.endByMs, Date.UTC(1970, 0, 2));
  assert.deepEqual(parsed.filters, [["start_date", "1970-01-01"], ["end_date", "1970-01-01"]]);
});

test("parseListQuery() takes a date before the first event's year, 1970, as a bound like any other", () => {
  const parsed = parseListQuery("start_date=1900-01-01&end_date=1969-12-31");
  assert.equal(parsed.startFromMs, Date.UTC(1900, 0, 1));
  assert.equal(parsed.endByMs, 0);
  assert.equal(parseListQuery("start_date=0000-01-01").startFromMs, -62167219200000);
  assert.equal(parseListQuery("start_date=0099-01-01").startFromMs, -59042995200000);
  // The day's end in the campus zone: 1970-01-01T00:00 in Santiago (UTC-3 then) is 03:00Z, after the first events.
  assert.equal(parseListQuery("end_date=1969-12-31", { timeZone: "America/Santiago" }).endByMs, Date.UTC(1970, 0, 1, 3));
});

test("parseListQuery() end_date is exclusive-of-next-day: endByMs is D+1 at 00:00Z", () => {
  assert.equal(parseListQuery("end_date=2026-09-01").endByMs, Date.UTC(2026, 8, 2));
  assert.equal(parseListQuery("end_date=2026-12-31").endByMs, Date.UTC(2027, 0, 1));
  assert.equal(parseListQuery("end_date=2024-02-28").endByMs, Date.UTC(2024, 1, 29));
  assert.equal(parseListQuery("end_date=9999-12-31").endByMs, Date.UTC(10000, 0, 1));
});

test("parseListQuery() accepts start_date equal to end_date", () => {
  const parsed = parseListQuery("start_date=2026-09-01&end_date=2026-09-01");
  assert.equal(parsed.startFromMs, Date.UTC(2026, 8, 1));
  assert.equal(parsed.endByMs, Date.UTC(2026, 8, 2));
});

test("parseListQuery() refuses start_date after end_date, naming both", () => {
  assertBadQuery("start_date=2026-09-02&end_date=2026-09-01", "start_date", "end_date", "2026-09-02", "2026-09-01");
});

for (const [name, value] of [
  ["start_date", "2026-02-30"],
  ["start_date", "2026-02-29"],
  ["end_date", "2026-04-31"],
  ["end_date", "2026-13-01"],
  ["start_date", "2026-9-1"],
  ["start_date", "2026-09-01T00:00:00Z"],
  ["end_date", "20260901"],
  ["end_date", ""],
  ["start_date", "19690-12-31"],
  ["start_date", "-0001-01-01"],
] as const) {
  test(`parseListQuery() refuses ${name}=${value || "(empty)"}, naming the parameter`, () => {
    assertBadQuery(`${name}=${value}`, `Query parameter ${name}`, `"${value}"`);
  });
}

test("parseListQuery() accepts limit 1 and 100 and page 1 and a large page", () => {
  assert.equal(parseListQuery("limit=1").limit, 1);
  assert.equal(parseListQuery("limit=100").limit, 100);
  assert.equal(parseListQuery("page=1").page, 1);
  assert.equal(parseListQuery("page=1000000").page, 1_000_000);
});

for (const value of ["0", "101", "abc", "1.5", "-1", "", " 5", "5 ", "1e2", "0x10", "+5", "99999999999999999999"]) {
  test(`parseListQuery() refuses limit=${JSON.stringify(value)}, naming limit`, () => {
    assertBadQuery(`limit=${encodeURIComponent(value)}`, "Query parameter limit must be an integer from 1 to 100");
  });
}

for (const value of ["0", "-1", "abc", "1.5", "", "9007199254740992", "99999999999999999", "10000000000000000000000"]) {
  test(`parseListQuery() refuses page=${JSON.stringify(value)}, naming page and its range`, () => {
    assertBadQuery(`page=${encodeURIComponent(value)}`, "Query parameter page must be an integer from 1 to 9007199254740991");
  });
}

test("parseListQuery() takes the largest page a JSON client reads exactly", () => {
  assert.equal(parseListQuery("page=9007199254740991").page, Number.MAX_SAFE_INTEGER);
});

test("parseListQuery() refuses an unknown parameter, naming it", () => {
  assertBadQuery("sort=start_time", "Unknown query parameter", '"sort"');
  assertBadQuery("limit=10&Category=social", '"Category"');
  assertBadQuery("x", '"x"');
});

test("parseListQuery() refuses a repeated parameter, naming it", () => {
  assertBadQuery("limit=10&limit=20", "limit", "more than once");
  assertBadQuery("category=social&category=social", "category", "more than once");
});

test("parseListQuery() decodes percent-escapes and plus signs before checking", () => {
  assert.equal(parseListQuery("limit=%31%30").limit, 10);
  assert.equal(parseListQuery("%6Cimit=7").limit, 7);
  assertBadQuery("category=social+", "category");
});

test("parseListQuery() ignores empty pairs between ampersands", () => {
  assert.equal(parseListQuery("&&limit=5&").limit, 5);
});

test("parseListQuery() clips a very long value in its message", () => {
  try {
    parseListQuery(`category=${"x".repeat(5000)}`);
    assert.fail("expected a throw");
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.ok(error.message.length < 200, error.message);
  }
});

test("parsePaging() takes an integer in range and refuses others, naming the parameter", () => {
  assert.equal(parsePaging("limit", "42"), 42);
  assert.equal(parsePaging("page", "42"), 42);
  assert.throws(() => parsePaging("limit", "101"), /Query parameter limit/);
  assert.throws(() => parsePaging("page", "0"), /Query parameter page/);
});

test("parseListQuery() takes a series_id of any length from 16 letters and digits after ser_", () => {
  const long = `ser_${"a".repeat(80)}`;
  assert.equal(parseListQuery(`series_id=${long}`).seriesId, long);
  assertBadQuery(`series_id=ser_${"a".repeat(15)}`, "series_id");
});
