// The one error type of the service, its catalog of codes and statuses, and the one mapping to a JSON body.
import { StoreUnavailable } from '../store/store-errors.js';
import { redactKeys } from './redact-keys.js';

/** Every error code a client can see, with the HTTP status it is sent with (API.md §3). */
export const ERROR_CATALOG = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** One problem with one field of a request body. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** An error a client caused (or a 5xx we chose); thrown anywhere, turned into a response in one place. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: FieldProblem[] | undefined;
  /** Extra response headers, e.g. `Allow` on a 405 or `Retry-After` on a 429. */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: { details?: FieldProblem[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOG[code];
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** The most bytes of a request line and headers, the empty line ending them included (API.md §3: 431 past it). */
export const MAX_HEAD_BYTES = 16 * 1024;

/** The message of a 431, whether node's parser or the adapter's count found the head too large. */
export const HEADERS_TOO_LARGE_MESSAGE = 'The request line and headers must be at most 16 KiB.';

/** The message a client sees for a bug: it reveals nothing of internals. */
export const INTERNAL_MESSAGE = 'The server hit an unexpected error; the request id in X-Request-Id finds the details in its log.';

/** Turns any thrown value into an ApiError; anything that is not one is a 500 `internal`. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailable) {
    return new ApiError('unavailable', error.message, {
      ...(error.details === undefined ? {} : { details: error.details.map((detail) => ({ ...detail })) }),
      ...(error.retryAfterSeconds === undefined ? {} : { headers: { 'Retry-After': String(Math.max(1, Math.ceil(error.retryAfterSeconds))) } }),
    });
  }
  return new ApiError('internal', INTERNAL_MESSAGE);
}

/** The JSON body of an error response: `{error, message, details?}`. */
export function errorBody(error: ApiError): string {
  // A key the client put where a value was expected (`?since=cek_…`, `/events/cek_…`) is not said back: an answer may
  // be logged by a proxy or a client, and the id or value is named all the same, redacted.
  const body: { error: ErrorCode; message: string; details?: FieldProblem[] } = { error: error.code, message: unkeyed(error.message) };
  if (error.details !== undefined) {
    const keyed = error.details.some((problem) => problem.message.includes('cek_') || problem.field.includes('cek_'));
    body.details = keyed ? error.details.map((problem) => ({ ...problem, field: unkeyed(problem.field), message: unkeyed(problem.message) })) : error.details;
  }
  return JSON.stringify(body);
}

function unkeyed(text: string): string {
  return text.includes('cek_') ? redactKeys(text) : text;
}
