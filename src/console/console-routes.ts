// The console's routes (API.md §10): `/` redirects to it, `/console/` and its files need no key and carry strict headers.
import { ApiError } from '../http/errors.js';
import type { HandlerResult, RequestContext, Route } from '../http/route.js';
import { matchesNoneMatch } from '../http/conditional.js';
import type { ConsoleAssets } from './console-assets.js';

/**
 * Sent with every console response, errors included: only this origin's files run (no inline
 * script, no eval), the page cannot be framed, types are not sniffed, and no address leaks to other sites.
 */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': "default-src 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
});

/** The console's routes over files already in memory; register them only when the console is on. */
export function consoleRoutes(assets: ConsoleAssets): { method: string; pattern: string; route: Route }[] {
  const redirect: Route = {
    name: 'consoleRedirect',
    auth: false,
    body: false,
    query: true,
    handle: (context) => ({ status: 302, body: null, headers: { ...CONSOLE_HEADERS, 'Cache-Control': 'no-cache', Location: `${context.prefix}/console/` } }),
  };
  const page: Route = {
    name: 'consolePage',
    auth: false,
    body: false,
    // The page keeps its state in the fragment; a query (a cache-buster, a bookmarklet's) is ignored, not refused.
    query: true,
    handle: (context) => serve(assets, 'index.html', context),
  };
  // One route per file, so a path the console has no file for is a 404 whatever the method (API.md §3: path before method).
  const files = [...assets.keys()].map((name) => ({
    method: 'GET',
    pattern: `/console/${name}`,
    route: { name: 'consoleFile', auth: false, body: false, query: true, handle: (context) => serve(assets, name, context) } satisfies Route,
  }));
  // Browsers ask every site for /favicon.ico; the console's icon answers, so no first load logs a 404.
  const icon: Route = { name: 'consoleIcon', auth: false, body: false, query: true, handle: (context) => serve(assets, 'icon.svg', context) };
  return [
    { method: 'GET', pattern: '/', route: redirect },
    { method: 'GET', pattern: '/favicon.ico', route: icon },
    { method: 'GET', pattern: '/console', route: redirect },
    { method: 'GET', pattern: '/console/', route: page },
    ...files,
  ];
}

/** The console's headers for a path of the console (see isConsolePattern), whatever the answer; undefined for any other. */
export function consolePathHeaders(path: string): Readonly<Record<string, string>> | undefined {
  return isConsolePattern(path) ? CONSOLE_HEADERS : undefined;
}

/** True for the console's paths (`/`, `/favicon.ico`, `/console`, `/console/...`), which the OpenAPI document of the API leaves out. */
export function isConsolePattern(pattern: string): boolean {
  return pattern === '/' || pattern === '/favicon.ico' || pattern === '/console' || pattern.startsWith('/console/');
}

/** One file: 200 with its ETag, 304 when the client holds it, 404 (with the console headers) when there is none. */
function serve(assets: ConsoleAssets, name: string, context: RequestContext): HandlerResult {
  const asset = assets.get(name);
  if (asset === undefined) {
    const why = assets.size === 0 ? ' This build has no console files (dist/console/web/); run `make build`.' : '';
    throw new ApiError('not_found', `The console has no file "${name.slice(0, 100)}".${why}`, { headers: { ...CONSOLE_HEADERS } });
  }
  const headers = { ...CONSOLE_HEADERS, 'Cache-Control': 'no-cache', ETag: asset.etag };
  if (matchesNoneMatch(context.request.headers['if-none-match'], asset.etag)) return { status: 304, body: null, headers };
  return { status: 200, body: asset.body, headers: { ...headers, 'Content-Type': asset.contentType } };
}
