// Tests for the small named checkers: each returns the normalised value or a Problem naming its field.

import assert from "node:assert/strict";
import { test } from "node:test";
import { codePoints, email, integer, oneOf, person, Problem, quote, text } from "../../src/lib/checks.js";

/** Asserts a checker refused the value with a Problem on `field` whose message contains every part. */
function assertProblem(result: unknown, field: string, ...parts: string[]): void {
  assert.ok(result instanceof Problem, `expected a Problem, got ${JSON.stringify(result)}`);
  assert.equal(result.field, field);
  for (const part of parts) assert.ok(result.message.includes(part), `message ${JSON.stringify(result.message)} lacks ${JSON.stringify(part)}`);
}

const title = text({ min: 1, max: 200, trim: true });
const description = text({ min: 0, max: 5000, multiline: true });

test("codePoints() counts an astral emoji as one and a lone surrogate as one", () => {
  assert.equal(codePoints(""), 0);
  assert.equal(codePoints("abc"), 3);
  assert.equal(codePoints("😀"), 1);
  assert.equal(codePoints("a😀b"), 3);
  assert.equal(codePoints("\ud83d"), 1);
  assert.equal(codePoints("\ude00\ud83d"), 2);
});

test("quote() JSON-quotes a value and shortens a long one to 60 characters", () => {
  assert.equal(quote("abc"), '"abc"');
  assert.equal(quote(12), "12");
  assert.equal(quote(null), "null");
  assert.equal(quote(undefined), "nothing");
  assert.equal(quote({ a: [1] }), "an object", "objects are named, never stringified (deep nesting could exhaust the stack)");
  const long = quote("x".repeat(1000));
  assert.equal(long.length, 60);
  assert.ok(long.endsWith("..."));
});

test("text() trims when asked and returns the trimmed string", () => {
  assert.equal(title("  Robotics night  ", "title"), "Robotics night");
  assert.equal(description("  kept as sent  ", "description"), "  kept as sent  ");
});

test("text() counts code points after trimming: 200 emoji pass, 201 fail", () => {
  assert.equal(title("😀".repeat(200), "title"), "😀".repeat(200));
  assertProblem(title("😀".repeat(201), "title"), "title", "title", "1–200", "201");
  assert.equal(title(`  ${"a".repeat(200)}  `, "title"), "a".repeat(200));
});

test("text() refuses a string that is empty after trimming", () => {
  assertProblem(title("   ", "title"), "title", "title", "after trimming", "got 0");
  assertProblem(title("", "title"), "title", "title");
});

test("text() refuses a non-string, naming the field and the type", () => {
  assertProblem(title(42, "title"), "title", "title must be a string", "a number");
  assertProblem(title(null, "title"), "title", "null");
  assertProblem(title(["a"], "title"), "title", "an array");
  assertProblem(title({}, "title"), "title", "an object");
  assertProblem(title(true, "title"), "title", "a boolean");
});

test("text() refuses control characters in a single-line field, tab and newline included", () => {
  for (const bad of ["a\nb", "a\tb", "a\rb", "a\u0000b", "a\u001bb", "a\u007fb", "a\u0085b"]) {
    assertProblem(title(bad, "title"), "title", "title must not contain control characters");
  }
});

test("text() with multiline allows tab, newline and carriage return but no other control", () => {
  assert.equal(description("line 1\r\n\tline 2\n", "description"), "line 1\r\n\tline 2\n");
  for (const bad of ["a\u0000b", "a\u0007b", "a\u000bb", "a\u000cb", "a\u001fb", "a\u007fb", "a\u009fb"]) {
    assertProblem(description(bad, "description"), "description", "description must not contain control characters", "tab, newline and carriage return");
  }
});

test("text() refuses lone surrogates and accepts a proper pair", () => {
  assertProblem(title("a\ud83db", "title"), "title", "lone surrogate");
  assertProblem(title("a\ude00", "title"), "title", "lone surrogate");
  assertProblem(title("\ude00\ud83d", "title"), "title", "lone surrogate");
  assert.equal(title("a\ud83d\ude00", "title"), "a😀");
});

test("text() allows an empty description and refuses 5001 code points", () => {
  assert.equal(description("", "description"), "");
  assert.equal(description("é".repeat(5000), "description"), "é".repeat(5000));
  assertProblem(description("a".repeat(5001), "description"), "description", "0–5000", "5001");
});

test("oneOf() accepts a listed value only, exactly", () => {
  const category = oneOf(["academic", "social"] as const);
  assert.equal(category("social", "category"), "social");
  assertProblem(category("Social", "category"), "category", "category must be one of", '"academic"', '"Social"');
  assertProblem(category("", "category"), "category", "category");
  assertProblem(category(null, "category"), "category", "null");
  assertProblem(category(["social"], "category"), "category", "category");
});

test("integer() accepts integers inside the range, bounds included", () => {
  const capacity = integer(1, 100_000);
  assert.equal(capacity(1, "capacity"), 1);
  assert.equal(capacity(100_000, "capacity"), 100_000);
  assert.equal(capacity(1.0, "capacity"), 1);
});

