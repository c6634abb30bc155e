// The plain request and response the core pipeline works on; only the node adapter knows about sockets.
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from '../log/logger.js';

/** A request as the core sees it: plain data, already read from the socket. */
export interface PlainRequest {
  method: string;
  /** The request target exactly as sent, path and query. */
  target: string;
  /** Header names in lower case, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The body bytes, or null when the request carried none. */
  body: Buffer | null;
  /** True when the body was over the size cap; then `body` holds only what was read. */
  bodyTooLarge: boolean;
  /** The client's address, for limiting failed authentications. */
  remoteAddress: string;
  /**
   * Whether shutdown had begun when the request arrived (before its body was read). Requests
   * in flight at shutdown are finished; later ones get 503. Undefined: judge when handled.
   */
  arrivedDuringShutdown?: boolean;
  /** A request-level fault the adapter saw in the raw head (duplicate Authorization or Host, a head over 16 KiB). */
  headerFault?: { error: 'bad_request' | 'headers_too_large'; message: string } | undefined;
  /** How many Idempotency-Key lines the head held, which node joined into one value with ", "; undefined: one at most. */
  idempotencyKeyLines?: number;
}

/** Where a streamed body goes: the adapter's side of a ResponseStream. */
export interface StreamSink {
  /** Writes text; false when the socket's buffer is full: write again after `onDrain`. */
  write(text: string): boolean;
  /** Calls `callback` once when the buffer has room again. */
  onDrain(callback: () => void): void;
  /** Ends the response cleanly (the connection then closes). */
  end(): void;
}

/** A body written as it comes (Server-Sent Events), instead of all at once. */
export interface ResponseStream {
  /** Called once the head is sent: from now on the stream writes through `sink`. */
  start(sink: StreamSink): void;
  /** The connection closed (the client left, or the stream ended): stop writing and let go of everything. Called once. */
  cancel(): void;
}

/** A response as the core produces it. */
export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  /** The body; null for none. The adapter drops it for HEAD, 204 and 304. */
  body: string | null;
  /** A streamed body instead of `body` (which is then null): the adapter sends the head, then hands it a sink. */
  stream?: ResponseStream;
  /** The body's length in UTF-8 bytes when known (a list page sums its events'); else the adapter counts it. */
  bodyBytes?: number;
  /** Close the connection after this response (e.g. a 413 whose body was not read). */
  closeConnection?: boolean;
}

/** A response with the key that made it, for the request log. */
export type CoreResponse = PlainResponse & { keyId?: string };

/** The core as the node:http bridge calls it: a request in, a response out (at once or later). */
export type CoreHandler = (request: PlainRequest) => CoreResponse | Promise<CoreResponse>;

/** What the answer to a request node's parser refused may use: the CORS headers of an allowed origin, and the core and the log for an unknown method's request. */
export interface ClientErrorOptions {
  addCors?: (headers: Record<string, string>, origin: string | undefined) => void;
  handle?: CoreHandler;
  logger?: Logger;
}
