// Tests for openApiDocument: the served document covers the real route table and agrees with the validators, serializers and error catalog.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { createApp, type App } from "../../src/app.js";
import type { Principal } from "../../src/auth/principal.js";
import { CATEGORIES, createdJson, viewJson, type EventRecord } from "../../src/events/event.js";
import { eventRoutes } from "../../src/events/handlers.js";
import { EVENT_FIELDS } from "../../src/events/schema.js";
import { validateCreate, validateUpdate } from "../../src/events/validate.js";
import { ERROR_CATALOG } from "../../src/http/errors.js";
import { parseListQuery } from "../../src/events/list-query.js";
import { openApiDocument } from "../../src/openapi/document.js";
import { OPERATIONS } from "../../src/openapi/operations.js";
import { MemoryStore } from "../../src/store/memory/memory-store.js";
import { call, tempDir } from "../helpers/harness.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is arbitrary JSON
type Json = any;

/** The contract's routes, API.md §5, §8, §9.1, §11, §13 and §14, and GET /me (§2). */
const CONTRACT_ROUTES = [
  "GET /events", "POST /events", "GET /events/{id}", "PUT /events/{id}", "DELETE /events/{id}", "GET /events.ics", "GET /changes", "GET /health", "GET /openapi.json",
  "POST /events/{id}/registrations", "GET /events/{id}/registrations", "GET /events/{id}/registrations/{reg_id}",
  "DELETE /events/{id}/registrations/{reg_id}", "POST /events/{id}/registrations/{reg_id}/check-in", "GET /me",
  "GET /series", "POST /series", "GET /series/{id}", "PUT /series/{id}", "DELETE /series/{id}",
  "POST /webhooks", "GET /webhooks", "GET /webhooks/{id}", "PUT /webhooks/{id}", "DELETE /webhooks/{id}", "GET /webhooks/{id}/deliveries",
  "POST /events/{id}/approve", "POST /events/{id}/reject", "POST /series/{id}/approve", "POST /series/{id}/reject",
];
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

const ORGANIZER: Principal = { keyId: "key_o", name: "Olivia Organizer", email: "olivia@campus.edu", role: "organizer" };
const ADMIN: Principal = { keyId: "key_a", name: "Ada Admin", email: "ada@campus.edu", role: "admin" };

let app: App;
let removeDir: () => void;
let doc: Json;
let served: { status: number; headers: Record<string, string>; text: string | null };

before(async () => {
  const { dir, remove } = tempDir();
  removeDir = remove;
  app = await createApp({ store: "memory", dataDir: dir, bootstrapAdminKey: false, keyPollMs: 0, rateLimit: 7, rateWindow: 60 });
  const response = await call(app, "GET", "/openapi.json");
  served = response;
  doc = JSON.parse(response.text!);
});

after(async () => {
  await app.close();
  removeDir();
});

/** Every documented operation as `METHOD /path` with its Operation Object, HEAD, OPTIONS and refused methods included. */
function allOperations(): [string, Json][] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.keys(item).filter((key) => HTTP_METHODS.includes(key)).map((method): [string, Json] => [`${method.toUpperCase()} ${path}`, item[method]]));
}

/** The operations the route table serves: without HEAD, OPTIONS and the documented 405s. */
function operations(): [string, Json][] {
  return allOperations().filter(([key, operation]) => !/^(HEAD|OPTIONS) /.test(key) && !operation.operationId.endsWith("NotAllowed"));
}

/** Follows a local `$ref` (JSON Pointer); undefined when it does not resolve. */
function resolve(ref: string): Json {
  if (!ref.startsWith("#/")) return undefined;
  let node: Json = doc;
  for (const token of ref.slice(2).split("/").map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"))) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, token)) return undefined;
    node = node[token];
  }
  return node;
}

function deref(node: Json): Json {
  return typeof node?.$ref === "string" ? resolve(node.$ref) : node;
}

function concrete(path: string): string {
  return path.replace(/\{[^}]+\}/g, "evt_0000000000000000");
}

test("GET /openapi.json answers 200 without a key with valid JSON of OpenAPI 3.1.0", () => {
  assert.equal(served.status, 200);
  assert.match(served.headers["Content-Type"]!, /^application\/json/);
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(typeof doc.info.title, "string");
  assert.equal(typeof doc.info.version, "string");
});

test("openApiDocument documents exactly the contract's routes (API.md §5) from the real route table", () => {
  assert.deepEqual(operations().map(([key]) => key).sort(), [...CONTRACT_ROUTES].sort());
});

