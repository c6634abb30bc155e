// The one bridge between node:http and the pure core: bytes in (capped at 64 KiB), plain response out.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { MAX_BODY_BYTES } from './body.js';
import { ApiError, HEADERS_TOO_LARGE_MESSAGE } from './errors.js';
import { callCore, edgeError, internalError, internalFailure } from './call-core.js';
import { headerFault, headerLines } from './header-fault.js';
import { logRequest } from './request-log.js';
import { loggedRequestId } from './redact-keys.js';
import { clientRequestId } from './request-id.js';
import { parserFault } from './parser-fault.js';
import { refusedOrigin, requestOfUnknownMethod, startsWithHead } from './refused-bytes.js';
import type { ClientErrorOptions, CoreHandler, CoreResponse, PlainRequest } from './types.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { UnfinishedBodies } from './unfinished-bodies.js';

/**
 * The latest request on each connection. A request pipelined after it runs only once it is answered (RFC 9112
 * §9.3.2): node parses the next request while the one before still waits for its body or its write, and run at once,
 * a GET would read the state from before a PUT sent ahead of it, or a PUT meet an event a DELETE after it had already
 * removed. An answer to a parser error waits for its response too.
 */
const latest = new WeakMap<Socket, Exchange>();

/**
 * Connections whose rest is never read: a body over the cap (or one a client was not invited to send)
 * was left unread, so whatever node parses after it is body bytes or a smuggled request. No later
 * request on such a connection reaches the core; the answer already decided closes it (API.md §3).
 */
const condemned = new WeakSet<Socket>();

/** The request whose unread body condemned its connection: its answer is the connection's last. */
const lastOnConnection = new WeakSet<PlainRequest>();

/** Options of toNodeListener. */
export interface NodeListenerOptions {
  /** Whether shutdown has begun (requests arriving then get 503). */
  isDraining?: () => boolean;
  /**
   * For `Expect: 100-continue`: whether the core would read this request's body (known path and
   * method, a good key). The listener is then the server's `checkContinue` listener: it invites the
   * body only when this says yes, and otherwise answers without reading it and closes.
   */
  mayReadBody?: (request: PlainRequest) => boolean;
  /** Where body reads in progress are kept, so shutdown can answer them (503) when its grace runs out. */
  unfinished?: UnfinishedBodies;
}

/** Adapts the core to a `node:http` request listener, with one log line per request. */
export function toNodeListener(handle: CoreHandler, logger: Logger, options: NodeListenerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const { isDraining = () => false, mayReadBody, unfinished } = options;
  const listener: Listener = { handle, logger, isDraining, logRequests: logger.enabled('info'), unfinished };
  return (req, res) => {
    // A request node parsed after a body that was never read: never run it, never answer it.
    if (condemned.has(req.socket)) return;
    const started = listener.logRequests ? performance.now() : 0;
    const request = plainRequest(req);
    request.arrivedDuringShutdown = isDraining();
    const exchange = new Exchange(listener, res, request, started);
    const before = latest.get(req.socket);
    if (before !== undefined && !before.answered) exchange.before = before;
    latest.set(req.socket, exchange);
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      exchange.run();
      return;
    }
    if (mayReadBody !== undefined) {
      // Expect: 100-continue. A body over the cap, or one the core would refuse before reading (bad key,
      // unknown path), is not invited: answer without it, and close so it is never read.
      if (Number(req.headers['content-length']) > MAX_BODY_BYTES || !mayReadBody(request)) {
        if (Number(req.headers['content-length']) > MAX_BODY_BYTES) request.bodyTooLarge = true;
        request.body = Buffer.alloc(0);
        condemn(req.socket, request);
        exchange.run();
        return;
      }
      res.writeContinue();
    }
    readBody(req, request, exchange);
  };
}

/** What every request of one listener shares. */
interface Listener {
  handle: CoreHandler;
  logger: Logger;
  isDraining: () => boolean;
  logRequests: boolean;
  unfinished: UnfinishedBodies | undefined;
}

/**
 * One request between node:http and the core: runs the core, sends its answer and logs the line. An object
 * per request rather than closures per request (the hot path of every read allocates one small object).
 */
