// The OpenAPI 3.1 document of the whole API, generated from the route table, the event schema and the error catalog.
import { OPERATIONS, ALWAYS_ERRORS, KEY_ERRORS, REQUEST_ERRORS, pathWords, undescribedOperation } from './operations.js';
import type { OperationSpec } from './operation-spec.js';
import { componentParameters, parameterRef } from './parameters.js';
import { COMMON_HEADERS, JSON_MEDIA, RATE_LIMIT_HEADERS, componentHeaders, errorResponseRef, errorResponses, headerRefs, type RateLimits } from './responses.js';
import { componentSchemas, schemaRef } from './schemas.js';
import { webhookEntries } from './webhook-operations.js';
import { ALLOWED_HEADERS, EXPOSED_HEADERS, PREFLIGHT_MAX_AGE_S } from '../http/cors.js';
import { API_VERSION } from '../http/route.js';

type JsonObject = Record<string, unknown>;

/** A route as `Router.routes()` lists it: a pattern such as `/events/:id` and its methods. */
export interface DocumentedRoute {
  pattern: string;
  methods: string[];
}

/** The security scheme every operation needs unless it says `security: []`. */
const SECURITY_SCHEME = 'apiKey';

/** Where the app is mounted: `basePath` is the prefix of an app embedded under one (`/api/campus`), else ''. */
export interface Mount {
  basePath: string;
}

/**
 * Builds the document; `routes` comes from the router, so every route and method it serves is documented
 * (and nothing else), `limits` are the app's own rate-limit figures, and the servers carry its mount point.
 */
export function openApiDocument(routes: readonly DocumentedRoute[], limits: RateLimits, mount: Mount = { basePath: '' }): JsonObject {
  const parameters = componentParameters();
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const path = toTemplate(route.pattern);
    const item: JsonObject = { parameters: [parameterRef('XRequestId')] };
    let tag: OperationSpec['tag'] = 'events';
    for (const method of route.methods) {
      const spec = OPERATIONS[`${method} ${path}`] ?? undescribedOperation(method, path);
      tag = spec.tag;
      item[method.toLowerCase()] = operation(spec, path, parameters);
      if (method === 'GET') item['head'] = operation(headSpec(spec), path, parameters);
    }
    const allowed = allowedMethods(route.methods);
    item['options'] = operation(optionsSpec(path, allowed, tag), path, parameters);
    // What the router answers 405 for is documented too, so a validating proxy knows the answer (RFC 9110 §15.5.6).
    for (const method of REFUSABLE_METHODS) {
      if (!allowed.includes(method)) item[method.toLowerCase()] = operation(notAllowedSpec(method, path, allowed, tag), path, parameters);
    }
    paths[path] = item;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Campus Events API', version: API_VERSION, description: apiDescription(limits), license: { name: 'MIT', identifier: 'MIT' } },
    servers: [
      { url: mount.basePath === '' ? '/' : mount.basePath, description: 'The paths as listed.' },
      { url: `${mount.basePath}/v1`, description: 'The same API under /v1: /v1/events is /events. Location and Link keep the prefix the request came in under.' },
    ],
    tags: [
      { name: 'events', description: 'Campus events.' },
      { name: 'registrations', description: "Attendees of an event: register, wait in line, cancel, check in." },
      { name: 'series', description: 'Recurring series: a rule once, each occurrence a real event.' },
      { name: 'service', description: 'Health and this document; no key needed.' },
      { name: 'webhooks', description: 'Changes pushed to other systems, signed (Standard Webhooks), in order, until acknowledged.' },
    ],
    security: [{ [SECURITY_SCHEME]: [] }],
    paths,
    webhooks: webhookEntries(),
    components: {
      schemas: componentSchemas(),
      parameters,
      headers: componentHeaders(limits),
      responses: errorResponses(limits),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'cek_...',
          description: `An API key, Authorization: Bearer cek_... (the scheme name is case-insensitive). Keys are made with \`node dist/cli.js keys create\`. Each key may make ${limits.rateLimit} requests in any sliding window of ${limits.rateWindow} s.`,
        },
        feedKey: {
          type: 'apiKey',
          in: 'query',
          name: 'key',
          description: 'GET /events.ics only: a key of role feed in the URL (?key=cek_...), since calendar programs cannot send headers. Made with `node dist/cli.js keys create --role feed`. No other role\'s key is accepted here (401).',
        },
      },
    },
  };
}

