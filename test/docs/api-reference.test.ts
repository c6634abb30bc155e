// docs/api.md against the OpenAPI document the server serves: the two name the same routes, so neither can drift from the other.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createApp, type App } from '../../src/app.js';
import { manualFiles, readDoc } from '../helpers/docs.js';
import { call } from '../helpers/harness.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** A route as `METHOD /path`, the path in the document's template form (`/events/{id}`). */
type Route = string;

let app: App;
/** Every operation the document lists that can succeed (a 2xx among its answers): not the 405s it lists for other methods. */
let served: Route[];
/** Every operation the document lists, whatever it answers. */
let listed: Route[];

before(async () => {
  app = await createApp({ store: 'memory', bootstrapAdminKey: false, keyPollMs: 0 });
  const response = await call(app, 'GET', '/openapi.json');
  assert.equal(response.status, 200);
  const paths = response.json.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  served = [];
  listed = [];
  for (const [pattern, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!METHODS.includes(method.toUpperCase() as (typeof METHODS)[number])) continue;
      listed.push(`${method.toUpperCase()} ${pattern}`);
      if (Object.keys(operation.responses ?? {}).some((status) => /^2\d\d$/.test(status))) served.push(`${method.toUpperCase()} ${pattern}`);
    }
  }
});

after(() => app.close());

/** Every `METHOD /path` a text names (inline or in an example), with the query cut off and `/v1` dropped, and the line it is on. */
function namedRoutes(text: string): { route: Route; line: number }[] {
  const found: { route: Route; line: number }[] = [];
  text.split('\n').forEach((line, i) => {
    for (const match of line.matchAll(/\b(GET|HEAD|POST|PUT|DELETE|PATCH|OPTIONS) (\/[^\s`'"()[\]<>,;?#*]*)/g)) {
      const target = match[2]!.replace(/^\/v1(?=\/)/, '').replace(/[.:]$/, '');
      found.push({ route: `${match[1]} ${target}`, line: i + 1 });
    }
  });
  return found;
}

/** True when a concrete or templated `route` is an instance of `pattern` (a `{name}` segment matches any one segment). */
function matches(route: Route, pattern: Route): boolean {
  const [method, target] = route.split(' ') as [string, string];
  const [patternMethod, patternTarget] = pattern.split(' ') as [string, string];
  if (method !== patternMethod) return false;
  const segments = target.split('/');
  const patternSegments = patternTarget.split('/');
  return segments.length === patternSegments.length && patternSegments.every((segment, i) => segment === segments[i] || (/^\{\w+\}$/.test(segment) && segments[i] !== ''));
}

test('every route /openapi.json serves (each method of each path that can answer 2xx, HEAD and OPTIONS aside) is named in docs/api.md as written in the document', () => {
  const named = new Set(namedRoutes(readDoc('docs/api.md')).map(({ route }) => route));
  const documented = served.filter((route) => !/^(HEAD|OPTIONS) /.test(route));
  assert.ok(documented.length >= 26, `the document's routes were found (${documented.length})`);
  assert.deepEqual(documented.filter((route) => !named.has(route)), [], 'routes of /openapi.json that docs/api.md never names');
});

test('every route README.md and docs/ name is one /openapi.json serves', () => {
  const unknown: string[] = [];
  let count = 0;
  for (const file of manualFiles()) {
    for (const { route, line } of namedRoutes(readDoc(file))) {
      count++;
      if (!served.some((pattern) => matches(route, pattern))) unknown.push(`${file}:${line} ${route}`);
    }
  }
  assert.ok(count >= 60, `the manual's routes were found (${count})`);
  assert.deepEqual(unknown, [], 'routes the manual names that /openapi.json does not serve');
});

test('as docs/api.md says: HEAD is served wherever GET is, OPTIONS on every path, and every other method is listed as a 405', () => {
  const patterns = [...new Set(listed.map((route) => route.split(' ')[1]!))];
  for (const pattern of patterns) {
    assert.equal(served.includes(`HEAD ${pattern}`), served.includes(`GET ${pattern}`), `HEAD ${pattern} is served exactly when GET is`);
    assert.ok(served.includes(`OPTIONS ${pattern}`), `OPTIONS ${pattern} is served`);
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) assert.ok(listed.includes(`${method} ${pattern}`), `${method} ${pattern} is listed (served or 405)`);
  }
  const text = readDoc('docs/api.md');
  assert.match(text, /`HEAD` works wherever `GET` does/);
  assert.match(text, /`OPTIONS` \(no key\) answers 204 with `Allow` on every path/);
});

test('namedRoutes() reads inline routes and examples, drops /v1 and the query; matches() fills templates with one segment each', () => {
  assert.deepEqual(
    namedRoutes('`GET /v1/events?limit=10` and `DELETE /events/{id}`.\nGET /events/evt_1   If-Match: "1"\n`GET`/`HEAD /events.ics`; `PUT {"a":1}`').map(({ route }) => route),
    ['GET /events', 'DELETE /events/{id}', 'GET /events/evt_1', 'HEAD /events.ics'],
  );
  assert.ok(matches('GET /events/evt_1', 'GET /events/{id}'));
  assert.ok(matches('POST /events/{id}/registrations', 'POST /events/{id}/registrations'));
  assert.ok(!matches('GET /events/evt_1/registrations', 'GET /events/{id}'));
  assert.ok(!matches('GET /events.ics', 'GET /events/{id}'));
  assert.ok(!matches('POST /events/evt_1', 'GET /events/{id}'));
  assert.ok(!matches('GET /events/', 'GET /events/{id}'));
});