class Exchange {
  /** The request before this one on its connection, when it was not answered yet as this one arrived. */
  before: Exchange | undefined = undefined;
  /** The request after this one on its connection, waiting to run until this one is answered. */
  next: Exchange | undefined = undefined;
  answered = false;
  /** Its body was read before it reached this listener: answered with the 500 of this request id, not run. */
  consumed: string | undefined = undefined;
  /** Bytes the connection had read when this request was answered: more by a keep-alive time-out began a next request. */
  readWhenAnswered = 0;

  constructor(
    readonly listener: Listener,
    readonly res: ServerResponse,
    readonly request: PlainRequest,
    readonly started: number,
  ) {}

  /** Runs the core now, or once the request before this one on the connection is answered. */
  run(): void {
    const before = this.before;
    if (before !== undefined) {
      this.before = undefined;
      if (!before.answered) {
        before.next = this;
        return;
      }
    }
    if (this.consumed !== undefined) this.respond(internalError(this.consumed));
    else callCore(this.listener.handle, this.request, this.listener.logger, this);
  }

  respond(response: CoreResponse): void {
    this.#send(response);
    this.answered = true;
    // The request's socket: a pipelined answer waiting for the one before it has none of its own yet.
    this.readWhenAnswered = this.res.req.socket.bytesRead;
    const next = this.next;
    if (next !== undefined) {
      this.next = undefined;
      // Its own turn, not a deeper frame: a long run of pipelined requests would otherwise nest one call per request.
      queueMicrotask(() => next.run());
    }
  }

  #send(response: CoreResponse): void {
    const { res, request, listener } = this;
    try {
      send(res, request, response, listener.isDraining());
    } catch (error) {
      // A header value node refuses would otherwise throw out of the listener and stop the process.
      const failed = internalFailure(listener.logger, 'response failed', error, response.headers['X-Request-Id']);
      if (!res.headersSent) send(res, request, failed);
      else res.destroy();
    }
    if (listener.logRequests) logRequest(listener.logger, request, response, this.started);
  }
}

/**
 * A `connect` listener. node:http gives CONNECT requests to it instead of the request listener
 * (and, with none, drops the socket unanswered): the core answers them like any other request
 * (400 for an authority target such as `host:443`, 405 on a known path), then the connection closes.
 */
export function answerConnect(handle: CoreHandler, logger: Logger): (req: IncomingMessage, socket: Duplex) => void {
  return (req, socket) => {
    const started = performance.now();
    socket.on('error', () => socket.destroy());
    const request = plainRequest(req);
    callCore(handle, request, logger, {
      respond(response) {
        writeRaw(socket, response);
        if (logger.enabled('info')) logRequest(logger, request, response, started);
      },
    });
  };
}

/** Marks a connection whose remaining bytes are never read nor run (after `request`, answered last), and stops reading it. */
function condemn(socket: Socket, request: PlainRequest): void {
  condemned.add(socket);
  lastOnConnection.add(request);
  socket.pause();
}

function plainRequest(req: IncomingMessage): PlainRequest {
  return {
    method: req.method ?? 'GET',
    target: req.url ?? '/',
    headers: req.headers,
    body: null,
    bodyTooLarge: false,
    remoteAddress: req.socket.remoteAddress ?? '',
    headerFault: headerFault(req),
    // Counted only when the header came at all: it is seldom sent, and the head is walked once more for it.
    idempotencyKeyLines: req.headers['idempotency-key'] === undefined ? 0 : headerLines(req, 'idempotency-key'),
  };
}