test("openApiDocument documents every method the real router allows on each path, and no other", async () => {
  for (const path of Object.keys(doc.paths)) {
    const response = await call(app, "OPTIONS", concrete(path));
    assert.equal(response.status, 204, path);
    const served = response.headers["Allow"]!.split(", ").filter((method) => method !== "HEAD" && method !== "OPTIONS").sort();
    const documented = operations().filter(([key]) => key.endsWith(` ${path}`)).map(([key]) => key.split(" ")[0]!).sort();
    assert.deepEqual(documented, served, path);
  }
});

test("openApiDocument describes every operation in OPERATIONS, none by the fallback", () => {
  const described = new Set(Object.values(OPERATIONS).map((spec) => spec.operationId));
  for (const [key, operation] of operations()) assert.ok(described.has(operation.operationId), `${key} is ${operation.operationId}`);
});

test("openApiDocument's operationIds are unique and equal the event routes' names", () => {
  const ids = operations().map(([, operation]) => operation.operationId);
  assert.equal(new Set(ids).size, ids.length);
  for (const { method, pattern, route } of eventRoutes({ store: new MemoryStore(), now: Date.now, randomBytes })) {
    const path = pattern.replace(/:(\w+)/g, "{$1}");
    assert.equal(doc.paths[path][method.toLowerCase()].operationId, route.name, `${method} ${path}`);
  }
});

test("openApiDocument marks security: [] exactly on the operations that answer without a key", async () => {
  assert.deepEqual(doc.security, [{ apiKey: [] }]);
  assert.equal(doc.components.securitySchemes.apiKey.scheme, "bearer");
  for (const [key, operation] of operations()) {
    const [method, path] = key.split(" ") as [string, string];
    const response = await call(app, method, concrete(path));
    const open = Array.isArray(operation.security) && operation.security.length === 0;
    assert.equal(response.status === 401, !open, `${key} answered ${response.status}`);
  }
});

test("openApiDocument's create examples pass validateCreate", () => {
  const examples = doc.paths["/events"].post.requestBody.content["application/json"].examples;
  assert.ok(Object.keys(examples).length >= 1);
  for (const [name, example] of Object.entries(examples as Record<string, Json>)) {
    const principal = example.value.organizer === undefined ? ORGANIZER : ADMIN;
    assert.doesNotThrow(() => validateCreate(example.value, principal), name);
  }
});

test("openApiDocument's update examples pass validateUpdate on an event made from the first create example", () => {
  const createExamples = Object.values(doc.paths["/events"].post.requestBody.content["application/json"].examples as Record<string, Json>);
  const input = validateCreate(createExamples[0].value, ORGANIZER);
  const current: EventRecord = { ...input, id: "evt_0000000000000000", registered_count: 0, organizer: { name: ORGANIZER.name, email: ORGANIZER.email }, created_at: "2026-01-01T00:00:00.000Z" };
  const examples = doc.paths["/events/{id}"].put.requestBody.content["application/json"].examples;
  for (const [name, example] of Object.entries(examples as Record<string, Json>)) {
    assert.doesNotThrow(() => validateUpdate(example.value, current, ORGANIZER), name);
  }
});

test("EventCreate lists what a create accepts (no id, no created_at, registered_count only 0); EventUpdate every field; EventCreate requires exactly the required fields", () => {
  const { EventCreate, EventUpdate } = doc.components.schemas;
  const required = Object.entries(EVENT_FIELDS).filter(([, rule]) => rule.required).map(([field]) => field);
  // A new event is never cancelled, and has no reviewer's note yet (API.md §14).
  assert.deepEqual(Object.keys(EventCreate.properties), Object.keys(EVENT_FIELDS).filter((field) => !["id", "created_at", "series_id", "review_note", "cancellation_reason"].includes(field)));
  assert.deepEqual(EventCreate.required, required);
  assert.equal(EventCreate.additionalProperties, false);
  assert.equal(EventCreate.properties.registered_count.const, 0);
  assert.deepEqual(Object.keys(EventUpdate.properties), Object.keys(EVENT_FIELDS));
  assert.equal(EventUpdate.required, undefined);
  assert.equal(EventUpdate.additionalProperties, false);
  for (const schema of [EventCreate, EventUpdate]) {
    for (const [field, property] of Object.entries(schema.properties as Record<string, Json>)) {
      assert.equal(property.type, EVENT_FIELDS[field]!.schema["type"], field);
      // Validators refuse readOnly properties in requests, and code generators make a property with a default required.
      assert.equal(property.readOnly, undefined, `${field} is not readOnly in a request`);
      assert.equal(property.default, undefined, `${field} has no default in a request`);
    }
  }
  for (const field of ["id", "registered_count"]) assert.equal(doc.components.schemas.Event.properties[field].readOnly, true, `${field} is readOnly in a response`);
});

