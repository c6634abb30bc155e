// The core run for one request: its answer handed on (at once when it answered synchronously), a throw or a rejection
// turned into the JSON 500 every response's headers come with; and any JSON error answered outside the pipeline
// (edgeError: node:http's refusals too).
import { randomUUID } from 'node:crypto';
import { errorBody, ApiError, INTERNAL_MESSAGE } from './errors.js';
import { loggedRequestId } from './redact-keys.js';
import { API_VERSION, JSON_TYPE } from './route.js';
import type { Logger } from '../log/logger.js';
import type { CoreHandler, CoreResponse, PlainRequest } from './types.js';

/** Runs the core and hands its response to `to.respond` (at once when the core answered synchronously); a throw or a rejection becomes the JSON 500. */
export function callCore(handle: CoreHandler, request: PlainRequest, logger: Logger, to: { respond(response: CoreResponse): void }): void {
  let result: CoreResponse | Promise<CoreResponse>;
  try {
    result = handle(request);
  } catch (error) {
    result = internalFailure(logger, 'core threw', error);
  }
  if (result instanceof Promise) {
    result.then(
      (response) => to.respond(response),
      (error: unknown) => to.respond(internalFailure(logger, 'core threw', error)),
    );
  } else {
    to.respond(result);
  }
}

/**
 * Logs `error` with its stack under the request id of the 500 it returns, so that the id a client reports finds the
 * details, as the 500's message says.
 */
export function internalFailure(logger: Logger, message: string, error: unknown, requestId: string = randomUUID()): CoreResponse {
  logger.error(message, { request_id: loggedRequestId(requestId), error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return internalError(requestId);
}

/** The 500 sent if the core itself fails: still a JSON error with the headers every response carries. */
export function internalError(requestId: string = randomUUID()): CoreResponse {
  return edgeError(new ApiError('internal', INTERNAL_MESSAGE), requestId);
}

/** `error` answered outside the pipeline (the core failed, or node:http refused the request): JSON, with the headers every response carries. */
export function edgeError(error: ApiError, requestId: string = randomUUID()): CoreResponse {
  return { status: error.status, headers: { 'API-Version': API_VERSION, 'X-Request-Id': requestId, 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store' }, body: errorBody(error) };
}
