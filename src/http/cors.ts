// CORS for the configured browser origins: preflight answers and the headers on allowed responses.

// WWW-Authenticate too: a browser client can then tell a missing key from an invalid one (RFC 6750 error="invalid_token");
// and Idempotent-Replayed, so a retry can tell that its answer is the remembered one.
// Allow, so a 405 tells a page which methods the path has.
export const EXPOSED_HEADERS = 'ETag, Location, Link, Retry-After, X-Request-Id, API-Version, WWW-Authenticate, Idempotent-Replayed, Last-Seq, Allow, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, RateLimit';
/** How long a browser may keep a preflight's answer, in seconds. */
export const PREFLIGHT_MAX_AGE_S = 600;
/** An HTTP method as RFC 9110 writes one (a token): what a preflight may ask for and have named back. */
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;
// Beyond the contract's four: the headers a browser client sends for safe retries (Idempotency-Key) and to resume the change stream.
export const ALLOWED_HEADERS = 'Authorization, Content-Type, If-Match, If-None-Match, X-Request-Id, Idempotency-Key, Last-Event-ID';

/**
 * An origin as a browser sends it in `Origin`: the scheme and host in lower case, no default port
 * (`HTTPS://Events.Campus.edu:443` → `https://events.campus.edu`). Undefined when `text` is not an http(s) origin.
 */
export function browserOrigin(text: string): string | undefined {
  return /^https?:\/\/[^/\\\s?#@]+$/i.test(text) ? urlOrigin(text) : undefined;
}

/** For what looks like an address with a path (`https://events.campus.edu/`), the origin it names; else undefined. */
export function originOfAddress(text: string): string | undefined {
  return /^https?:\/\/[^/\\\s?#@]+[/?#]/i.test(text) ? urlOrigin(text) : undefined;
}

function urlOrigin(text: string): string | undefined {
  try {
    return new URL(text).origin;
  } catch {
    return undefined; // a bad port or host
  }
}

/** Decides which origins are allowed and adds their headers. */
export class CorsPolicy {
  readonly #origins: ReadonlySet<string>;

  /** `origins` as configured (checked by the caller): each allows itself as written and as a browser sends it. */
  constructor(origins: readonly string[]) {
    this.#origins = new Set(origins.flatMap((origin) => [origin, browserOrigin(origin) ?? origin]));
  }

  get enabled(): boolean {
    return this.#origins.size > 0;
  }

  /**
   * The method a CORS preflight from an allowed origin asks about (OPTIONS with Origin and
   * Access-Control-Request-Method), or undefined for any other request.
   */
  preflightMethod(request: { method: string; headers: Record<string, string | string[] | undefined> }): string | undefined {
    if (request.method !== 'OPTIONS') return undefined;
    const origin = request.headers['origin'];
    const method = request.headers['access-control-request-method'];
    if (typeof origin !== 'string' || !this.#origins.has(origin) || typeof method !== 'string' || !METHOD.test(method)) return undefined;
    return method;
  }

  /** Adds the headers for a normal response to an allowed origin (and `Vary: Origin` whenever CORS is on). */
  apply(headers: Record<string, string>, origin: string | undefined): void {
    if (this.#origins.size === 0) return;
    headers['Vary'] = 'Origin';
    if (origin === undefined || !this.#origins.has(origin)) return;
    headers['Access-Control-Allow-Origin'] = origin;
    headers['Access-Control-Expose-Headers'] = EXPOSED_HEADERS;
  }

  /** Adds the headers of a preflight answer (OPTIONS with Access-Control-Request-Method) for an allowed origin. */
  applyPreflight(headers: Record<string, string>, origin: string | undefined, allowed: readonly string[]): void {
    this.apply(headers, origin);
    if (origin === undefined || !this.#origins.has(origin)) return;
    headers['Access-Control-Allow-Methods'] = allowed.join(', ');
    headers['Access-Control-Allow-Headers'] = ALLOWED_HEADERS;
    headers['Access-Control-Max-Age'] = String(PREFLIGHT_MAX_AGE_S);
  }
}