test("each path documents HEAD with GET, OPTIONS (204, Allow, no key), and a 405 with Allow for every other common method", () => {
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    if (!item.get.operationId.endsWith("NotAllowed")) {
      assert.ok(item.head, `HEAD ${path}`);
      assert.deepEqual(Object.keys(item.head.responses), Object.keys(item.get.responses), `HEAD ${path} answers as GET`);
      for (const response of Object.values(item.head.responses as Record<string, Json>)) if (response.$ref === undefined) assert.equal(response.content, undefined, `HEAD ${path} has no body`);
    }
    assert.deepEqual(item.options.security, []);
    assert.ok(item.options.responses["204"].headers.Allow, `OPTIONS ${path} sends Allow`);
    // HEAD too: on a path without GET (POST /events/{id}/approve) it is a 405 like any other method.
    for (const method of ["get", "head", "put", "post", "delete", "patch"]) {
      const operation = item[method];
      assert.ok(operation, `${method} ${path} is documented, served or refused`);
      if (!operation.operationId.endsWith("NotAllowed")) continue;
      assert.deepEqual(operation.security, [], "a 405 comes before the key");
      assert.equal(operation.responses.default.$ref, "#/components/responses/MethodNotAllowed");
    }
  }
});

test("GET and DELETE document 413 and 415: a body on a route that reads none is still checked", () => {
  for (const [key, operation] of operations()) {
    for (const status of ["413", "415"]) assert.ok(operation.responses[status], `${key} ${status}`);
  }
});

test("Event and EventCreated list exactly the fields viewJson and createdJson serve", () => {
  const record: EventRecord = {
    id: "evt_0000000000000000", title: "t", description: "", category: "social", location: "l", start_time: "2026-09-01T17:00:00.000Z",
    end_time: "2026-09-01T18:00:00.000Z", capacity: 1, registered_count: 0, organizer: { name: "n", email: "n@campus.edu" }, created_at: "2026-01-01T00:00:00.000Z",
  };
  const { Event, EventCreated } = doc.components.schemas;
  // An occurrence of a series also carries series_id, the one field a one-off event lacks (API.md §4); a cancelled
  // event its status and reason, a rejected draft its note (§14): each only then.
  const occurrence: EventRecord = { ...record, series_id: "ser_0000000000000000", status: "cancelled", cancellation_reason: "Storm" };
  const rejected: EventRecord = { ...record, status: "draft", review_note: "Add a room" };
  assert.deepEqual(Object.keys(JSON.parse(viewJson(rejected))), [...Object.keys(JSON.parse(viewJson(record))), "status", "review_note"]);
  const viewFields = Object.keys(JSON.parse(viewJson(occurrence)));
  assert.deepEqual(viewFields.slice(-3), ["series_id", "status", "cancellation_reason"]);
  assert.deepEqual(Object.keys(Event.properties), [...viewFields.slice(0, -1), "review_note", "cancellation_reason"]);
  assert.deepEqual(Event.required, Object.keys(JSON.parse(viewJson(record))));
  assert.deepEqual(Object.keys(EventCreated.properties), [...Object.keys(JSON.parse(createdJson(occurrence))).slice(0, -1), "review_note", "cancellation_reason"]);
  assert.deepEqual(EventCreated.required, Object.keys(JSON.parse(createdJson(record))));
});

test("the Error schema's error enum is every code of ERROR_CATALOG, and each status has an error response", () => {
  assert.deepEqual([...doc.components.schemas.Error.properties.error.enum].sort(), Object.keys(ERROR_CATALOG).sort());
  assert.deepEqual(doc.components.schemas.Error.required, ["error", "message"]);
  const statuses = new Set(Object.values(ERROR_CATALOG));
  const documented = new Set(Object.values(doc.components.responses as Record<string, Json>).map((response) => response.content["application/json"].schema.allOf[1].properties.error));
  assert.equal(Object.keys(doc.components.responses).length, statuses.size);
  const codes = [...documented].flatMap((narrowed: Json) => narrowed.enum ?? [narrowed.const]).sort();
  assert.deepEqual(codes, Object.keys(ERROR_CATALOG).sort());
});

