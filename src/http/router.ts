// Routes as data: one table answers "which handler" and "which methods are allowed here".

/** The outcome of matching a path and method against the table. */
export type RouteMatch<T> =
  | { kind: 'found'; route: T; params: Record<string, string>; allowed: readonly string[] }
  | { kind: 'method_not_allowed'; allowed: readonly string[] }
  | { kind: 'not_found' };

interface PathEntry<T> {
  segments: readonly string[];
  byMethod: Map<string, T>;
  /** Every method of the path, HEAD and OPTIONS included, for `Allow`. */
  allowed: string[];
}

/** A router over path patterns such as `/events/:id`; `HEAD` answers wherever `GET` does. */
export class Router<T> {
  readonly #paths: PathEntry<T>[] = [];

  /** Adds a route; `pattern` segments starting with `:` capture a parameter. */
  add(method: string, pattern: string, route: T): this {
    const segments = pattern.split('/').slice(1);
    let entry = this.#paths.find((candidate) => candidate.segments.join('/') === segments.join('/'));
    if (entry === undefined) {
      entry = { segments, byMethod: new Map(), allowed: [] };
      this.#paths.push(entry);
    }
    entry.byMethod.set(method, route);
    entry.allowed = allowedMethods(entry.byMethod);
    return this;
  }

  /** Finds the route for a path (no query, no prefix) and method. */
  match(method: string, path: string): RouteMatch<T> {
    for (const entry of this.#paths) {
      const params = matchPath(entry.segments, path);
      if (params === undefined) continue;
      const route = entry.byMethod.get(method) ?? (method === 'HEAD' ? entry.byMethod.get('GET') : undefined);
      if (route === undefined) return { kind: 'method_not_allowed', allowed: entry.allowed };
      return { kind: 'found', route, params, allowed: entry.allowed };
    }
    return { kind: 'not_found' };
  }

  /** Every method some path allows, for `OPTIONS *` (the server as a whole). */
  allowedAnywhere(): string[] {
    return allowedMethods(new Map(this.#paths.flatMap((entry) => [...entry.byMethod])));
  }

  /** Every pattern with its methods, for documentation and its coverage test. */
  routes(): { pattern: string; methods: string[] }[] {
    return this.#paths.map((entry) => ({ pattern: '/' + entry.segments.join('/'), methods: [...entry.byMethod.keys()] }));
  }
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

function allowedMethods(byMethod: Map<string, unknown>): string[] {
  const methods = new Set(byMethod.keys());
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  return [...methods].sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b));
}

/** Matches `path` against pattern segments without splitting it (this runs on every request). */
function matchPath(pattern: readonly string[], path: string): Record<string, string> | undefined {
  if (path.charCodeAt(0) !== 47 /* '/' */) return undefined;
  let params: Record<string, string> | undefined;
  let start = 1;
  for (let i = 0; i < pattern.length; i++) {
    const slash = path.indexOf('/', start);
    const last = i === pattern.length - 1;
    if (last ? slash !== -1 : slash === -1) return undefined;
    const end = last ? path.length : slash;
    const expected = pattern[i]!;
    if (expected.charCodeAt(0) === 58 /* ':' */) {
      if (end === start) return undefined;
      params ??= {};
      params[expected.slice(1)] = decodeSegment(path.slice(start, end));
    } else if (end - start !== expected.length || !path.startsWith(expected, start)) {
      return undefined;
    }
    start = end + 1;
  }
  return params ?? EMPTY_PARAMS;
}

/**
 * A parameter (or a path) as the client meant it: `%65vt_…` is `evt_…` (RFC 3986 §6.2.2.2). One that is not valid
 * percent-encoding is kept as sent, so its 404 names what came.
 */
export function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const EMPTY_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