/** Reads up to MAX_BODY_BYTES (past that, or with a larger Content-Length, stops reading and marks the request), then runs the exchange. */
function readBody(req: IncomingMessage, request: PlainRequest, exchange: Exchange): void {
  // An embedding that read the body before this handler (a body parser mounted first): nothing more will come, and
  // waiting would hang the request. The host's mistake, not the client's: a 500, and the log says what to change.
  if (req.readableEnded) {
    const requestId = clientRequestId(req.headers['x-request-id']) ?? randomUUID();
    exchange.listener.logger.error('the request body was read before campus-events got the request: mount its handler before any body parser (express.json() and the like), which must leave its requests unread', { request_id: loggedRequestId(requestId), method: request.method, path: request.target.split('?')[0] });
    exchange.consumed = requestId;
    exchange.run();
    return;
  }
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY_BYTES) {
    request.bodyTooLarge = true;
    request.body = Buffer.alloc(0);
    condemn(req.socket, request);
    exchange.run();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  let forget: (() => void) | undefined;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    forget?.();
    req.off('data', onData);
    req.off('end', finish);
    request.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, Math.min(size, MAX_BODY_BYTES));
    exchange.run();
  };
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      request.bodyTooLarge = true;
      condemn(req.socket, request);
      req.pause();
      finish();
      return;
    }
    chunks.push(chunk);
  };
  req.on('data', onData);
  req.on('end', finish);
  req.on('error', () => req.socket.destroy());
  // Shutdown's grace ran out before the body did: the 503 of a request that came too late, then the connection closes.
  forget = exchange.listener.unfinished?.add(() => {
    request.arrivedDuringShutdown = true;
    condemn(req.socket, request);
    const written = new Promise<void>((resolve) => exchange.res.once('close', resolve));
    finish();
    return written;
  });
  // A client that goes away mid-body (or the 30 s request time-out) leaves nothing to answer: let go of it.
  req.once('close', () => {
    if (!finished) forget?.();
  });
}

/** Writes a plain response; no body for HEAD, 204 and 304. */
function send(res: ServerResponse, request: PlainRequest, response: CoreResponse, draining = false): void {
  if (response.stream !== undefined) {
    if (request.method !== 'HEAD' && !res.headersSent && !res.destroyed) {
      sendStream(res, response, response.stream);
      return;
    }
    response.stream.cancel();
  }
  if (res.headersSent || res.destroyed) return;
  const headers = response.headers;
  const body = response.body;
  const bodyless = request.method === 'HEAD' || response.status === 204 || response.status === 304;
  // A handler that knows its body's length in bytes (a list page, summed from its events) says it; else it is counted here.
  // No body (a redirect) is a length of 0, not an empty chunked one.
  if (response.status !== 204 && response.status !== 304) headers['Content-Length'] = body === null ? '0' : String(response.bodyBytes ?? Buffer.byteLength(body));
  // A body over the cap was left unread, whatever the answer: close, or node would read (and drop) the rest of it.
  // (A request pipelined before the condemning one is answered as usual, keep-alive and all.)
  const unread = lastOnConnection.has(request);
  // While shutting down, every answer says the connection ends, so a keep-alive client does not reuse it and meet a reset.
  if (response.closeConnection === true || request.bodyTooLarge || unread || draining) headers['Connection'] = 'close';
  res.writeHead(response.status, headers);
  if (bodyless || body === null) res.end();
  // node's closeIdleConnections (which server.close() calls on a stop) destroys a connection whose response has ended
  // even while its bytes still wait for a slow client: a body ends only once the socket has taken all of it. (A small
  // one waits too: behind a client that stopped reading, the kernel's buffers take none of it.)
  else res.write(body, () => res.end());
  // Once the answer is out, end the connection ourselves: node would otherwise resume reading the unread body.
  if (unread) res.once('finish', () => endSoon(res.socket));
}

/** Sends the head of a streamed response, then lets the stream write; it hears when the connection closes. */
function sendStream(res: ServerResponse, response: CoreResponse, stream: NonNullable<CoreResponse['stream']>): void {
  // A stream's connection is never reused: ending the stream closes it, so shutdown need not wait for it to go idle.
  res.writeHead(response.status, { ...response.headers, Connection: 'close' });
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  let open = true;
  res.once('close', () => {
    open = false;
    stream.cancel();
  });
  stream.start({
    write: (text) => open && res.write(text),
    onDrain: (callback) => res.once('drain', callback),
    end: () => {
      if (open) res.end();
    },
  });
}

