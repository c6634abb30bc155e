// Where a request's API key is (API.md §2), and the answers to a request without a good one: the 401, and the 429 of
// an address held by the throttle on failed authentications.
import { ApiError } from '../http/errors.js';
import type { PlainRequest } from '../http/types.js';

/** The key of an `Authorization: Bearer` header (the scheme in any case), or undefined. */
export function bearerSecret(request: PlainRequest): string | undefined {
  const header = request.headers.authorization;
  return header !== undefined && header.length > 7 && header.slice(0, 7).toLowerCase() === 'bearer ' ? header.slice(7).trim() : undefined;
}

/** The `key` query parameter of a route that takes one (undefined when absent); 400 when given twice or beside an Authorization header. */
export function queryKey(request: PlainRequest, query: string): string | undefined {
  if (query === '') return undefined;
  const values = new URLSearchParams(query).getAll('key');
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new ApiError('bad_request', 'Query parameter key is given more than once.');
  if (request.headers.authorization !== undefined) {
    throw new ApiError('bad_request', 'The request sends a key both in the Authorization header and as ?key=; send exactly one.');
  }
  return values[0]!;
}

/** The 401 of a request with no key (`secret` undefined), an unknown or revoked one, or one a URL may not carry (`inQuery`). */
export function unauthorized(request: PlainRequest, secret: string | undefined, inQuery: boolean): ApiError {
  const challenge = secret === undefined ? 'Bearer realm="campus-events"' : 'Bearer realm="campus-events", error="invalid_token"';
  // The same message for every refused ?key=, so the answer tells nothing about which keys exist.
  const message = secret === undefined
    ? `This endpoint needs an API key: send Authorization: Bearer <key>.${/[?&]key=/.test(request.target) ? ' Only the calendar feed (/events.ics) takes a key in ?key=, and only a feed key.' : ''}`
    : inQuery
      ? 'The key in ?key= is not accepted: it is unknown, revoked, or not of role feed (only a feed key may be sent in a URL; send any other key as Authorization: Bearer <key>).'
      : 'The API key is not valid: it is unknown or revoked.';
  return new ApiError('unauthorized', message, { headers: { 'WWW-Authenticate': challenge } });
}

/** The 429 of an address held by the throttle on failed authentications (more than `maxFailures` in 15 minutes). */
export function heldAddressError(maxFailures: number, retryAfterSeconds: number): ApiError {
  return new ApiError('rate_limited', `This address is held by the per-address throttle for failed authentications: more than ${maxFailures} requests without a valid key in 15 minutes; retry in ${retryAfterSeconds} s (a valid key is never held by it).`, {
    headers: { 'Retry-After': String(retryAfterSeconds), 'Cache-Control': 'no-store' },
  });
}
