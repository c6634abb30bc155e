// Tests for validateCreate and validateUpdate: one case per rule, every problem reported in details, each naming its field.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Principal } from "../../src/auth/principal.js";
import type { EventRecord } from "../../src/events/event.js";
import { validateCreate, validateUpdate } from "../../src/events/validate.js";
import { ApiError, type FieldProblem } from "../../src/http/errors.js";

const ORGANIZER: Principal = { keyId: "key_olga", name: "Olga Organizer", email: "Olga@Campus.edu", role: "organizer" };
const ADMIN: Principal = { keyId: "key_adam", name: "Adam Admin", email: "adam@campus.edu", role: "admin" };

/** A good create body; each test spreads it and changes one thing. */
const GOOD: Readonly<Record<string, unknown>> = Object.freeze({
  title: "Robotics night",
  category: "academic",
  location: "Hall B",
  start_time: "2026-09-01T17:00:00Z",
  end_time: "2026-09-01T19:00:00Z",
  capacity: 40,
});

const STORED: Readonly<EventRecord> = Object.freeze({
  id: "evt_0123456789abcdef",
  title: "Robotics night",
  description: "Bring a laptop.",
  category: "academic",
  location: "Hall B",
  start_time: "2026-09-01T17:00:00.000Z",
  end_time: "2026-09-01T19:00:00.000Z",
  capacity: 40,
  registered_count: 5,
  organizer: { name: "Olga Organizer", email: "olga@campus.edu" },
  created_at: "2026-08-01T09:00:00.000Z",
});

function stored(): EventRecord {
  return { ...STORED, organizer: { ...STORED.organizer } };
}

/** Runs `fn`, asserts it threw a 400 `validation_failed` with details, and returns the details. */
function problems(fn: () => unknown): FieldProblem[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
    assert.equal(error.code, "validation_failed");
    assert.equal(error.status, 400);
    assert.ok(Array.isArray(error.details) && error.details.length > 0, "validation_failed always has details");
    for (const detail of error.details) assert.deepEqual(Object.keys(detail).sort(), ["field", "message"]);
    return error.details;
  }
  assert.fail("expected validation_failed, nothing was thrown");
}

/** Asserts exactly one problem, on `field`, whose message contains every part. */
function assertOneProblem(fn: () => unknown, field: string, ...parts: string[]): void {
  const details = problems(fn);
  assert.deepEqual(details.map((d) => d.field), [field], JSON.stringify(details));
  for (const part of parts) assert.ok(details[0]!.message.includes(part), `message ${JSON.stringify(details[0]!.message)} lacks ${JSON.stringify(part)}`);
}

const create = (changes: Record<string, unknown>, principal: Principal = ORGANIZER) => () => validateCreate({ ...GOOD, ...changes }, principal);
const update = (body: Record<string, unknown>, principal: Principal = ORGANIZER) => () => validateUpdate(body, stored(), principal);

test("validateCreate() returns the normalised fields of a good body, description defaulting to empty", () => {
  const input = validateCreate({ ...GOOD, title: "  Robotics night  ", location: "\u00a0Hall B ", start_time: "2026-09-01T19:00:00+02:00", end_time: "2026-09-01t19:00:00.123456z" }, ORGANIZER);
  assert.deepEqual(input, {
    title: "Robotics night",
    description: "",
    category: "academic",
    location: "Hall B",
    start_time: "2026-09-01T17:00:00.000Z",
    end_time: "2026-09-01T19:00:00.123Z",
    capacity: 40,
    status: "published",
  });
});

test("validateCreate() keeps a description as sent, tabs and newlines included", () => {
  assert.equal(validateCreate({ ...GOOD, description: "  Line 1\r\n\tLine 2\n" }, ORGANIZER).description, "  Line 1\r\n\tLine 2\n");
});

for (const field of ["title", "category", "location", "start_time", "end_time", "capacity"]) {
  test(`validateCreate() refuses a body without ${field}, naming it`, () => {
    const body: Record<string, unknown> = { ...GOOD };
    delete body[field];
    assertOneProblem(() => validateCreate(body, ORGANIZER), field, `${field} is required`);
  });
}

