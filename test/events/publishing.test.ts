// Tests for the rules of API.md §14: the status a create gets, every move a PUT may or may not make, and who sees a draft.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../../src/http/errors.js";
import type { Principal, Role } from "../../src/auth/principal.js";
import { EVENT_STATUSES, type EventStatus } from "../../src/events/event.js";
import { createdStatus, maySee, movedStatus, type ApprovalMode } from "../../src/events/publishing.js";

function principal(role: Role, email = "olga@campus.edu"): Principal {
  return { keyId: `key_${role}`, name: "Olga", email, role };
}

const ORGANIZER = principal("organizer");
const ADMIN = principal("admin", "ada@campus.edu");

test("createdStatus() gives published or draft with approval off, and refuses pending and cancelled naming status", () => {
  assert.equal(createdStatus(undefined, ORGANIZER, "off", "event"), "published");
  assert.equal(createdStatus("published", ORGANIZER, "off", "event"), "published");
  assert.equal(createdStatus("draft", ORGANIZER, "off", "event"), "draft");
  for (const status of ["pending", "cancelled"] as const) {
    const problem = createdStatus(status, ORGANIZER, "off", "event");
    assert.equal(typeof problem, "object");
    assert.equal((problem as { field: string }).field, "status");
    assert.match((problem as { message: string }).message, new RegExp(status));
  }
});

test("createdStatus() under approval: an organizer's published or pending is pending, an admin's published is published, draft stays draft", () => {
  assert.equal(createdStatus(undefined, ORGANIZER, "required", "event"), "pending");
  assert.equal(createdStatus("published", ORGANIZER, "required", "event"), "pending");
  assert.equal(createdStatus("pending", ORGANIZER, "required", "event"), "pending");
  assert.equal(createdStatus("draft", ORGANIZER, "required", "event"), "draft");
  assert.equal(createdStatus(undefined, ADMIN, "required", "event"), "published");
  assert.equal(createdStatus("pending", ADMIN, "required", "event"), "pending");
  assert.equal((createdStatus("cancelled", ADMIN, "required", "series") as { message: string }).message.includes("series"), true);
});

/** Every allowed move, as [approval, role, from, asked, result]; every other (from, asked) pair is a 409. */
const ALLOWED: readonly [ApprovalMode, "organizer" | "admin", EventStatus, EventStatus, EventStatus][] = [
  ["off", "organizer", "draft", "published", "published"],
  ["off", "organizer", "pending", "draft", "draft"],
  ["off", "organizer", "published", "cancelled", "cancelled"],
  ["off", "organizer", "cancelled", "published", "published"],
  ["off", "admin", "draft", "published", "published"],
  ["off", "admin", "pending", "draft", "draft"],
  ["off", "admin", "published", "cancelled", "cancelled"],
  ["off", "admin", "cancelled", "published", "published"],
  ["required", "organizer", "draft", "published", "pending"],
  ["required", "organizer", "draft", "pending", "pending"],
  ["required", "organizer", "pending", "draft", "draft"],
  ["required", "organizer", "published", "cancelled", "cancelled"],
  ["required", "organizer", "cancelled", "published", "pending"],
  ["required", "organizer", "cancelled", "pending", "pending"],
  ["required", "admin", "draft", "published", "published"],
  ["required", "admin", "draft", "pending", "pending"],
  ["required", "admin", "pending", "draft", "draft"],
  ["required", "admin", "published", "cancelled", "cancelled"],
  ["required", "admin", "cancelled", "published", "published"],
  ["required", "admin", "cancelled", "pending", "pending"],
];

for (const approval of ["off", "required"] as const) {
  for (const role of ["organizer", "admin"] as const) {
    test(`movedStatus() with approval ${approval}, as ${role}: exactly the moves of §14, every other a 409 naming both statuses; the same status is no move`, () => {
      const who = role === "admin" ? ADMIN : ORGANIZER;
      for (const from of EVENT_STATUSES) {
        for (const asked of EVENT_STATUSES) {
          const allowed = ALLOWED.find(([a, r, f, s]) => a === approval && r === role && f === from && s === asked);
          if (from === asked) {
            assert.equal(movedStatus(from, asked, who, approval, "event \"x\""), from, `${from} → ${asked}`);
          } else if (allowed !== undefined) {
            assert.equal(movedStatus(from, asked, who, approval, "event \"x\""), allowed[4], `${from} → ${asked}`);
          } else {
            assert.throws(() => movedStatus(from, asked, who, approval, "event \"x\""), (error: unknown) => {
              assert.ok(error instanceof ApiError);
              assert.equal(error.status, 409);
              assert.ok(error.message.includes(`"${from}"`) && error.message.includes(`"${asked}"`), error.message);
              assert.ok(error.message.includes("event \"x\""), error.message);
              return true;
            }, `${from} → ${asked} is refused`);
          }
        }
      }
    });
  }
}

test("maySee(): a public event by anyone; a draft or pending one only by its organizer's key (organizer role) and admins", () => {
  for (const status of [undefined, "published", "cancelled"] as const) {
    for (const role of ["reader", "feed", "organizer", "admin"] as const) assert.equal(maySee(principal(role, "x@campus.edu"), status, "olga@campus.edu"), true);
  }
  for (const status of ["draft", "pending"] as const) {
    assert.equal(maySee(principal("organizer", "Olga@Campus.edu"), status, "olga@campus.edu"), true, "the organizer, whatever the case of the e-mail");
    assert.equal(maySee(principal("organizer", "oscar@campus.edu"), status, "olga@campus.edu"), false, "another organizer");
    assert.equal(maySee(principal("admin", "ada@campus.edu"), status, "olga@campus.edu"), true, "an admin");
    assert.equal(maySee(principal("reader", "olga@campus.edu"), status, "olga@campus.edu"), false, "a reader, even with the organizer's e-mail");
    assert.equal(maySee(principal("feed", "olga@campus.edu"), status, "olga@campus.edu"), false, "a feed key");
  }
});
