// The one place the pipeline order of API.md §3 is written: request → router → key → rate → role → body → handler.
import { ApiError, errorBody, toApiError } from './http/errors.js';
import type { Router } from './http/router.js';
import { API_VERSION, JSON_TYPE, type HandlerResult, type RequestContext, type Route } from './http/route.js';
import type { CoreResponse, PlainRequest } from './http/types.js';
import { checkUnreadBody, readJsonObject, readOptionalJsonObject } from './http/body.js';
import { loggedRequestId, redactKeys } from './http/redact-keys.js';
import { clientRequestId } from './http/request-id.js';
import { checkQueryEncoding, firstParameterName } from './http/query-string.js';
import type { CorsPolicy } from './http/cors.js';
import { canEver, forbiddenMessage, type Principal } from './auth/principal.js';
import { bearerSecret, heldAddressError, queryKey, unauthorized } from './auth/credentials.js';
import type { KeyRegistry } from './auth/key-registry.js';
import type { LimitDecision } from './limits/sliding-window.js';
import { authFailureKey, type AuthFailureThrottle } from './limits/auth-failures.js';
import type { RateLimiter } from './limits/rate-limiter.js';
import type { Logger } from './log/logger.js';

export interface PipelineDeps {
  router: Router<Route>;
  keys: KeyRegistry;
  limiter: RateLimiter;
  authFailures: AuthFailureThrottle;
  /**
   * Failed authentications counted over every instance (on PostgreSQL): each failure takes a slot of its
   * address's window, and a refused one is the 429. Undefined: this instance's throttle alone decides.
   */
  sharedAuthFailures?: RateLimiter | undefined;
  cors: CorsPolicy;
  logger: Logger;
  /** The clock the rate limit and the failed-authentication throttle count on, in ms since the epoch. */
  now: () => number;
  /** Window length in seconds, for the RateLimit-Policy header. */
  rateWindowSeconds: number;
  /** What this process's own request ids start with (`PREFIX-1`, `PREFIX-2`…): not a secret, it tells processes apart in logs. */
  requestIdPrefix: string;
  /** A path prefix the API is mounted under in a host application, e.g. `/api/campus`; '' for none. */
  basePath?: string;
  /** A wait before any request is handled (an instance that stood still catching up: StallGuard), or undefined. */
  beforeRequest?: (() => Promise<void> | undefined) | undefined;
  /** Headers every answer on a path carries whatever it is (the console's, API.md §10: its 404, 405 and OPTIONS too). */
  pathHeaders?: ((path: string) => Readonly<Record<string, string>> | undefined) | undefined;
}

/** A request that found its route, on its way through the key, rate, role and body steps. */
interface Pending {
  request: PlainRequest;
  route: Route;
  params: Record<string, string>;
  query: string;
  prefix: string;
  /** The path after the prefix, for messages. */
  path: string;
  headers: Record<string, string>;
}

export type { CoreResponse } from './http/types.js';