test("validateCreate() reports every missing field of an empty body", () => {
  const details = problems(() => validateCreate({}, ORGANIZER));
  assert.deepEqual(details.map((d) => d.field).sort(), ["capacity", "category", "end_time", "location", "start_time", "title"]);
});

const WRONG_TYPES: readonly [string, unknown][] = [
  ["title", 12],
  ["title", null],
  ["title", ["Robotics night"]],
  ["title", { text: "Robotics night" }],
  ["description", null],
  ["description", 0],
  ["category", null],
  ["category", ["academic"]],
  ["location", null],
  ["location", false],
  ["start_time", null],
  ["start_time", 1788282000000],
  ["end_time", ["2026-09-01T19:00:00Z"]],
  ["capacity", "10"],
  ["capacity", null],
  ["capacity", [10]],
];
for (const [field, value] of WRONG_TYPES) {
  test(`validateCreate() refuses ${field} given as ${JSON.stringify(value)}`, () => {
    assertOneProblem(create({ [field]: value }), field, field);
  });
}

test("validateCreate() refuses a title or location that is blank after trimming", () => {
  assertOneProblem(create({ title: "   " }), "title", "title must be 1–200 characters after trimming");
  assertOneProblem(create({ location: "" }), "location", "location must be 1–200 characters after trimming");
});

test("validateCreate() counts code points: 200 emoji pass as a title, 201 fail", () => {
  assert.equal(validateCreate({ ...GOOD, title: "🎉".repeat(200) }, ORGANIZER).title, "🎉".repeat(200));
  assertOneProblem(create({ title: "🎉".repeat(201) }), "title", "got 201");
  assertOneProblem(create({ location: "x".repeat(201) }), "location", "got 201");
});

test("validateCreate() accepts a 5000-character description and refuses 5001", () => {
  assert.equal(validateCreate({ ...GOOD, description: "d".repeat(5000) }, ORGANIZER).description.length, 5000);
  assertOneProblem(create({ description: "d".repeat(5001) }), "description", "0–5000");
});

test("validateCreate() refuses control characters in description other than tab, newline and carriage return", () => {
  assertOneProblem(create({ description: "bell\u0007" }), "description", "control characters");
  assertOneProblem(create({ description: "nul\u0000" }), "description", "control characters");
});

test("validateCreate() refuses control characters in title and location, newline included", () => {
  assertOneProblem(create({ title: "Robotics\nnight" }), "title", "title must not contain control characters");
  assertOneProblem(create({ title: "Robotics\u001b[31m" }), "title", "control characters");
  assertOneProblem(create({ location: "Hall\tB" }), "location", "location must not contain control characters");
});

test("validateCreate() refuses lone surrogates from JSON escapes", () => {
  const body = JSON.parse('{"title":"Robotics \\ud800 night","description":"\\udc00"}') as Record<string, unknown>;
  const details = problems(() => validateCreate({ ...GOOD, ...body }, ORGANIZER));
  assert.deepEqual(details.map((d) => d.field), ["title", "description"]);
  for (const detail of details) assert.match(detail.message, /lone surrogate/);
});

test("validateCreate() takes each category and refuses any other value", () => {
  for (const category of ["academic", "social", "athletic", "cultural"]) assert.equal(validateCreate({ ...GOOD, category }, ORGANIZER).category, category);
  assertOneProblem(create({ category: "sports" }), "category", "category must be one of", '"sports"');
  assertOneProblem(create({ category: "Academic" }), "category", '"Academic"');
});

test("validateCreate() accepts capacity 1 and 100000", () => {
  assert.equal(validateCreate({ ...GOOD, capacity: 1 }, ORGANIZER).capacity, 1);
  assert.equal(validateCreate({ ...GOOD, capacity: 100_000 }, ORGANIZER).capacity, 100_000);
});

for (const capacity of [1.5, 0, -1, 100_001, 2 ** 53 + 2]) {
  test(`validateCreate() refuses capacity ${capacity}`, () => {
    assertOneProblem(create({ capacity }), "capacity", "capacity");
  });
}