/** The methods a client may try on any path; those a path does not serve get a documented 405. */
const REFUSABLE_METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH'] as const;

/** What `Allow` lists for a path: its methods, HEAD with GET, and OPTIONS (the router's order). */
function allowedMethods(methods: readonly string[]): string[] {
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  const all = new Set(methods);
  if (all.has('GET')) all.add('HEAD');
  all.add('OPTIONS');
  return [...all].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

/** HEAD: the GET operation without bodies. */
function headSpec(get: OperationSpec): OperationSpec {
  const responses = Object.fromEntries(Object.entries(get.responses).map(([status, success]) => [status, { ...success, schema: undefined, text: undefined, csv: undefined, alternative: undefined }]));
  return {
    ...get,
    operationId: `head${get.operationId.charAt(0).toUpperCase()}${get.operationId.slice(1)}`,
    summary: `${get.summary} (headers only)`,
    description: `As GET, with the same status and headers and no body. ${get.description}`,
    responses,
  };
}

/** OPTIONS: 204 with Allow, no key; a CORS preflight from a configured origin also gets the Access-Control headers. */
function optionsSpec(path: string, allowed: readonly string[], tag: OperationSpec['tag']): OperationSpec {
  return {
    operationId: `options${pathWords(path)}`,
    summary: `The methods of ${path}`,
    description: `Needs no key. 204 with Allow: ${allowed.join(', ')}. A CORS preflight (Access-Control-Request-Method) from a configured origin also gets Access-Control-Allow-Origin, -Methods, -Headers and -Max-Age.`,
    tag,
    auth: false,
    responses: { '204': { description: 'The methods of the path, in Allow. No body.', headers: ['Allow'] } },
    errors: [],
    requestErrors: true,
  };
}

/** A method the path does not serve: 405 with Allow, answered before the key is checked. */
function notAllowedSpec(method: string, path: string, allowed: readonly string[], tag: OperationSpec['tag']): OperationSpec {
  return {
    operationId: `${method.toLowerCase()}${pathWords(path)}NotAllowed`,
    summary: `${method} is not allowed on ${path}`,
    description: `Always 405 method_not_allowed with Allow: ${allowed.join(', ')} (the default response), unless an earlier, request-level fault answers. Listed so that validating tools know this answer.`,
    tag,
    auth: false,
    responses: {},
    errors: [],
    requestErrors: true,
    refused: true,
  };
}

/** `/events/:id` → `/events/{id}`. */
function toTemplate(pattern: string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** One Operation Object: its parameters, body, success responses and every error it can give. */
function operation(spec: OperationSpec, path: string, components: Record<string, JsonObject>): JsonObject {
  const result: JsonObject = {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
  };
  if (!spec.auth) result['security'] = [];
  else if (spec.security !== undefined) result['security'] = spec.security.map((scheme) => ({ [scheme]: [] }));
  const parameters = operationParameters(spec, path, components);
  if (parameters.length > 0) result['parameters'] = parameters;
  if (spec.requestBody !== undefined) {
    result['requestBody'] = {
      required: spec.requestBody.optional !== true,
      description: `${spec.requestBody.description} Content-Type: application/json, at most 64 KiB, a JSON object.`,
      content: { [JSON_MEDIA]: { schema: schemaRef(spec.requestBody.schema), examples: spec.requestBody.examples } },
    };
  }
  result['responses'] = operationResponses(spec);
  return result;
}

/** The spec's parameters, plus a plain string one for any path parameter it does not declare. */
function operationParameters(spec: OperationSpec, path: string, components: Record<string, JsonObject>): JsonObject[] {
  const names = spec.parameters ?? [];
  const declared = new Set(names.map((name) => components[name]).filter((p) => p?.['in'] === 'path').map((p) => p!['name']));
  const parameters = names.map(parameterRef);
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
    if (!declared.has(name)) parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  return parameters;
}

/** Success responses inline (their headers depend on the key), error responses by reference, ordered by status. */
function operationResponses(spec: OperationSpec): JsonObject {
  const responses: JsonObject = {};
  const keyHeaders = spec.auth ? RATE_LIMIT_HEADERS : [];
  for (const [status, success] of Object.entries(spec.responses)) {
    const response: JsonObject = {
      description: success.description,
      headers: headerRefs([...COMMON_HEADERS, ...keyHeaders, ...(success.headers ?? [])], [...keyHeaders, ...(success.headers ?? [])]),
    };
    if (success.text !== undefined) response['content'] = { [success.text.mediaType]: { schema: { type: 'string', description: success.text.description } } };
    else if (success.schema !== undefined) response['content'] = { [JSON_MEDIA]: { schema: schemaRef(success.schema) } };
    if (success.csv === true) (response['content'] as JsonObject)['text/csv'] = { schema: { type: 'string', description: 'RFC 4180 CSV, charset utf-8: a header row, then one row per item of the page; a null is an empty cell, and a cell starting with =, +, -, @, tab or CR is prefixed with \' so that a spreadsheet never runs it.' } };
    if (success.alternative !== undefined) (response['content'] as JsonObject)[success.alternative.mediaType] = { schema: { type: 'string', description: success.alternative.description } };
    responses[status] = response;
  }
  const keyErrors = spec.everyRole === true ? KEY_ERRORS.filter((status) => status !== 403) : KEY_ERRORS;
  const errors = new Set([...(spec.requestErrors === true ? REQUEST_ERRORS : ALWAYS_ERRORS), ...(spec.auth ? keyErrors : []), ...spec.errors]);
  for (const status of [...errors].sort((a, b) => a - b)) responses[String(status)] = errorResponseRef(status);
  // Every answer of a refused method that is not a request-level error is the 405: `default` says exactly that,
  // and keeps the operation lint-clean (Redocly wants a 2XX or a default on every operation).
  if (spec.refused === true) responses['default'] = errorResponseRef(405);
  return sortByStatus(responses);
}

function sortByStatus(responses: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/** The document's introduction: what holds for every path. */
function apiDescription(limits: RateLimits): string {
  return [
    'Create, list, read, update and delete campus events, and register their attendees.',
    'Every path also answers under /v1 (/v1/events is /events; see servers). Every response carries API-Version: 1.0 and X-Request-Id.',
    'Authentication: Authorization: Bearer cek_... on every endpoint but /health, /openapi.json and OPTIONS. A reader key may GET, and register attendees and read or cancel a registration by its id; an organizer key may also POST, PUT or DELETE the events it organises, and see and check in their attendees; an admin key may do everything and set organizer.',
    `Rate limit: each key may make ${limits.rateLimit} requests in any sliding window of ${limits.rateWindow} seconds; every response to a request whose good key was looked at carries RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy and RateLimit (an unknown path's 404, a 405, a malformed target's 400 and OPTIONS are answered before the key is looked at: no such headers, and they do not count), and a 429 carries Retry-After. After 100 failed authentications within 15 minutes, a client address gets 429 for any request without a good key.`,
    'Calendar feed: GET /events.ics gives the filtered list as an RFC 5545 calendar to subscribe to by URL. A key of role feed may do only that (and GET /me), and is the one key that may travel in the URL, as ?key= (security scheme feedKey).',
    'HEAD works wherever GET does (no body). OPTIONS answers 204 with Allow on every path, needs no key, and answers CORS preflights for the configured origins. Another method on a known path is a 405 with Allow (components.responses.MethodNotAllowed); an unknown path is a 404.',
    `CORS, for the browser origins the server is started with (--cors-origin; with none, no CORS headers at all): every response carries Vary: Origin, and a response to an allowed Origin carries Access-Control-Allow-Origin (that origin) and Access-Control-Expose-Headers: ${EXPOSED_HEADERS}. A preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin also gets Access-Control-Allow-Methods (the path's methods), Access-Control-Allow-Headers: ${ALLOWED_HEADERS}, and Access-Control-Max-Age: ${PREFLIGHT_MAX_AGE_S}. Errors carry them too, so a page can read them.`,
    'Errors are JSON {error, message, details?} (the Error schema); when a request has several faults, the first in the order each operation describes answers (unknown path, method, key, rate limit, role, media type, size, JSON, unknown id, owner, If-Match, Idempotency-Key reuse, fields, state), so an unauthenticated request never learns whether an event exists.',
  ].join('\n\n');
}
