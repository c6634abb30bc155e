// The one bridge between node:http and the pure core: bytes in (capped at 64 KiB), plain response out.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { MAX_BODY_BYTES } from './body.js';
import { errorBody, ApiError, INTERNAL_MESSAGE } from './errors.js';
import type { PlainRequest } from './types.js';
import { JSON_TYPE } from './route.js';
import type { CoreResponse } from '../pipeline.js';
import type { Logger } from '../log/logger.js';

export type CoreHandler = (request: PlainRequest) => CoreResponse | Promise<CoreResponse>;

/** Adapts the core to a `node:http` request listener, with one log line per request. */
export function toNodeListener(handle: CoreHandler, logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  const logRequests = logger.enabled('info');
  return (req, res) => {
    const started = logRequests ? performance.now() : 0;
    const request: PlainRequest = {
      method: req.method ?? 'GET',
      target: req.url ?? '/',
      headers: req.headers,
      body: null,
      bodyTooLarge: false,
      remoteAddress: req.socket.remoteAddress ?? '',
      headerFault: headerFault(req.rawHeaders),
    };
    const respond = (response: CoreResponse): void => {
      send(res, request, response);
      if (logRequests) {
        logger.info('request', {
          request_id: response.headers['X-Request-Id'],
          method: request.method,
          path: request.target.length > 200 ? request.target.slice(0, 200) : request.target,
          status: response.status,
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
          key_id: response.keyId,
        });
      }
    };
    const run = (): void => {
      let result: CoreResponse | Promise<CoreResponse>;
      try {
        result = handle(request);
      } catch (error) {
        logger.error('core threw', { error: String(error) });
        result = internalError();
      }
      if (result instanceof Promise) {
        result.then(respond, (error: unknown) => {
          logger.error('core threw', { error: String(error) });
          respond(internalError());
        });
      } else {
        respond(result);
      }
    };
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      run();
      return;
    }
    readBody(req, request, run);
  };
}

/** The 500 sent if the core itself fails: still a JSON error with the headers every response carries. */
function internalError(): CoreResponse {
  return {
    status: 500,
    headers: { 'API-Version': '1.0', 'X-Request-Id': randomUUID(), 'Content-Type': JSON_TYPE },
    body: errorBody(new ApiError('internal', INTERNAL_MESSAGE)),
  };
}

/** Reads up to MAX_BODY_BYTES; past that (or a larger Content-Length) stops reading and marks the request. */
function readBody(req: IncomingMessage, request: PlainRequest, done: () => void): void {
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY_BYTES) {
    request.bodyTooLarge = true;
    request.body = Buffer.alloc(0);
    done();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    req.off('data', onData);
    req.off('end', finish);
    request.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, Math.min(size, MAX_BODY_BYTES));
    done();
  };
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      request.bodyTooLarge = true;
      req.pause();
      finish();
      return;
    }
    chunks.push(chunk);
  };
  req.on('data', onData);
  req.on('end', finish);
  req.on('error', () => req.socket.destroy());
}

/** Writes a plain response; no body for HEAD, 204 and 304. */
function send(res: ServerResponse, request: PlainRequest, response: CoreResponse): void {
  if (res.headersSent || res.destroyed) return;
  const headers = response.headers;
  const body = response.body;
  const bodyless = request.method === 'HEAD' || response.status === 204 || response.status === 304;
  if (body !== null && response.status !== 204 && response.status !== 304) headers['Content-Length'] = String(Buffer.byteLength(body));
  if (response.closeConnection === true) headers['Connection'] = 'close';
  res.writeHead(response.status, headers);
  if (bodyless || body === null) res.end();
  else res.end(body);
}

/** A request-level fault visible only in the raw headers: two Authorization or two Host headers. */
function headerFault(rawHeaders: string[]): string | undefined {
  let authorization = 0;
  let host = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorization++;
    else if (name.length === 4 && name.toLowerCase() === 'host') host++;
  }
  if (authorization > 1) return 'The request has more than one Authorization header; send exactly one.';
  if (host > 1) return 'The request has more than one Host header; send exactly one.';
  return undefined;
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large', 503: 'Service Unavailable' };

/**
 * Answers a request node's own parser refused (bad framing, headers over 16 KiB, a stalled client)
 * with a JSON error where a response can still be written, then closes the socket.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  let apiError: ApiError;
  if (error.code === 'HPE_HEADER_OVERFLOW') apiError = new ApiError('headers_too_large', 'The request line and headers must be at most 16 KiB.');
  else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') apiError = new ApiError('request_timeout', 'The request was not received in time; send headers within 10 s and the whole request within 30 s.');
  else apiError = new ApiError('bad_request', `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}).`);
  const body = errorBody(apiError);
  socket.end(
    `HTTP/1.1 ${apiError.status} ${REASONS[apiError.status] ?? 'Error'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'API-Version: 1.0\r\n' +
      // Every response carries a request id (API.md §5); the request's own was not parsed, so a new one.
      `X-Request-Id: ${randomUUID()}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
