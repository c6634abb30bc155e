// The plain request and response the core pipeline works on; only the node adapter knows about sockets.
import type { IncomingHttpHeaders } from 'node:http';

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
  /** A request-level fault the adapter saw in the raw headers (duplicate Authorization or Host). */
  headerFault?: string | undefined;
}

/** A response as the core produces it. */
export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  /** The body; null for none. The adapter drops it for HEAD, 204 and 304. */
  body: string | null;
  /** Close the connection after this response (e.g. a 413 whose body was not read). */
  closeConnection?: boolean;
}

/** A response with the key that made it, for the request log. */
export type CoreResponse = PlainResponse & { keyId?: string };