test("integer() refuses fractions, out-of-range values, numeric strings and other types", () => {
  const capacity = integer(1, 100_000);
  assertProblem(capacity(1.5, "capacity"), "capacity", "capacity must be an integer from 1 to 100000", "1.5");
  assertProblem(capacity(0, "capacity"), "capacity", "capacity must be from 1 to 100000", "got 0");
  assertProblem(capacity(-1, "capacity"), "capacity", "got -1");
  assertProblem(capacity(100_001, "capacity"), "capacity", "100001");
  assertProblem(capacity(2 ** 53 + 2, "capacity"), "capacity", "capacity");
  assertProblem(capacity("10", "capacity"), "capacity", '"10"');
  assertProblem(capacity(null, "capacity"), "capacity", "null");
  assertProblem(capacity([10], "capacity"), "capacity", "capacity");
  assertProblem(capacity(Number.NaN, "capacity"), "capacity", "capacity");
  assertProblem(capacity(Number.POSITIVE_INFINITY, "capacity"), "capacity", "capacity");
});

const GOOD_EMAILS = ["ada@campus.edu", "a@b.c", "jürgen@universität.de", "Ada.Lovelace+events@cs.campus.edu", `${"a".repeat(244)}@campus.io`];
for (const address of GOOD_EMAILS) {
  test(`email() accepts ${JSON.stringify(address.length > 40 ? `${address.slice(0, 20)}...` : address)}`, () => {
    assert.equal(email(address, "organizer.email"), address);
  });
}

const BAD_EMAILS: readonly [unknown, string][] = [
  ["ada", "no @"],
  ["ada@@campus.edu", "two @ together"],
  ["a@b@campus.edu", "two @"],
  ["@campus.edu", "an empty local part"],
  ["ada@campus", "a domain without a dot"],
  ["ada@.campus.edu", "a domain starting with a dot"],
  ["ada@campus.", "a domain ending with a dot"],
  ["ada@campus..edu", "an empty domain label"],
  ["ada lovelace@campus.edu", "a space in the local part"],
  ["ada@campus .edu", "a space in the domain"],
  [" ada@campus.edu", "a leading space"],
  ["ada@campus.edu\n", "a trailing newline"],
  ["ada@campus.edu x", "more text after a whole address (the end anchor)"],
  ["x ada@campus.edu", "text before a whole address (the start anchor)"],
  ["ada\u0000@campus.edu", "a control character"],
  ["a\u200bda@campus.edu", "a zero-width space, which would make a look-alike of another address"],
  ["ada@campus\u00ad.edu", "a soft hyphen in the domain"],
  ["ada\u200d@campus.edu", "a zero-width joiner (ada@campus.edu would register twice)"],
  ["a\u200cda@campus.edu", "a zero-width non-joiner"],
  ["ada\ufeff@campus.edu", "a byte-order mark"],
  ["\u202eada@campus.edu", "a direction mark"],
  ["ada\u00a0@campus.edu", "a no-break space"],
  [`${"a".repeat(245)}@campus.io`, "255 characters"],
  ["", "the empty string"],
  [null, "null"],
  [42, "a number"],
];
for (const [value, why] of BAD_EMAILS) {
  test(`email() refuses ${why}`, () => {
    assertProblem(email(value, "organizer.email"), "organizer.email", "organizer.email must be an e-mail address");
  });
}

test("person() accepts {name, email} and trims the name", () => {
  assert.deepEqual(person({ name: "  Ada  ", email: "ada@campus.edu" }, "organizer"), { name: "Ada", email: "ada@campus.edu" });
});

test("person() refuses a non-object, an extra field, a bad name and a bad email, naming the sub-field", () => {
  assertProblem(person("Ada", "organizer"), "organizer", "organizer must be an object", "a string");
  assertProblem(person(null, "organizer"), "organizer", "null");
  assertProblem(person([], "organizer"), "organizer", "an array");
  assertProblem(person({ name: "Ada", email: "ada@campus.edu", role: "admin" }, "organizer"), "organizer.role", '"role"');
  assertProblem(person({ name: " ", email: "ada@campus.edu" }, "organizer"), "organizer.name", "organizer.name");
  assertProblem(person({ email: "ada@campus.edu" }, "organizer"), "organizer.name", "organizer.name");
  assertProblem(person({ name: "Ada", email: "ada" }, "organizer"), "organizer.email", "organizer.email");
  assertProblem(person({ name: "Ada" }, "organizer"), "organizer.email", "organizer.email");
});

test("email() takes exactly 254 characters and refuses 255", () => {
  const at254 = `${"a".repeat(244)}@campus.io`;
  assert.equal(at254.length, 254);
  assert.equal(email(at254, "email"), at254);
  assertProblem(email(`a${at254}`, "email"), "email", "at most 254 characters");
});

test("person() reports every problem, not just the first (regression: it stopped at the first)", () => {
  const result = person({ name: "", email: "nope", phone: "1", role: "x" }, "organizer");
  assert.ok(result instanceof Problem);
  assert.deepEqual([result.field, ...result.also.map((p) => p.field)], ["organizer.phone", "organizer.role", "organizer.name", "organizer.email"]);
});

test("person() reports a missing name as got nothing (regression: it said \"got a undefined\")", () => {
  assertProblem(person({ email: "ada@campus.edu" }, "organizer"), "organizer.name", "got nothing");
  const result = person({ email: "ada@campus.edu" }, "organizer");
  assert.ok(result instanceof Problem && !result.message.includes("a undefined"), JSON.stringify(result));
});

test("email() counts the 254-character limit in code points (regression: it counted UTF-16 units)", () => {
  const local = "😀".repeat(244);
  const address = `${local}@campus.io`;
  assert.equal([...address].length, 254);
  assert.equal(email(address, "email"), address);
  assertProblem(email(`😀${address}`, "email"), "email", "at most 254 characters");
});
