// Tests for the role table of API.md §2: reader, organizer and admin × read, create, update, delete × own and other events.

import assert from "node:assert/strict";
import { test } from "node:test";
import { type Action, canEver, forbiddenMessage, mayActOn, type Principal, type Role, ROLE_TABLE, ROLES } from "../../src/auth/principal.js";

const OWN = "olga@campus.edu";
const OTHER = "someone@campus.edu";

function principal(role: Role): Principal {
  return { keyId: `key_${role}`, name: "Olga", email: "Olga@Campus.EDU", role };
}

/** The expected answer of mayActOn, row by row: [role, action, own event?, allowed?]. */
const TABLE: readonly [Role, Action, "own" | "other", boolean][] = [
  ["reader", "read", "own", true],
  ["reader", "read", "other", true],
  ["reader", "create", "own", false],
  ["reader", "create", "other", false],
  ["reader", "update", "own", false],
  ["reader", "update", "other", false],
  ["reader", "delete", "own", false],
  ["reader", "delete", "other", false],
  ["organizer", "read", "own", true],
  ["organizer", "read", "other", true],
  ["organizer", "create", "own", true],
  ["organizer", "create", "other", true],
  ["organizer", "update", "own", true],
  ["organizer", "update", "other", false],
  ["organizer", "delete", "own", true],
  ["organizer", "delete", "other", false],
  ["admin", "read", "own", true],
  ["admin", "read", "other", true],
  ["admin", "create", "own", true],
  ["admin", "create", "other", true],
  ["admin", "update", "own", true],
  ["admin", "update", "other", true],
  ["admin", "delete", "own", true],
  ["admin", "delete", "other", true],
];

for (const [role, action, whose, allowed] of TABLE) {
  test(`mayActOn() ${allowed ? "lets" : "refuses"} a ${role} ${action} ${whose === "own" ? "its own" : "another's"} event`, () => {
    assert.equal(mayActOn(principal(role), action, whose === "own" ? OWN : OTHER), allowed);
  });
}

const EVER: readonly [Role, Action, boolean][] = [
  ["reader", "read", true],
  ["reader", "create", false],
  ["reader", "update", false],
  ["reader", "delete", false],
  ["organizer", "read", true],
  ["organizer", "create", true],
  ["organizer", "update", true],
  ["organizer", "delete", true],
  ["admin", "read", true],
  ["admin", "create", true],
  ["admin", "update", true],
  ["admin", "delete", true],
];

for (const [role, action, expected] of EVER) {
  test(`canEver() says a ${role} ${expected ? "can" : "can never"} ${action}`, () => {
    assert.equal(canEver(role, action), expected);
  });
}

test("ROLES lists the four roles of API.md §2", () => {
  assert.deepEqual([...ROLES].sort(), ["admin", "feed", "organizer", "reader"]);
  assert.deepEqual(Object.keys(ROLE_TABLE).sort(), ["admin", "feed", "organizer", "reader"]);
});

test("canEver() lets every role subscribe to the calendar feed, and a feed key do nothing else", () => {
  for (const role of ROLES) assert.equal(canEver(role, "subscribe"), true, role);
  for (const action of ["read", "create", "update", "delete"] as const) assert.equal(canEver("feed", action), false, action);
  assert.deepEqual(Object.keys(ROLE_TABLE.feed), ["subscribe"]);
});

test("mayActOn() compares the key's e-mail without regard to case", () => {
  assert.equal(mayActOn({ ...principal("organizer"), email: "OLGA@campus.edu" }, "update", "olga@campus.edu"), true);
});

test("mayActOn() does not treat an e-mail that merely contains the key's as its own", () => {
  assert.equal(mayActOn(principal("organizer"), "delete", "xolga@campus.edu"), false);
  assert.equal(mayActOn(principal("organizer"), "delete", "olga@campus.edu.evil"), false);
});

test("ROLE_TABLE is frozen", () => {
  assert.equal(Object.isFrozen(ROLE_TABLE), true);
});

test("forbiddenMessage() takes the right article and names what the route acts on (events, series)", () => {
  assert.equal(forbiddenMessage("reader", "create", "createEvent"), "A reader key may not create events.");
  assert.equal(forbiddenMessage("organizer", "webhooks", "createWebhook"), "An organizer key may not manage webhooks.");
  assert.equal(forbiddenMessage("admin", "webhooks", "listWebhooks"), "An admin key may not manage webhooks.");
  assert.equal(forbiddenMessage("reader", "create", "createSeries"), "A reader key may not create series.");
  assert.equal(forbiddenMessage("feed", "read", "listSeries"), "A feed key may not read series.");
  assert.equal(forbiddenMessage("reader", "update", "updateSeries"), "A reader key may not update series.");
  assert.equal(forbiddenMessage("feed", "register", "createRegistration"), "A feed key may not register attendees.");
  assert.equal(forbiddenMessage("feed", "register", "getRegistration", "read registrations"), "A feed key may not read registrations.");
});