test("every $ref in the document resolves within it", () => {
  const refs: string[] = [];
  const walk = (node: Json): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref") refs.push(value as string);
        else walk(value);
      }
    }
  };
  walk(doc);
  assert.ok(refs.length > 20);
  for (const ref of refs) assert.notEqual(resolve(ref), undefined, ref);
});

test("every operation declares its path parameters and every response has a description", () => {
  for (const [key, operation] of operations()) {
    const path = key.split(" ")[1]!;
    const declared = (operation.parameters ?? []).map(deref).filter((p: Json) => p.in === "path").map((p: Json) => p.name).sort();
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
    assert.deepEqual(declared, templated, key);
    for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
      assert.equal(typeof deref(response).description, "string", `${key} ${status}`);
    }
  }
});

test("each operation documents the errors it can give, with their headers", () => {
  const statuses = (key: string): string[] => {
    const [method, path] = key.split(" ") as [string, string];
    return Object.keys(doc.paths[path][method.toLowerCase()].responses);
  };
  for (const key of ["GET /events", "POST /events", "GET /events/{id}", "PUT /events/{id}", "DELETE /events/{id}"]) {
    for (const status of ["400", "401", "429", "503"]) assert.ok(statuses(key).includes(status), `${key} ${status}`);
  }
  assert.deepEqual(statuses("GET /health").filter((s) => s === "401" || s === "503"), ["503"]);
  assert.ok(statuses("GET /events/{id}").includes("304"));
  for (const status of ["403", "404", "409", "412", "413", "415"]) assert.ok(statuses("PUT /events/{id}").includes(status), status);
  for (const status of ["403", "413", "415"]) assert.ok(statuses("POST /events").includes(status), status);
  const responses = doc.components.responses;
  assert.ok(responses.Unauthorized.headers["WWW-Authenticate"]);
  assert.ok(responses.RateLimited.headers["Retry-After"]);
  assert.ok(responses.MethodNotAllowed.headers["Allow"]);
  // Answered by the router before the key is looked at, as a 401 is: no rate-limit headers (a served 405 has none).
  for (const name of ["MethodNotAllowed", "Unauthorized"]) {
    assert.deepEqual(Object.keys(responses[name].headers).filter((header) => header.startsWith("RateLimit")), [], name);
  }
  const created = doc.paths["/events"].post.responses["201"];
  assert.ok(created.headers.Location && created.headers.ETag && created.headers["RateLimit-Policy"] && created.headers["X-Request-Id"] && created.headers["API-Version"]);
  assert.ok(doc.paths["/events"].get.responses["200"].headers.Link);
});

test("the list query parameters agree with parseListQuery: category pattern, q length, defaults and bounds", () => {
  const parameters = doc.paths["/events"].get.parameters.map(deref).filter((p: Json) => p.in === "query");
  const byName = Object.fromEntries(parameters.map((p: Json) => [p.name, p]));
  assert.deepEqual(Object.keys(byName).sort(), ["category", "end_date", "limit", "page", "q", "series_id", "start_date", "status"]);
  const categoryPattern = new RegExp(byName.category.schema.pattern);
  for (const value of [...CATEGORIES, "academic,social", CATEGORIES.join(",")]) {
    assert.match(value, categoryPattern);
    assert.doesNotThrow(() => parseListQuery(`category=${value}`), value);
  }
  for (const value of ["party", "academic,", "Social"]) {
    assert.doesNotMatch(value, categoryPattern);
    assert.throws(() => parseListQuery(`category=${value}`), value);
  }
  assert.deepEqual([byName.q.schema.minLength, byName.q.schema.maxLength], [1, 200]);
  assert.doesNotThrow(() => parseListQuery(`q=${"a".repeat(200)}`));
  assert.throws(() => parseListQuery(`q=${"a".repeat(201)}`));
  assert.equal(byName.start_date.schema.format, "date");
  assert.equal(byName.end_date.schema.format, "date");
  const defaults = parseListQuery("");
  for (const name of ["limit", "page"] as const) {
    const schema = byName[name].schema;
    assert.equal(schema.type, "integer");
    assert.equal(schema.default, defaults[name], name);
    assert.equal(parseListQuery(`${name}=${schema.minimum}`)[name], schema.minimum, name);
    assert.throws(() => parseListQuery(`${name}=${schema.minimum - 1}`), name);
    assert.equal(parseListQuery(`${name}=${schema.maximum}`)[name], schema.maximum, name);
    assert.throws(() => parseListQuery(`${name}=${schema.maximum + 1}`), name);
  }
  assert.throws(() => parseListQuery("sort=title"));
});

