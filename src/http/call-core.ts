// The core run for one request: its answer handed on (at once when it answered synchronously), a throw or a rejection
// turned into the JSON 500 every response's headers come with.
import { randomUUID } from 'node:crypto';
import { errorBody, ApiError, INTERNAL_MESSAGE } from './errors.js';
import { JSON_TYPE } from './route.js';
import type { Logger } from '../log/logger.js';
import type { CoreHandler, CoreResponse, PlainRequest } from './types.js';

/** Runs the core and hands its response to `to.respond` (at once when the core answered synchronously); a throw or a rejection becomes the JSON 500. */
export function callCore(handle: CoreHandler, request: PlainRequest, logger: Logger, to: { respond(response: CoreResponse): void }): void {
  let result: CoreResponse | Promise<CoreResponse>;
  try {
    result = handle(request);
  } catch (error) {
    logger.error('core threw', { error: String(error) });
    result = internalError();
  }
  if (result instanceof Promise) {
    result.then(
      (response) => to.respond(response),
      (error: unknown) => {
        logger.error('core threw', { error: String(error) });
        to.respond(internalError());
      },
    );
  } else {
    to.respond(result);
  }
}

/** The 500 sent if the core itself fails: still a JSON error with the headers every response carries. */
export function internalError(): CoreResponse {
  return {
    status: 500,
    headers: { 'API-Version': '1.0', 'X-Request-Id': randomUUID(), 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store' },
    body: errorBody(new ApiError('internal', INTERNAL_MESSAGE)),
  };
}