/** The latest request answered on `socket` when bytes came after its answer (a next request, begun); else undefined. */
export function answeredBeforeMoreBytes(socket: Socket): object | undefined {
  const last = latest.get(socket);
  return last !== undefined && socket.bytesRead > last.readWhenAnswered ? last : undefined;
}

/**
 * Answers a request node's own parser refused (bad framing, headers over 16 KiB, a stalled client)
 * with a JSON error where a response can still be written, then closes the socket.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket, options: ClientErrorOptions = {}): void {
  const { addCors, handle, logger } = options;
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  // Bytes after an unread body are not a request: the answer already decided (413...) closes the connection.
  if (condemned.has(socket)) return;
  const previous = latest.get(socket)?.res;
  if (previous !== undefined && !previous.writableFinished && previous.req.complete) {
    // A whole request before the faulty one (pipelined) is still being answered: its response goes first.
    previous.once('close', () => answerClientError(error, socket, options));
    return;
  }
  // An unknown method on a known path is a 405 with its Allow; on an unknown one a 404. The core says which.
  const unknownMethod = handle === undefined ? undefined : requestOfUnknownMethod(error, socket.remoteAddress ?? '');
  if (handle !== undefined && unknownMethod !== undefined) {
    const started = performance.now();
    callCore(handle, unknownMethod, logger ?? silentLogger, {
      respond(response) {
        writeRaw(socket, response);
        if (logger?.enabled('info') === true) logRequest(logger, unknownMethod, response, started);
      },
    });
    return;
  }
  let apiError: ApiError;
  if (error.code === 'HPE_HEADER_OVERFLOW') apiError = new ApiError('headers_too_large', HEADERS_TOO_LARGE_MESSAGE);
  else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') apiError = new ApiError('request_timeout', 'The request was not received in time; send headers within 10 s and the whole request within 30 s.');
  else apiError = new ApiError('bad_request', `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'})${parserFault(error)}.`);
  const { request, started } = refusedRequest(socket);
  // Every response carries a request id (API.md §5): the client's, when its head was read (a body that stalled).
  const response = edgeError(apiError, clientRequestId(request.headers['x-request-id']));
  // A page's request gets an answer the page can read (a slow upload's 408 was a "CORS error" in the browser).
  addCors?.(response.headers, refusedOrigin(error, latest.get(socket)?.res.req));
  writeRaw(socket, response, startsWithHead(error));
  // Logged like any answer, so that an operator sees clients cut off (a 408) or sending what is not HTTP.
  if (logger?.enabled('info') === true) logRequest(logger, request, response, started);
}

/** What is known of a request node's parser refused: the one whose body stalled, else only the client's address. */
function refusedRequest(socket: Socket): { request: Pick<PlainRequest, 'method' | 'target' | 'headers' | 'remoteAddress'>; started: number } {
  const pending = latest.get(socket);
  if (pending !== undefined && !pending.answered) return { request: pending.request, started: pending.started };
  return { request: { method: '-', target: '-', headers: {}, remoteAddress: socket.remoteAddress ?? '' }, started: performance.now() };
}

/** Writes a whole response straight to a socket the HTTP machinery has let go of (without its body when `bodyless`), then closes it. */
function writeRaw(socket: Duplex, response: CoreResponse, bodyless = false): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = response.body ?? '';
  let head = `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}\r\n`;
  for (const [name, value] of Object.entries(response.headers)) head += `${name}: ${value}\r\n`;
  socket.end(`${head}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${bodyless ? '' : body}`);
  // Drop whatever else the client sends, and let go of one that never closes its side (a CONNECT tunnel would hold it forever).
  socket.resume();
  setTimeout(() => socket.destroy(), RAW_LINGER_MS).unref();
}

/** Ends a socket (after what was written) and destroys it if the client does not close within RAW_LINGER_MS. */
function endSoon(socket: Duplex | null): void {
  if (socket === null || socket.destroyed) return;
  socket.end();
  setTimeout(() => socket.destroy(), RAW_LINGER_MS).unref();
}

/** How long a socket answered by writeRaw may stay half-open, in ms. */
const RAW_LINGER_MS = 2_000;
