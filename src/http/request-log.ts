// The request log line of one answered request: its id, method, path and client, with keys redacted and long values clipped.
import type { Logger } from '../log/logger.js';
import { loggedRequestId, redactKeys } from './redact-keys.js';
import type { CoreResponse, PlainRequest } from './types.js';

/** Writes the line for `request`, answered with `response`, `started` being its performance.now() on arrival. */
export function logRequest(logger: Logger, request: Pick<PlainRequest, 'method' | 'target' | 'headers' | 'remoteAddress'>, response: CoreResponse, started: number): void {
  const path = redactKeys(withoutUserInfo(request.target));
  logger.request({
    requestId: loggedRequestId(response.headers['X-Request-Id'] ?? ''),
    method: request.method,
    path: path.length > 200 ? path.slice(0, 200) : path,
    status: response.status,
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    keyId: response.keyId,
    client: request.remoteAddress,
    userAgent: clippedUserAgent(request.headers['user-agent']),
  });
}

/** A target in absolute form without a password it may carry (`http://user:pw@host/…`, refused, but logged). */
function withoutUserInfo(target: string): string {
  return target.charCodeAt(0) === 47 /* '/' */ ? target : target.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/, '$1[redacted]@');
}

/** Longest User-Agent kept in a log line, in characters. */
const MAX_USER_AGENT = 120;

/** The User-Agent for a log line: clipped, keys redacted; undefined when none was sent. */
function clippedUserAgent(userAgent: string | undefined): string | undefined {
  if (userAgent === undefined) return undefined;
  const redacted = redactKeys(userAgent);
  return redacted.length > MAX_USER_AGENT ? `${redacted.slice(0, MAX_USER_AGENT)}…` : redacted;
}
