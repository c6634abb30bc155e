// Tests for the route table: matches and params, 404, 405 with Allow (HEAD and OPTIONS listed), HEAD falling back to GET.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Router } from "../../src/http/router.js";

function eventsRouter(): Router<string> {
  return new Router<string>()
    .add("GET", "/events", "list")
    .add("POST", "/events", "create")
    .add("GET", "/events/:id", "read")
    .add("PUT", "/events/:id", "update")
    .add("DELETE", "/events/:id", "delete")
    .add("POST", "/events/:id/registrations", "register")
    .add("DELETE", "/events/:id/registrations/:reg_id", "unregister")
    .add("POST", "/rpc", "rpc")
    .add("GET", "/health", "health");
}

test("match() finds a static route with empty params", () => {
  assert.deepEqual(eventsRouter().match("GET", "/events"), { kind: "found", route: "list", params: {}, allowed: ["GET", "HEAD", "POST", "OPTIONS"] });
  assert.deepEqual(eventsRouter().match("POST", "/events"), { kind: "found", route: "create", params: {}, allowed: ["GET", "HEAD", "POST", "OPTIONS"] });
});

test("match() captures a path parameter", () => {
  assert.deepEqual(eventsRouter().match("PUT", "/events/evt_123"), {
    kind: "found",
    route: "update",
    params: { id: "evt_123" },
    allowed: ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"],
  });
});

test("match() captures several parameters", () => {
  const match = eventsRouter().match("DELETE", "/events/evt_1/registrations/reg_2");
  assert.equal(match.kind, "found");
  assert.ok(match.kind === "found");
  assert.equal(match.route, "unregister");
  assert.deepEqual(match.params, { id: "evt_1", reg_id: "reg_2" });
});

test("match() prefers the method's own route on a shared path", () => {
  const router = eventsRouter();
  for (const [method, route] of [["GET", "read"], ["PUT", "update"], ["DELETE", "delete"]] as const) {
    const match = router.match(method, "/events/abc");
    assert.ok(match.kind === "found");
    assert.equal(match.route, route);
  }
});

test("match() answers HEAD with the GET route", () => {
  const match = eventsRouter().match("HEAD", "/events/evt_1");
  assert.ok(match.kind === "found");
  assert.equal(match.route, "read");
  assert.deepEqual(match.params, { id: "evt_1" });
});

test("match() gives 405 for HEAD on a path without GET, listing OPTIONS but not HEAD", () => {
  assert.deepEqual(eventsRouter().match("HEAD", "/rpc"), { kind: "method_not_allowed", allowed: ["POST", "OPTIONS"] });
});

test("match() gives method_not_allowed with allowed listing HEAD and OPTIONS for a known path", () => {
  assert.deepEqual(eventsRouter().match("PATCH", "/events/evt_1"), { kind: "method_not_allowed", allowed: ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"] });
  assert.deepEqual(eventsRouter().match("DELETE", "/events"), { kind: "method_not_allowed", allowed: ["GET", "HEAD", "POST", "OPTIONS"] });
  assert.deepEqual(eventsRouter().match("PUT", "/health"), { kind: "method_not_allowed", allowed: ["GET", "HEAD", "OPTIONS"] });
});

test("match() reports OPTIONS as method_not_allowed when no route claims it, with the allowed list", () => {
  assert.deepEqual(eventsRouter().match("OPTIONS", "/events"), { kind: "method_not_allowed", allowed: ["GET", "HEAD", "POST", "OPTIONS"] });
});

test("match() is case-sensitive about methods", () => {
  assert.equal(eventsRouter().match("get", "/events").kind, "method_not_allowed");
});

for (const path of ["/", "/nope", "/event", "/Events", "/events/", "/events/evt_1/", "/events/evt_1/extra", "/health/", "/events/evt_1/registrations/reg_1/x", "", "/events?x=1"]) {
  test(`match() gives not_found for ${JSON.stringify(path)}`, () => {
    assert.deepEqual(eventsRouter().match("GET", path), { kind: "not_found" });
  });
}

test("match() does not match an empty parameter", () => {
  assert.deepEqual(eventsRouter().match("GET", "/events//registrations"), { kind: "not_found" });
  assert.deepEqual(eventsRouter().match("POST", "/events//registrations"), { kind: "not_found" });
  assert.deepEqual(eventsRouter().match("DELETE", "/events/evt_1/registrations/"), { kind: "not_found" });
});

test("match() gives not_found on an empty table", () => {
  assert.deepEqual(new Router<string>().match("GET", "/events"), { kind: "not_found" });
});

test("match() params of one request do not leak into another", () => {
  const router = eventsRouter();
  const first = router.match("GET", "/events/one");
  const second = router.match("GET", "/events/two");
  assert.ok(first.kind === "found" && second.kind === "found");
  assert.deepEqual(first.params, { id: "one" });
  assert.deepEqual(second.params, { id: "two" });
});

test("add() replaces a route registered twice for the same method and pattern", () => {
  const router = new Router<string>().add("GET", "/a", "first").add("GET", "/a", "second");
  const match = router.match("GET", "/a");
  assert.ok(match.kind === "found");
  assert.equal(match.route, "second");
  assert.deepEqual(router.routes(), [{ pattern: "/a", methods: ["GET"] }]);
});

test("routes() lists every pattern with its methods in the order added", () => {
  assert.deepEqual(eventsRouter().routes(), [
    { pattern: "/events", methods: ["GET", "POST"] },
    { pattern: "/events/:id", methods: ["GET", "PUT", "DELETE"] },
    { pattern: "/events/:id/registrations", methods: ["POST"] },
    { pattern: "/events/:id/registrations/:reg_id", methods: ["DELETE"] },
    { pattern: "/rpc", methods: ["POST"] },
    { pattern: "/health", methods: ["GET"] },
  ]);
});

test("match() decodes a percent-encoded parameter and keeps one that is not valid percent-encoding as sent", () => {
  const router = eventsRouter();
  const decoded = router.match("GET", "/events/%65vt_1");
  assert.ok(decoded.kind === "found");
  assert.deepEqual(decoded.params, { id: "evt_1" });
  const broken = router.match("GET", "/events/evt_%zz");
  assert.ok(broken.kind === "found");
  assert.deepEqual(broken.params, { id: "evt_%zz" });
});