const ABSOLUTE_FORM = /^https?:\/\/[^/?#@]*(?=[/?#]|$)/i;

/**
 * A target in absolute form (`http://host/events?page=2`, which RFC 9112 §3.2.2 has a server accept, as a proxy
 * sends it) as its path and query; any other target as it came, for `locate` to refuse: one with user information
 * (`http://user:password@host/`) among them, which RFC 9110 §4.2.4 has a recipient treat as an error.
 */
function originForm(target: string): string {
  const authority = ABSOLUTE_FORM.exec(target);
  if (authority === null) return target;
  const rest = target.slice(authority[0].length);
  return rest.charCodeAt(0) === 47 /* '/' */ ? rest : `/${rest}`;
}

/** Builds `handle(request) → response` over plain data; the node adapter is the only caller that touches sockets. */
export function createPipeline(deps: PipelineDeps): {
  handle: (request: PlainRequest) => CoreResponse | Promise<CoreResponse>;
  drain: () => void;
  isDraining: () => boolean;
  mayReadBody: (request: PlainRequest) => boolean;
} {
  const { router, keys, limiter, authFailures, cors, logger, now } = deps;
  const basePath = (deps.basePath ?? '').replace(/\/+$/, '');
  const idPrefix = deps.requestIdPrefix;
  let requestCount = 0;
  let draining = false;

  function handle(request: PlainRequest): CoreResponse | Promise<CoreResponse> {
    const waiting = deps.beforeRequest?.();
    return waiting === undefined ? handleNow(request) : waiting.then(() => handleNow(request));
  }

  function handleNow(request: PlainRequest): CoreResponse | Promise<CoreResponse> {
    // Served as its origin form from here on: routes and a retry's hash see one target, however it was written.
    if (request.target.charCodeAt(0) !== 47 /* '/' */) request = { ...request, target: originForm(request.target) };
    // Echoed as sent (API.md §5), even one shaped like an API key: its sender has it already; the log redacts it.
    const requestId = clientRequestId(request.headers['x-request-id']) ?? `${idPrefix}-${(++requestCount).toString(36)}`;
    const headers: Record<string, string> = { 'API-Version': API_VERSION, 'X-Request-Id': requestId };
    cors.apply(headers, request.headers.origin);
    const preflightFor = cors.preflightMethod(request);
    try {
      // A request that arrived before shutdown began is finished, even if its body came in after.
      if (request.arrivedDuringShutdown ?? draining) throw new ApiError('unavailable', 'The server is shutting down; retry in a moment.');
      if (request.headerFault !== undefined) throw new ApiError(request.headerFault.error, request.headerFault.message);
      // `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7): the methods of every path, no key needed.
      if (request.method === 'OPTIONS' && request.target === '*') {
        const allowed = router.allowedAnywhere();
        headers['Allow'] = allowed.join(', ');
        if (request.headers['access-control-request-method'] !== undefined) cors.applyPreflight(headers, request.headers.origin, allowed);
        return { status: 204, headers, body: null };
      }
      const { path, query, prefix } = locate(request.target);
      const pathHeaders = deps.pathHeaders?.(path);
      if (pathHeaders !== undefined) Object.assign(headers, pathHeaders);
      // A query that is not valid percent-encoded UTF-8 is a fault of the request target itself, like a target starting
      // with `//`: request-level, so it answers 400 before the path, the method and the key are looked at (API.md §3, §5).
      checkQueryEncoding(query);
      const match = router.match(request.method, path);
      // Named as sent (the prefix included): /v1/v1/events is not /v1/events.
      if (match.kind === 'not_found') throw new ApiError('not_found', `No resource at ${redactKeys(prefix + path).slice(0, 100)}; see ${basePath}/openapi.json for the paths this API has.`);
      if (request.method === 'OPTIONS') {
        headers['Allow'] = match.allowed.join(', ');
        if (request.headers['access-control-request-method'] !== undefined) cors.applyPreflight(headers, request.headers.origin, withMethod(match.allowed, preflightFor));
        return { status: 204, headers, body: null };
      }
      if (match.kind === 'method_not_allowed') {
        throw new ApiError('method_not_allowed', `${request.method} is not allowed on ${path.slice(0, 100)}; allowed: ${match.allowed.join(', ')}.`, { headers: { Allow: match.allowed.join(', ') } });
      }
      const route = match.route;
      const pending: Pending = { request, route, params: match.params, query, prefix, path, headers };
      if (!route.auth) return proceed(pending, undefined);
      const fromQuery = route.queryKey === true ? queryKey(request, query) : undefined;
      const secret = fromQuery ?? bearerSecret(request);
      // Only a feed key may travel in a URL; any other key there is refused like an unknown one.
      const usable = (found: Principal | undefined): found is Principal => found !== undefined && (fromQuery === undefined || found.role === 'feed');
      const principal = secret === undefined ? undefined : keys.lookup(secret);
      if (usable(principal)) return proceed(pending, principal);
      // A well-formed key we do not know may have just been made by the CLI: look at keys.json once more.
      if (principal === undefined && secret !== undefined && keys.mayBeNew(secret)) {
        return keys.lookAgain().then(() => {
          const found = keys.lookup(secret);
          return usable(found) ? proceed(pending, found) : refuseKey(pending, secret, fromQuery !== undefined);
        }, (error: unknown) => fail(error, headers, undefined, request));
      }
      return refuseKey(pending, secret, fromQuery !== undefined);
    } catch (error) {
      // A browser asks before a request it may not send. Refused, the page reads only "CORS error"; let through, the
      // request itself gets its answer (a 404 for a mistyped path, a 400 for a bad query), which the page can read.
      if (preflightFor !== undefined && !(error instanceof ApiError && error.code === 'unavailable') && underBasePath(request.target)) {
        cors.applyPreflight(headers, request.headers.origin, [preflightFor]);
        return { status: 204, headers, body: null };
      }
      return fail(error, headers, undefined, request);
    }
  }

  /**
   * For `Expect: 100-continue`: true when the request gets past the steps before the body that
   * decide most refusals (target, path, method, key), so its body is worth inviting. A bad key is not invited.
   */
  function mayReadBody(request: PlainRequest): boolean {
    if (draining || request.headerFault !== undefined) return false;
    let path: string;
    try {
      path = locate(originForm(request.target)).path;
    } catch {
      return false;
    }
    const match = router.match(request.method, path);
    if (match.kind !== 'found') return false;
    if (!match.route.auth) return true;
    const secret = bearerSecret(request);
    // A well-formed key not known yet may be one the CLI has just made: its body is invited, and the look decides.
    return secret !== undefined && (keys.lookup(secret) !== undefined || keys.mayBeNew(secret));
  }

  /** True for a target this API answers for: under its basePath, when it is mounted under one. */
  function underBasePath(target: string): boolean {
    if (basePath === '' || !target.startsWith(basePath)) return basePath === '';
    const next = target.charAt(basePath.length);
    return next === '' || next === '/' || next === '?';
  }

  /** The methods `allowed` and `method`, when a preflight asks for one the path lacks: its request then gets the 405, readable. */
  function withMethod(allowed: readonly string[], method: string | undefined): readonly string[] {
    return method === undefined || allowed.includes(method) ? allowed : [...allowed, method];
  }

  /**
   * Splits a request target into the route's path (the base path and `/v1` taken off), its query and the
   * prefix Location and Link keep. Throws 400 for a target that is not a single-slash path, 404 outside the base path.
   */
  function locate(target: string): { path: string; query: string; prefix: string } {
    if (target.charCodeAt(0) !== 47 /* '/' */ || target.charCodeAt(1) === 47) {
      throw new ApiError('bad_request', `The request target must be a path starting with a single "/", got "${redactKeys(target).slice(0, 80)}".`);
    }
    const queryAt = target.indexOf('?');
    let path = queryAt === -1 ? target : target.slice(0, queryAt);
    const query = queryAt === -1 ? '' : target.slice(queryAt + 1);
    let prefix = basePath;
    if (basePath !== '') {
      if (path !== basePath && !path.startsWith(basePath + '/')) throw new ApiError('not_found', `No resource at ${redactKeys(path).slice(0, 100)}; this API is mounted under ${basePath}.`);
      path = path.slice(basePath.length);
    }
    if (path.startsWith('/v1/')) {
      prefix += '/v1';
      path = path.slice(3);
    }
    return { path, query, prefix };
  }

  /** The steps after the key: rate (429), role (403), body (415, 413, 400), then the handler. */
  function proceed(pending: Pending, principal: Principal | undefined): CoreResponse | Promise<CoreResponse> {
    const { request, headers } = pending;
    const keyId = principal?.keyId;
    /** Set once this request took a rate-limit slot: a 429 after that (a full stream cap) gives it back. */
    let counted = false;
    const failCounted = (error: unknown): CoreResponse => {
      if (counted && toApiError(error).status === 429) {
        limiter.refund(keyId!, now());
        addRateHeaders(limiter.peek(keyId!, now()), headers);
      }
      return fail(error, headers, keyId, request);
    };
    const afterSlot = (): CoreResponse | Promise<CoreResponse> => {
      try {
        return handleCounted(pending, principal, failCounted);
      } catch (error) {
        return failCounted(error);
      }
    };
    try {
      if (principal === undefined) return afterSlot();
      const taken = takeSlot(principal, headers);
      if (taken instanceof Promise) {
        return taken.then(() => {
          counted = true;
          return afterSlot();
        }, failCounted);
      }
      counted = true;
      return afterSlot();
    } catch (error) {
      return failCounted(error);
    }
  }

  /** The steps after the rate limit: role (403), body (415, 413, 400), then the handler. */
  function handleCounted(pending: Pending, principal: Principal | undefined, failCounted: (error: unknown) => CoreResponse): CoreResponse | Promise<CoreResponse> {
    const { request, route, headers } = pending;
    const keyId = principal?.keyId;
    if (principal !== undefined) {
      if (route.action !== undefined && !canEver(principal.role, route.action)) {
        throw new ApiError('forbidden', forbiddenMessage(principal.role, route.action, route.name, route.actionWords));
      }
    }
    let body: Record<string, unknown> | undefined;
    if (route.body === true) body = readJsonObject(request);
    else if (route.body === 'optional') body = readOptionalJsonObject(request);
    else checkUnreadBody(request);
    if (route.query !== true && pending.query !== '') {
      throw new ApiError('bad_request', `Unknown query parameter ${firstParameterName(pending.query)}: ${request.method} ${pending.prefix}${pending.path.slice(0, 100)} takes no query parameters.`);
    }
    const context: RequestContext = { request, params: pending.params, query: pending.query, prefix: pending.prefix, principal, body };
    const result = route.handle(context);
    if (result instanceof Promise) return result.then((value) => finish(value, headers, keyId), failCounted);
    return finish(result, headers, keyId);
  }

  /**
   * Answers a request without a good key: the 429 while its address is held by the throttle on failed authentications,
   * else the failure is counted (over every instance, with `sharedAuthFailures`) and the answer is the 401.
   */
  function refuseKey(pending: Pending, secret: string | undefined, inQuery = false): CoreResponse | Promise<CoreResponse> {
    const failed = (error: unknown): CoreResponse => fail(error, pending.headers, undefined, pending.request);
    const refuse = (shared: LimitDecision | undefined): never => {
      const at = now();
      throwIfHeld(pending.request, at, shared);
      authFailures.recordFailure(pending.request.remoteAddress, at);
      throw unauthorized(pending.request, secret, inQuery);
    };
    try {
      const at = now();
      throwIfHeld(pending.request, at);
      const shared = deps.sharedAuthFailures?.take(authFailureKey(pending.request.remoteAddress), at);
      if (!(shared instanceof Promise)) return refuse(shared);
      return shared.then((decision) => {
        try {
          return refuse(decision);
        } catch (error) {
          return failed(error);
        }
      }, failed);
    } catch (error) {
      return failed(error);
    }
  }

  /** Throws the 429 while `request`'s address is held: by this instance's count, or by every instance's (`shared` refused). */
  function throwIfHeld(request: PlainRequest, at: number, shared?: LimitDecision): void {
    const blocked = shared === undefined || shared.allowed ? authFailures.isBlocked(request.remoteAddress, at) : { blocked: true, retryAfterSeconds: shared.resetSeconds };
    if (blocked.blocked) throw heldAddressError(authFailures.maxFailures, blocked.retryAfterSeconds);
  }

  function takeSlot(principal: Principal, headers: Record<string, string>): void | Promise<void> {
    const decision = limiter.take(principal.keyId, now());
    if (decision instanceof Promise) return decision.then((settled) => admit(settled, headers));
    admit(decision, headers);
  }

  function admit(decision: LimitDecision, headers: Record<string, string>): void {
    addRateHeaders(decision, headers);
    if (!decision.allowed) {
      const retry = String(Math.max(1, Math.min(decision.resetSeconds, deps.rateWindowSeconds)));
      throw new ApiError('rate_limited', `This key has made ${decision.limit} requests in the last ${deps.rateWindowSeconds} s, its limit; retry in ${retry} s.`, {
        headers: { 'Retry-After': retry, 'Cache-Control': 'no-store' },
      });
    }
  }

  const limitHeader = String(limiter.limit);
  const policyHeader = `"default";q=${limiter.limit};w=${deps.rateWindowSeconds}`;

  function addRateHeaders(decision: LimitDecision, headers: Record<string, string>): void {
    // The ring frees a slot up to 1/60 of a window late (API.md §6 allows it); never announce more than a window.
    const reset = Math.min(decision.resetSeconds, deps.rateWindowSeconds);
    headers['RateLimit-Limit'] = limitHeader;
    headers['RateLimit-Remaining'] = String(decision.remaining);
    headers['RateLimit-Reset'] = String(reset);
    headers['RateLimit-Policy'] = policyHeader;
    headers['RateLimit'] = `"default";r=${decision.remaining};t=${reset}`;
  }

  function finish(result: HandlerResult, headers: Record<string, string>, keyId: string | undefined): CoreResponse {
    if (result.headers !== undefined) Object.assign(headers, result.headers);
    if (result.body !== null) headers['Content-Type'] ??= JSON_TYPE;
    if (result.stream !== undefined) return { status: result.status, headers, body: null, keyId, stream: result.stream };
    return result.bodyBytes === undefined ? { status: result.status, headers, body: result.body, keyId } : { status: result.status, headers, body: result.body, keyId, bodyBytes: result.bodyBytes };
  }

  function fail(thrown: unknown, headers: Record<string, string>, keyId: string | undefined, request: PlainRequest): CoreResponse {
    const error = toApiError(thrown);
    if (error.status === 500) {
      logger.error('request failed', { request_id: loggedRequestId(headers['X-Request-Id'] ?? ''), method: request.method, path: redactKeys(request.target).slice(0, 200), error: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown) });
    }
    if (error.headers !== undefined) Object.assign(headers, error.headers);
    // Every 429 must not be cached (API.md §6), nor any other error: a browser keeps a 410 without one for good (a change
    // feed's "start again from since=0" then never reached the server), and a refusal is about that moment.
    headers['Cache-Control'] = 'no-store';
    headers['Content-Type'] = JSON_TYPE;
    const closeConnection = request.bodyTooLarge || draining;
    return { status: error.status, headers, body: errorBody(error), keyId, closeConnection };
  }

  return {
    handle,
    mayReadBody,
    drain: () => {
      draining = true;
    },
    isDraining: () => draining,
  };
}