test("validateCreate() refuses an end_time equal to start_time, even written with another offset", () => {
  assertOneProblem(create({ end_time: GOOD["start_time"] }), "end_time", "end_time must be after start_time");
  assertOneProblem(create({ end_time: "2026-09-01T19:00:00+02:00" }), "end_time", "end_time must be after start_time");
});

test("validateCreate() refuses an end_time before start_time", () => {
  assertOneProblem(create({ end_time: "2026-09-01T16:59:59.999Z" }), "end_time", "2026-09-01T17:00:00.000Z");
});

test("validateCreate() compares instants, not the strings sent", () => {
  // 18:00+02:00 is 16:00Z, before 17:00Z, though "18" > "17" as text.
  assertOneProblem(create({ end_time: "2026-09-01T18:00:00+02:00" }), "end_time", "end_time must be after start_time");
  // 16:00-02:00 is 18:00Z, after 17:00Z, though "16" < "17" as text.
  assert.equal(validateCreate({ ...GOOD, end_time: "2026-09-01T16:00:00-02:00" }, ORGANIZER).end_time, "2026-09-01T18:00:00.000Z");
});

test("validateCreate() reports a bad start_time once, without a time-order problem on top", () => {
  assertOneProblem(create({ start_time: "2026-09-01T17:00:00" }), "start_time", "start_time must be an RFC 3339 date-time", '"2026-09-01T17:00:00"');
});

test("validateCreate() refuses a time outside 1970–9999 after conversion to UTC", () => {
  assertOneProblem(create({ start_time: "1970-01-01T00:30:00+01:00" }), "start_time", "start_time");
  assertOneProblem(create({ end_time: "9999-12-31T23:00:00-02:00" }), "end_time", "end_time");
  assert.equal(validateCreate({ ...GOOD, end_time: "9999-12-31T23:59:59.999Z" }, ORGANIZER).end_time, "9999-12-31T23:59:59.999Z");
});

test("validateCreate() refuses an unknown field, naming it", () => {
  assertOneProblem(create({ date: "2026-09-01" }), "date", '"date" is not a field of an event');
  assertOneProblem(create({ Title: "x" }), "Title", '"Title"');
});

test("validateCreate() refuses __proto__ and constructor as unknown fields and pollutes no prototype", () => {
  const body = JSON.parse(
    JSON.stringify({ ...GOOD }).replace(/}$/, ',"__proto__":{"polluted":true,"role":"admin"},"constructor":{"prototype":{"polluted":true}}}'),
  ) as Record<string, unknown>;
  assert.ok(Object.hasOwn(body, "__proto__"), "JSON.parse makes __proto__ an own key");
  const details = problems(() => validateCreate(body, ORGANIZER));
  assert.deepEqual(details.map((d) => d.field), ["__proto__", "constructor"]);
  assert.match(details[0]!.message, /"__proto__" is not a field/);
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  assert.equal((Object.prototype as Record<string, unknown>)["polluted"], undefined);
  assert.equal((Object as unknown as Record<string, unknown>)["polluted"], undefined);
});

test("validateCreate() returns a plain object with the ordinary prototype", () => {
  const input = validateCreate(JSON.parse(JSON.stringify(GOOD)) as Record<string, unknown>, ORGANIZER);
  assert.equal(Object.getPrototypeOf(input), Object.prototype);
});

test("validateCreate() accepts registered_count 0, the value the service sets", () => {
  const input = validateCreate({ ...GOOD, registered_count: 0 }, ORGANIZER);
  assert.equal(Object.hasOwn(input, "registered_count"), false);
});

for (const [field, value] of [["id", "evt_0123456789abcdef"], ["registered_count", 3], ["created_at", "2026-08-01T09:00:00.000Z"]] as const) {
  test(`validateCreate() refuses the read-only field ${field}`, () => {
    assertOneProblem(create({ [field]: value }), field, `${field} is set by the service`);
  });
}

test("validateCreate() accepts a non-admin's organizer equal to the key's owner (email in any case) and drops it", () => {
  const input = validateCreate({ ...GOOD, organizer: { name: "Olga Organizer", email: "olga@CAMPUS.EDU" } }, ORGANIZER);
  assert.equal(Object.hasOwn(input, "organizer"), false);
});

