// CORS for the configured browser origins: preflight answers and the headers on allowed responses.

// WWW-Authenticate too: a browser client can then tell a missing key from an invalid one (RFC 6750 error="invalid_token");
// and Idempotent-Replayed, so a retry can tell that its answer is the remembered one.
const EXPOSED = 'ETag, Location, Link, Retry-After, X-Request-Id, API-Version, WWW-Authenticate, Idempotent-Replayed, Last-Seq, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, RateLimit';
// Beyond the contract's four: the headers a browser client sends for safe retries (Idempotency-Key) and to resume the change stream.
const ALLOWED_HEADERS = 'Authorization, Content-Type, If-Match, If-None-Match, X-Request-Id, Idempotency-Key, Last-Event-ID';

/** Decides which origins are allowed and adds their headers. */
export class CorsPolicy {
  readonly #origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.#origins = new Set(origins);
  }

  get enabled(): boolean {
    return this.#origins.size > 0;
  }

  /** Adds the headers for a normal response to an allowed origin (and `Vary: Origin` whenever CORS is on). */
  apply(headers: Record<string, string>, origin: string | undefined): void {
    if (this.#origins.size === 0) return;
    headers['Vary'] = 'Origin';
    if (origin === undefined || !this.#origins.has(origin)) return;
    headers['Access-Control-Allow-Origin'] = origin;
    headers['Access-Control-Expose-Headers'] = EXPOSED;
  }

  /** Adds the headers of a preflight answer (OPTIONS with Access-Control-Request-Method) for an allowed origin. */
  applyPreflight(headers: Record<string, string>, origin: string | undefined, allowed: readonly string[]): void {
    this.apply(headers, origin);
    if (origin === undefined || !this.#origins.has(origin)) return;
    headers['Access-Control-Allow-Methods'] = allowed.join(', ');
    headers['Access-Control-Allow-Headers'] = ALLOWED_HEADERS;
    headers['Access-Control-Max-Age'] = '600';
  }
}
