// Reads a JSON object body in the order API.md §3 sets: media type (415), size (413), then JSON (400).
import { ApiError } from './errors.js';
import type { PlainRequest } from './types.js';

/** The body cap: 64 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Deepest nesting of arrays and objects a body may have; an event needs 2. Deeper values overflow the stack of recursive code such as JSON.stringify. */
export const MAX_BODY_DEPTH = 32;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** True for `application/json`, with any parameters but a charset other than UTF-8. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  // What nearly every client sends: answered without splitting it into parameters (every POST and PUT asks).
  if (contentType === 'application/json') return true;
  const [type = '', ...parameters] = contentType.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name = '', value = ''] = parameter.split('=');
    return name.trim().toLowerCase() !== 'charset' || ['utf-8', 'utf8'].includes(value.trim().replace(/"/g, '').toLowerCase());
  });
}

/**
 * For routes that read no body: a body sent anyway must still be declared JSON (415) and fit
 * the cap (413); then it is ignored.
 */
export function checkUnreadBody(request: PlainRequest): void {
  const hasBody = request.body !== null && (request.body.length > 0 || request.bodyTooLarge);
  if (!hasBody) return;
  if (!isJsonMediaType(request.headers['content-type'])) {
    const contentType = request.headers['content-type'];
    throw new ApiError('unsupported_media_type', `A body must be sent with Content-Type: application/json, got ${contentType === undefined ? 'none' : `"${contentType.slice(0, 100)}"`}.`);
  }
  checkContentEncoding(request);
  if (request.bodyTooLarge) throw new ApiError('payload_too_large', `The body must be at most ${MAX_BODY_BYTES} bytes (64 KiB).`);
}

/** A body sent compressed (or in any coding but identity) is a 415 too (RFC 9110 §15.5.16): it is read as it comes. */
function checkContentEncoding(request: PlainRequest): void {
  const coding = request.headers['content-encoding'];
  if (coding === undefined || coding.trim() === '' || coding.trim().toLowerCase() === 'identity') return;
  throw new ApiError('unsupported_media_type', `The body must be sent uncompressed (no Content-Encoding), got Content-Encoding "${coding.slice(0, 100)}".`);
}

/** The request body as a plain JSON object, or an ApiError (415, 413, 400) in contract order. */
export function readJsonObject(request: PlainRequest): Record<string, unknown> {
  const hasBody = request.body !== null && (request.body.length > 0 || request.bodyTooLarge);
  const contentType = request.headers['content-type'];
  if ((hasBody || contentType !== undefined) && !isJsonMediaType(contentType)) {
    const got = contentType === undefined ? 'none' : `"${contentType.slice(0, 100)}"`;
    throw new ApiError('unsupported_media_type', `The body must be sent with Content-Type: application/json, got ${got}.`);
  }
  if (hasBody) checkContentEncoding(request);
  if (request.bodyTooLarge) throw new ApiError('payload_too_large', `The body must be at most ${MAX_BODY_BYTES} bytes (64 KiB).`);
  if (!hasBody) throw new ApiError('bad_request', 'The request needs a JSON object body, and it has none.');
  let text: string;
  try {
    text = utf8.decode(request.body!);
  } catch {
    throw new ApiError('bad_request', 'The body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError('bad_request', `The body is not valid JSON: ${(error as Error).message}.`);
  }
  if (exceedsDepth(text, MAX_BODY_DEPTH)) {
    throw new ApiError('bad_request', `The body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep; send at most ${MAX_BODY_DEPTH}.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new ApiError('bad_request', `The body must be a JSON object, got ${got}.`);
  }
  return value as Record<string, unknown>;
}

/** As readJsonObject, but an empty body reads as `{}` whatever its Content-Type says. */
export function readOptionalJsonObject(request: PlainRequest): Record<string, unknown> {
  const hasBody = request.body !== null && (request.body.length > 0 || request.bodyTooLarge);
  return hasBody ? readJsonObject(request) : {};
}

/** True when valid JSON `text` nests arrays and objects deeper than `max`; a scan, so no recursion. */
function exceedsDepth(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 92 /* \\ */) i++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 91 /* [ */ || code === 123 /* { */) {
      if (++depth > max) return true;
    } else if (code === 93 /* ] */ || code === 125 /* } */) {
      depth--;
    }
  }
  return false;
}