test("openApiDocument states the app's rate limit and the /v1 prefix", () => {
  assert.match(doc.info.description, /7 requests in any sliding window of 60 seconds/);
  assert.equal(doc.components.headers["RateLimit-Policy"].example, '"default";q=7;w=60');
  assert.match(doc.info.description, /\/v1/);
  assert.deepEqual(doc.servers.map((server: Json) => server.url), ["/", "/v1"]);
});

test("openApiDocument documents a route the table adds before it is described, with a derived operationId", () => {
  const document: Json = openApiDocument([{ pattern: "/events/:id/waitlist/:entry_id", methods: ["DELETE"] }], { rateLimit: 1, rateWindow: 1 });
  const operation = document.paths["/events/{id}/waitlist/{entry_id}"].delete;
  assert.equal(operation.operationId, "deleteEventsByIdWaitlistByEntryId");
  assert.deepEqual(operation.parameters.map((p: Json) => p.name), ["id", "entry_id"]);
});

test("openApiDocument describes GET /events.ics: text/calendar, 304, the key parameter and the feedKey scheme", () => {
  const operation = doc.paths["/events.ics"].get;
  assert.deepEqual(Object.keys(operation.responses["200"].content), ["text/calendar"]);
  assert.ok(operation.responses["200"].headers.ETag);
  assert.ok(operation.responses["304"]);
  assert.deepEqual(operation.security, [{ apiKey: [] }, { feedKey: [] }]);
  const parameters = operation.parameters.map(deref);
  assert.deepEqual(parameters.map((p: Json) => `${p.in} ${p.name}`).sort(), ["header If-None-Match", "query category", "query end_date", "query key", "query q", "query series_id", "query start_date", "query status"]);
  assert.deepEqual(doc.components.securitySchemes.feedKey, { ...doc.components.securitySchemes.feedKey, type: "apiKey", in: "query", name: "key" });
  for (const status of ["400", "401", "429"]) assert.ok(operation.responses[status], status);
});

test("openApiDocument of an app mounted under a basePath lists servers under that path", async () => {
  const mounted = await createApp({ store: "memory", bootstrapAdminKey: false, keyPollMs: 0, basePath: "/api/campus/" });
  try {
    const response = await call(mounted, "GET", "/api/campus/openapi.json");
    assert.equal(response.status, 200);
    assert.deepEqual(response.json.servers.map((server: Json) => server.url), ["/api/campus", "/api/campus/v1"]);
  } finally {
    await mounted.close();
  }
});

test("openApiDocument lists a 403 on every keyed operation but GET /me, which every role may call", () => {
  const keyed = operations().filter(([, operation]) => !Array.isArray(operation.security) || operation.security.length > 0);
  assert.ok(keyed.length > 20);
  for (const [key, operation] of keyed) assert.equal(Object.hasOwn(operation.responses, "403"), key !== "GET /me", key);
});

test("openApiDocument's create schemas take the statuses a new event or series may have, never cancelled", () => {
  for (const schema of ["EventCreate", "SeriesCreate"]) {
    assert.deepEqual(doc.components.schemas[schema].properties.status.enum, ["draft", "pending", "published"], schema);
  }
  assert.deepEqual(doc.components.schemas.EventUpdate.properties.status.enum, ["draft", "pending", "published", "cancelled"]);
});

test("openApiDocument's 409 and 503 may carry Retry-After, as the service sends it (an Idempotency-Key in flight, a database out of reach)", () => {
  for (const name of ["Conflict", "Unavailable", "RateLimited"]) assert.ok(Object.hasOwn(doc.components.responses[name].headers, "Retry-After"), name);
});

test("openApiDocument's request examples lie in the future of 2026-11-29, so a client can try them", () => {
  const times = JSON.stringify(doc).match(/"(?:start|end)_time":"[^"]+"/g) ?? [];
  assert.ok(times.length >= 8);
  for (const time of times) assert.ok(Date.parse(time.split('":"')[1]!.slice(0, -1)) > Date.UTC(2026, 10, 29), time);
});

test("the served document stands on its own: it sends its reader to no file a user does not have", () => {
  assert.doesNotMatch(served.text!, /API\.md|SPEC\.md|§\d/);
});