test("validateCreate() accepts a non-admin's organizer whose name is the owner's once trimmed, as a stored name is", () => {
  const input = validateCreate({ ...GOOD, organizer: { name: " Olga Organizer  ", email: "Olga@Campus.edu" } }, ORGANIZER);
  assert.equal(Object.hasOwn(input, "organizer"), false);
});

test("validateCreate() refuses a non-admin's organizer other than the key's owner", () => {
  assertOneProblem(create({ organizer: { name: "Someone Else", email: "else@campus.edu" } }), "organizer", "organizer may be set only with an admin key");
  assertOneProblem(create({ organizer: { name: "Olga", email: "olga@campus.edu" } }), "organizer", "admin key");
  // The owner's own name with someone else's e-mail: the name alone must not pass.
  assertOneProblem(create({ organizer: { name: "Olga Organizer", email: "else@campus.edu" } }), "organizer", "admin key");
  assertOneProblem(create({ organizer: { name: "Olga Organizer", email: "olga@campus.edu", role: "admin" } }), "organizer", "admin key");
  assertOneProblem(create({ organizer: null }), "organizer", "admin key");
});

test("validateCreate() accepts an admin's organizer, trimming the name", () => {
  const input = validateCreate({ ...GOOD, organizer: { name: "  Grace Hopper ", email: "grace@campus.edu" } }, ADMIN);
  assert.deepEqual(input.organizer, { name: "Grace Hopper", email: "grace@campus.edu" });
});

test("validateCreate() validates an admin's organizer, naming the sub-field", () => {
  assertOneProblem(create({ organizer: { name: "Grace", email: "grace@campus" } }, ADMIN), "organizer.email", "organizer.email must be an e-mail address");
  assertOneProblem(create({ organizer: { name: "", email: "grace@campus.edu" } }, ADMIN), "organizer.name", "organizer.name");
  assertOneProblem(create({ organizer: { name: "Grace" } }, ADMIN), "organizer.email", "organizer.email");
  assertOneProblem(create({ organizer: { name: "Grace", email: "grace@campus.edu", phone: "1" } }, ADMIN), "organizer.phone", '"phone"');
  assertOneProblem(create({ organizer: "grace@campus.edu" }, ADMIN), "organizer", "organizer must be an object");
});

test("validateCreate() reports both a bad organizer name and a bad organizer email (regression: only the first was reported)", () => {
  const details = problems(create({ organizer: { name: " ", email: "grace" } }, ADMIN));
  assert.deepEqual(details.map((d) => d.field), ["organizer.name", "organizer.email"]);
});

test("validateCreate() reports several problems at once, each naming its field, and counts them in the message", () => {
  let thrown: unknown;
  try {
    validateCreate({ title: "", category: "sports", start_time: "2026-09-01T17:00:00", capacity: 0, extra: 1 }, ORGANIZER);
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown instanceof ApiError);
  const fields = thrown.details!.map((d) => d.field).sort();
  assert.deepEqual(fields, ["capacity", "category", "end_time", "extra", "location", "start_time", "title"]);
  for (const detail of thrown.details!) assert.ok(detail.message.includes(detail.field), `${detail.field}: ${detail.message}`);
  assert.match(thrown.message, /^The event is not valid: .+ \(and 6 more problems in details\)\.$/);
});

test("validateCreate() message has no 'more problems' suffix for a single problem", () => {
  try {
    validateCreate({ ...GOOD, capacity: 0 }, ORGANIZER);
    assert.fail("expected a throw");
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.equal(error.message, "The event is not valid: capacity must be from 1 to 100000, got 0.");
  }
});

test("validateUpdate() treats an empty object as a no-op returning the same record", () => {
  const current = stored();
  const result = validateUpdate({}, current, ORGANIZER);
  assert.deepEqual(result, STORED);
  assert.deepEqual(current, STORED, "the stored record is not mutated");
});

