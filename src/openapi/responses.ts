// The response headers and error responses of the OpenAPI document; one error response per status of ERROR_CATALOG.
import { ERROR_CATALOG, type ErrorCode } from '../http/errors.js';
import { schemaRef } from './schemas.js';
import { API_VERSION } from '../http/route.js';

type Component = Record<string, unknown>;

/** The rate limit the served document describes (the app's `--rate-limit` and `--rate-window`). */
export interface RateLimits {
  rateLimit: number;
  rateWindow: number;
}

/** The media type of every JSON body. */
export const JSON_MEDIA = 'application/json';

/** `#/components/headers/NAME`, or its variant marked required when the response always carries it. */
export function headerRef(name: string, always = false): Component {
  return { $ref: `#/components/headers/${always && ALWAYS_VARIANTS.includes(name) ? `${name}${ALWAYS_SUFFIX}` : name}` };
}

/** The headers every response carries. */
export const COMMON_HEADERS = ['API-Version', 'X-Request-Id'] as const;

/** The headers every response to a request with a good key carries. */
export const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'] as const;

/**
 * Headers some responses always carry and others only sometimes (the rate-limit ones not before the key is checked,
 * Retry-After on a 409 or 503 only when the cause passes by itself): each has a second component marked required, which
 * the responses that always carry it reference, so a generated client types it as there.
 */
const ALWAYS_VARIANTS: readonly string[] = ['Retry-After', ...RATE_LIMIT_HEADERS];
const ALWAYS_SUFFIX = '.sent';

/** Headers by name, referenced from a response; those in `always` it always carries. */
export function headerRefs(names: readonly string[], always: readonly string[] = []): Record<string, Component> {
  return Object.fromEntries(names.map((name) => [name, headerRef(name, always.includes(name))]));
}

/** Every header of `components.headers`. */
export function componentHeaders(limits: RateLimits): Record<string, Component> {
  const headers = headerComponents(limits);
  for (const name of ALWAYS_VARIANTS) headers[`${name}${ALWAYS_SUFFIX}`] = required(headers[name]!);
  return headers;
}

function headerComponents(limits: RateLimits): Record<string, Component> {
  const { rateLimit, rateWindow } = limits;
  return {
    'API-Version': required(header('The version of the API that answered.', { type: 'string', const: API_VERSION })),
    'X-Request-Id': required(header("The request's id: the one it sent when valid, else a new one. The log finds a request by it.", { type: 'string' })),
    ETag: required(header('A strong ETag: of the event state (it changes with every change; send it back in If-Match or If-None-Match), or of a list page (send it back in If-None-Match).', { type: 'string' }, '"1f"')),
    'Idempotent-Replayed': header('true when this is the remembered answer to an earlier request with the same Idempotency-Key: nothing was written this time.', { type: 'string', const: 'true' }),
    Location: required(header('The new resource: /events/{id}, /events/{id}/registrations/{reg_id}, /series/{id} or /webhooks/{id}, under /v1 when the request came in under it.', { type: 'string' }, '/events/evt_4q0KxV7mW2dJr9TzLb8sNc')),
    Link: header('RFC 8288 links to the first and last pages, and to the next and prev pages where they exist, keeping the filters, limit and the /v1 prefix if used.', { type: 'string' }, '</events?category=academic&limit=50&page=1>; rel="first", </events?category=academic&limit=50&page=2>; rel="next", </events?category=academic&limit=50&page=2>; rel="last"'),
    'RateLimit-Limit': header(`Requests the key may make in any sliding window (${rateLimit} per ${rateWindow} s).`, { type: 'integer', minimum: 1 }, rateLimit),
    'RateLimit-Remaining': header('Requests the key may still make in the current window.', { type: 'integer', minimum: 0 }),
    'RateLimit-Reset': header('Seconds until the next slot frees.', { type: 'integer', minimum: 0 }),
    'RateLimit-Policy': header('The policy, as the IETF RateLimit headers draft writes it.', { type: 'string' }, `"default";q=${rateLimit};w=${rateWindow}`),
    RateLimit: header('Remaining requests and seconds to reset, as the IETF RateLimit headers draft writes them.', { type: 'string' }, `"default";r=${rateLimit - 1};t=${rateWindow}`),
    'WWW-Authenticate': required(header('The RFC 6750 challenge; error="invalid_token" when a key was given.', { type: 'string' }, 'Bearer realm="campus-events"')),
    'Retry-After': header('Whole seconds to wait before retrying: on every 429; on a 409 only while the same Idempotency-Key is still being written; on a 503 when the cause is expected to pass by itself (a database out of reach, a write whose outcome is unknown).', { type: 'integer', minimum: 1 }),
    'Last-Seq': header('On a JSON page (not a stream): the sequence number of the newest durable write: what next_since is once more is false. A client that needs only the changes from now on (it has just read the events) asks once with limit=1 and streams or polls from it.', { type: 'integer', minimum: 0 }, 1234),
    'X-Accel-Buffering': header('no, on a stream of Server-Sent Events: asks a reverse proxy in front (nginx) to pass each change on at once instead of buffering it.', { type: 'string', const: 'no' }),
    'Cache-Control': required(header('no-store on every error and on the change feed; private, no-cache on the calendar feed (a calendar program may keep it, and asks again with If-None-Match).', { type: 'string', enum: ['no-store', 'private, no-cache'] })),
    Allow: required(header('Every method of the path, HEAD and OPTIONS included.', { type: 'string' }, 'GET, HEAD, PUT, DELETE, OPTIONS')),
  };
}

