// What a route is: its rules for the pipeline (key needed, action for the role table, JSON body) and its handler.
import type { Action, Principal } from '../auth/principal.js';
import type { PlainRequest, ResponseStream } from './types.js';

/** What a handler sees: the request, its path parameters and query, the caller, the parsed body. */
export interface RequestContext {
  request: PlainRequest;
  params: Record<string, string>;
  /** The raw query string without `?`, empty when there is none. */
  query: string;
  /** `/v1` when the request came in under it, else empty: Location and Link keep it. */
  prefix: string;
  /** The caller; undefined only on routes that need no key. */
  principal: Principal | undefined;
  /** The JSON object body, on routes that read one. */
  body: Record<string, unknown> | undefined;
}

/** What a handler returns; the pipeline adds the common headers (and `Content-Type` JSON, unless the handler set one). */
export interface HandlerResult {
  status: number;
  body: string | null;
  /** Extra headers; a `Content-Type` here replaces the JSON one the pipeline puts on a body. */
  headers?: Record<string, string>;
  /** A streamed body (body null): see PlainResponse.stream. */
  stream?: ResponseStream;
  /** The body's length in UTF-8 bytes, when the handler knows it without counting (see PlainResponse.bodyBytes). */
  bodyBytes?: number;
}

export interface Route {
  /** A short name for logs and the OpenAPI operationId. */
  name: string;
  /** False for /health and /openapi.json. */
  auth: boolean;
  /** The role-table action; a role that can never do it gets 403 before the body is read. */
  action?: Action;
  /** What the route does, for that 403 ("A feed key may not read registrations."), where the action's words say otherwise. */
  actionWords?: string;
  /** Reads a JSON object body (415, 413, 400 come from it); `'optional'`: an empty body reads as `{}`. */
  body: boolean | 'optional';
  /** Takes query parameters (and checks them itself); any query on other routes is a 400. */
  query?: boolean;
  /**
   * Also takes the key as `?key=`, for a key of role `feed` only (calendar programs cannot send
   * headers; API.md §9.1). The pipeline checks it; the handler just skips the `key` parameter.
   */
  queryKey?: boolean;
  handle(context: RequestContext): HandlerResult | Promise<HandlerResult>;
}

/** `Content-Type` of every JSON response. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** The version of this API, in every answer's API-Version header and in the OpenAPI document (API.md §5). */
export const API_VERSION = '1.0';