test("validateUpdate() changes only the fields sent, normalised", () => {
  const result = validateUpdate({ title: "  Robotics night II ", start_time: "2026-09-01T18:00:00+02:00" }, stored(), ORGANIZER);
  assert.deepEqual(result, { ...STORED, title: "Robotics night II", start_time: "2026-09-01T16:00:00.000Z" });
});

test("validateUpdate() refuses a new end_time before the old start_time", () => {
  assertOneProblem(update({ end_time: "2026-09-01T16:00:00Z" }), "end_time", "end_time must be after start_time (2026-09-01T17:00:00.000Z)");
});

test("validateUpdate() refuses a new start_time at or after the old end_time", () => {
  assertOneProblem(update({ start_time: "2026-09-01T19:00:00Z" }), "start_time", "start_time must be before end_time");
});

test("validateUpdate() accepts moving both times together", () => {
  const result = validateUpdate({ start_time: "2026-10-01T17:00:00Z", end_time: "2026-10-01T19:00:00Z" }, stored(), ORGANIZER);
  assert.equal(result.start_time, "2026-10-01T17:00:00.000Z");
  assert.equal(result.end_time, "2026-10-01T19:00:00.000Z");
});

test("validateUpdate() refuses null, wrong types and unknown fields as on create", () => {
  assertOneProblem(update({ title: null }), "title", "title");
  assertOneProblem(update({ capacity: "50" }), "capacity", '"50"');
  assertOneProblem(update({ venue: "Hall C" }), "venue", '"venue" is not a field of an event');
});

test("validateUpdate() refuses __proto__ as an unknown field and pollutes no prototype", () => {
  const body = JSON.parse('{"__proto__":{"polluted":true},"title":"New"}') as Record<string, unknown>;
  assertOneProblem(() => validateUpdate(body, stored(), ORGANIZER), "__proto__", '"__proto__"');
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
});

test("validateUpdate() accepts read-only fields equal to their stored values", () => {
  const result = validateUpdate({ id: STORED.id, registered_count: 5, created_at: STORED.created_at, title: "New" }, stored(), ORGANIZER);
  assert.deepEqual(result, { ...STORED, title: "New" });
});

for (const [field, value] of [["id", "evt_ffffffffffffffff"], ["registered_count", 6], ["registered_count", "5"], ["created_at", "2026-08-01T09:00:00Z"]] as const) {
  test(`validateUpdate() refuses ${field} ${JSON.stringify(value)} that differs from the stored value`, () => {
    assertOneProblem(update({ [field]: value }), field, `${field} is read-only`);
  });
}

test("validateUpdate() accepts a non-admin's organizer equal to the stored one and keeps it", () => {
  const result = validateUpdate({ organizer: { name: "Olga Organizer", email: "OLGA@campus.edu" } }, stored(), ORGANIZER);
  assert.deepEqual(result.organizer, STORED.organizer);
});

test("validateUpdate() refuses a non-admin's change of organizer", () => {
  assertOneProblem(update({ organizer: { name: "Mallory", email: "mallory@campus.edu" } }), "organizer", "admin key");
});

test("validateUpdate() lets an admin change the organizer", () => {
  const result = validateUpdate({ organizer: { name: "Grace Hopper", email: "grace@campus.edu" } }, stored(), ADMIN);
  assert.deepEqual(result.organizer, { name: "Grace Hopper", email: "grace@campus.edu" });
  assertOneProblem(update({ organizer: { name: "Grace Hopper", email: "grace" } }, ADMIN), "organizer.email", "organizer.email");
});

test("validateUpdate() leaves capacity below registered_count to the state check (409), not validation", () => {
  assert.equal(validateUpdate({ capacity: 1 }, stored(), ORGANIZER).capacity, 1);
});

test("validateUpdate() reports every problem of a partial body", () => {
  const details = problems(() => validateUpdate({ title: "", capacity: 0, id: "evt_x", nope: true }, stored(), ORGANIZER));
  assert.deepEqual(details.map((d) => d.field).sort(), ["capacity", "id", "nope", "title"]);
});

test("validateUpdate() refuses a non-admin's organizer with the stored name and another e-mail", () => {
  assertOneProblem(update({ organizer: { name: "Olga Organizer", email: "else@campus.edu" } }), "organizer", "admin key");
});