function header(description: string, schema: Record<string, unknown>, example?: unknown): Component {
  return example === undefined ? { description, schema } : { description, schema, example };
}

/** A header sent on every response that references it, so a generated client types it as always there. */
function required(component: Component): Component {
  return { ...component, required: true };
}

/** What each error code means, for the response descriptions; a new catalog code must be described here to compile. */
function codeDescriptions(limits: RateLimits): Record<ErrorCode, string> {
  return {
    bad_request: 'Malformed JSON, a body that is not a JSON object, a bad, repeated or unknown query parameter, a request target starting with //, or two Authorization headers.',
    validation_failed: 'A body field is missing, of the wrong type, out of range, unknown or read-only; details lists every problem.',
    unauthorized: 'No Authorization: Bearer header, or an unknown or revoked key (the same answer for both, so keys cannot be probed).',
    forbidden: "The key's role does not allow this, or the event (or series) is organised by someone else: an organizer may change or delete only its own events and series, and see and check in only their attendees.",
    not_found: 'No event has that id (the message names it); also any unknown path.',
    method_not_allowed: 'The path exists but not with this method; Allow lists its methods.',
    request_timeout: 'The client was too slow to send its request.',
    conflict: 'The change contradicts current state, e.g. capacity below registered_count.',
    gone: 'A change-feed position (since or Last-Event-ID) older than a deletion compaction dropped, or newer than the last write (a log restored from a backup): start again from since=0.',
    precondition_failed: 'If-Match was given and does not match the current ETag.',
    payload_too_large: 'The body is over 64 KiB; the connection is then closed without reading the rest.',
    unsupported_media_type: 'A body without Content-Type: application/json.',
    headers_too_large: 'The request line and headers are over 16 KiB.',
    idempotency_key_reused: 'The Idempotency-Key was already used by this API key with another request (a different path or body bytes).',
    rate_limited: `Over the limit: ${limits.rateLimit} requests in any sliding window of ${limits.rateWindow} s per key, or 100 failed authentications within 15 minutes from one client address (then every request without a good key), or a new Idempotency-Key past the key's quota of live ones. Refused requests do not count.`,
    internal: 'A bug; the message reveals no internals, and X-Request-Id finds the details in the log.',
    unavailable: 'The server is shutting down, or the store cannot write (a write failed, e.g. disk full; on PostgreSQL, the database out of reach): nothing was half-written. On PostgreSQL also: an id or change-feed position this instance has not seen while the database cannot confirm it, and a write whose commit outcome is unknown (details: outcome; retry with the same Idempotency-Key).',
  };
}

/** Statuses answered before the key is checked: they never carry the rate-limit headers (a 405 is the router's). */
const BEFORE_KEY_STATUSES: readonly number[] = [401, 405, 408, 431];

/** Headers an error of this status carries besides the common ones, Cache-Control and the rate-limit ones. */
const ERROR_HEADERS: Readonly<Record<number, readonly string[]>> = {
  401: ['WWW-Authenticate'],
  405: ['Allow'],
  429: ['Retry-After'],
  // Only some answers of these carry it: an Idempotency-Key still in flight (409), a store that cannot reach its database (503).
  409: ['Retry-After'],
  503: ['Retry-After'],
};

/** The name of the response component for an error status: its first catalog code in PascalCase (400 → BadRequest). */
export function errorResponseName(status: number): string {
  const code = codesOf(status)[0];
  if (code === undefined) throw new Error(`No error code of the catalog has status ${status}.`);
  return code.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

/** `#/components/responses/NAME` for an error status. */
export function errorResponseRef(status: number): Component {
  return { $ref: `#/components/responses/${errorResponseName(status)}` };
}

/** One response component per status of ERROR_CATALOG, its body an Error whose `error` is one of that status's codes. */
export function errorResponses(limits: RateLimits): Record<string, Component> {
  const descriptions = codeDescriptions(limits);
  const statuses = [...new Set(Object.values(ERROR_CATALOG))].sort((a, b) => a - b);
  const responses: Record<string, Component> = {};
  for (const status of statuses) {
    const codes = codesOf(status);
    const headerNames = [...COMMON_HEADERS, 'Cache-Control', ...(BEFORE_KEY_STATUSES.includes(status) ? [] : RATE_LIMIT_HEADERS)];
    const headers = headerRefs(headerNames, ['Cache-Control']);
    for (const name of ERROR_HEADERS[status] ?? []) headers[name] = headerRef(name, status === 405 || status === 429);
    const narrowed = codes.length === 1 ? { const: codes[0] } : { enum: codes };
    responses[errorResponseName(status)] = {
      description: codes.length === 1 ? descriptions[codes[0]!] : codes.map((code) => `${code}: ${descriptions[code]}`).join(' '),
      headers,
      content: { [JSON_MEDIA]: { schema: { allOf: [schemaRef('Error'), { properties: { error: narrowed } }] } } },
    };
  }
  return responses;
}

function codesOf(status: number): ErrorCode[] {
  return (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((code) => ERROR_CATALOG[code] === status);
}
