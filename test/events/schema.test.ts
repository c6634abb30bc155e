// Tests for the event schema as data: fields, their order, required and read-only flags, and their checkers.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Problem } from "../../src/lib/checks.js";
import { EVENT_FIELDS } from "../../src/events/schema.js";

test("EVENT_FIELDS lists every field of an event in the response order", () => {
  assert.deepEqual(Object.keys(EVENT_FIELDS), [
    "id", "title", "description", "category", "location", "start_time", "end_time", "capacity", "registered_count", "organizer", "created_at", "series_id",
    "status", "review_note", "cancellation_reason",
  ]);
});

test("EVENT_FIELDS marks exactly the POST-required fields as required", () => {
  const required = Object.entries(EVENT_FIELDS).filter(([, rule]) => rule.required).map(([field]) => field);
  assert.deepEqual(required, ["title", "category", "location", "start_time", "end_time", "capacity"]);
});

test("EVENT_FIELDS marks id, registered_count, created_at, series_id and review_note read-only and organizer admin-only", () => {
  const access = Object.fromEntries(Object.entries(EVENT_FIELDS).map(([field, rule]) => [field, rule.access]));
  assert.deepEqual(access, {
    id: "read-only", title: "writable", description: "writable", category: "writable", location: "writable",
    start_time: "writable", end_time: "writable", capacity: "writable", registered_count: "read-only",
    organizer: "admin-only", created_at: "read-only", series_id: "read-only",
    status: "writable", review_note: "read-only", cancellation_reason: "writable",
  });
});

test("EVENT_FIELDS gives every writable or admin-only field a checker", () => {
  for (const [field, rule] of Object.entries(EVENT_FIELDS)) {
    if (rule.access !== "read-only") assert.equal(typeof rule.check, "function", field);
  }
});

test("EVENT_FIELDS is frozen", () => {
  assert.equal(Object.isFrozen(EVENT_FIELDS), true);
});

test("EVENT_FIELDS.category's checker takes exactly the four categories", () => {
  const check = EVENT_FIELDS["category"]!.check!;
  for (const category of ["academic", "social", "athletic", "cultural"]) assert.equal(check(category, "category"), category);
  assert.ok(check("sports", "category") instanceof Problem);
  assert.deepEqual(EVENT_FIELDS["category"]!.schema["enum"], ["academic", "social", "athletic", "cultural"]);
});

test("EVENT_FIELDS.capacity's checker takes 1 to 100000", () => {
  const check = EVENT_FIELDS["capacity"]!.check!;
  assert.equal(check(1, "capacity"), 1);
  assert.equal(check(100_000, "capacity"), 100_000);
  assert.ok(check(0, "capacity") instanceof Problem);
  assert.ok(check(100_001, "capacity") instanceof Problem);
});

test("EVENT_FIELDS' title and location checkers trim and cap at 200 code points", () => {
  for (const field of ["title", "location"]) {
    const check = EVENT_FIELDS[field]!.check!;
    assert.equal(check(" x ", field), "x");
    assert.ok(check("x".repeat(201), field) instanceof Problem, field);
    assert.ok(check("\t", field) instanceof Problem, field);
  }
});

test("EVENT_FIELDS' description checker allows newlines; the title checker does not", () => {
  assert.equal(EVENT_FIELDS["description"]!.check!("a\nb", "description"), "a\nb");
  assert.ok(EVENT_FIELDS["title"]!.check!("a\nb", "title") instanceof Problem);
});