test("openApiDocument declares Cache-Control where the feeds send it, with the values they send", () => {
  assert.deepEqual(doc.components.headers["Cache-Control"].schema.enum, ["no-store", "private, no-cache"]);
  const headersOf = (path: string, status: string): string[] => Object.keys(doc.paths[path].get.responses[status].headers);
  assert.ok(headersOf("/changes", "200").includes("Cache-Control"));
  assert.ok(headersOf("/events.ics", "200").includes("Cache-Control"));
  assert.ok(headersOf("/events.ics", "304").includes("Cache-Control"));
});

test("openApiDocument's review operations give their own order of errors: a rejection's reason, an approval that takes no field", () => {
  for (const thing of ["events", "series"]) {
    assert.match(doc.paths[`/${thing}/{id}/reject`].post.description, /the reason \(400 validation_failed\)/);
    assert.doesNotMatch(doc.paths[`/${thing}/{id}/approve`].post.description, /reason/);
    assert.match(doc.paths[`/${thing}/{id}/approve`].post.description, /any field \(400 validation_failed: an approval takes none\)/);
  }
});

test("openApiDocument's e-mail pattern refuses what the service refuses (control characters) and takes letters outside ASCII", () => {
  const pattern = new RegExp(doc.components.schemas.RegistrationCreate.properties.email.pattern, "u");
  for (const address of ["zoë@campus.edu", "a.b@mail.campus.edu"]) assert.match(address, pattern);
  for (const address of ["a@b.c\u0001", "a\u007f@campus.edu", "a@camp\u0085us.edu", "a b@campus.edu"]) assert.doesNotMatch(address, pattern, JSON.stringify(address));
  // Invisible format characters of the BMP too, with the pattern read with or without the u flag.
  for (const flags of ["u", ""]) {
    const read = new RegExp(doc.components.schemas.RegistrationCreate.properties.email.pattern, flags);
    for (const address of ["a@b.d\u200be", "\u00ada@campus.edu", "a@campus.edu\ufeff", "a\u2066@campus.edu"]) assert.doesNotMatch(address, read, JSON.stringify(address));
  }
});

test("openApiDocument's text fields refuse control characters as the service does, a description taking tab and line ends", () => {
  const { Event, RegistrationCreate } = doc.components.schemas;
  for (const schema of [Event.properties.title, Event.properties.location, Event.properties.organizer.properties.name, Event.properties.cancellation_reason, RegistrationCreate.properties.name]) {
    const pattern = new RegExp(schema.pattern);
    assert.match("Zoë's talk \u200b", pattern);
    for (const text of ["A\u0007B", "A\tB", "A\nB", "A\u009fB"]) assert.doesNotMatch(text, pattern, JSON.stringify(text));
  }
  const description = new RegExp(Event.properties.description.pattern);
  assert.match("line\r\nand\ttab", description);
  assert.doesNotMatch("bell\u0007", description);
});

test("openApiDocument marks the headers every response carrying them has as required, and no other; those some responses always carry and others may not have a required twin for the first", () => {
  const headers = doc.components.headers as Record<string, { required?: boolean; $ref?: string }>;
  const required = Object.entries(headers).filter(([, header]) => header.required === true).map(([name]) => name);
  const twins = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'RateLimit', 'Retry-After'];
  assert.deepEqual(required.sort(), ['API-Version', 'Allow', 'Cache-Control', 'ETag', 'Location', 'WWW-Authenticate', 'X-Request-Id', ...twins.map((name) => `${name}.sent`)].sort());
  for (const name of twins) assert.equal(headers[name]!.required, undefined, `${name} alone is not required`);
  // A keyed operation's success always carries the rate-limit headers; its 400 may come before the key is looked at.
  const read = doc.paths['/events/{id}'].get.responses;
  assert.equal(read['200'].headers['RateLimit-Remaining'].$ref, '#/components/headers/RateLimit-Remaining.sent');
  assert.equal(doc.components.responses.BadRequest.headers['RateLimit-Remaining'].$ref, '#/components/headers/RateLimit-Remaining');
  assert.equal(doc.components.responses.RateLimited.headers['Retry-After'].$ref, '#/components/headers/Retry-After.sent');
  assert.equal(doc.components.responses.Conflict.headers['Retry-After'].$ref, '#/components/headers/Retry-After');
  assert.match(doc.components.schemas.WebhookCreate.properties.url.description, /without a user name or password/);
});
