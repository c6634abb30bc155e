// What a request node's parser refused says in the bytes it failed on (its error's rawPacket): its Origin, whether it
// is a HEAD, and, for a method node does not know, the whole request.
import type { IncomingMessage } from 'node:http';
import { HEADERS_TOO_LARGE_MESSAGE, MAX_HEAD_BYTES } from './errors.js';
import { headerFault } from './header-fault.js';
import type { PlainRequest } from './types.js';

/** The bytes node failed on, as latin1 text (one character a byte); undefined when node gave none. */
function rawText(error: NodeJS.ErrnoException): string | undefined {
  const raw = (error as { rawPacket?: unknown }).rawPacket;
  return Buffer.isBuffer(raw) ? raw.toString('latin1') : undefined;
}

/** The Origin of the request node refused: from its head when node parsed it (a body that stalled), else from its bytes. */
export function refusedOrigin(error: NodeJS.ErrnoException, req: IncomingMessage | undefined): string | undefined {
  if (req !== undefined && !req.complete) return typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
  const text = rawText(error);
  return text === undefined ? undefined : /\r\norigin:[ \t]*([^\r\n]*?)[ \t]*\r\n/i.exec(text)?.[1];
}

/** True when the bytes node failed on begin a HEAD request, whose answer must not carry a body (clients would misread it). */
export function startsWithHead(error: NodeJS.ErrnoException): boolean {
  return rawText(error)?.startsWith('HEAD ') === true;
}

/** `METHOD target HTTP/1.x` (node reads HTTP/2.0 as 1.1): the method a token (RFC 9110 §5.6.2), the target visible ASCII. */
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) +([\x21-\x7e]+) +HTTP\/(1\.[01]|2\.0)$/;
/** `Name: value`: the name a token, the value without control characters but HTAB (no folded lines). */
const FIELD_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([^\x00-\x08\x0a-\x1f\x7f]*?)[ \t]*$/;
/** A character of a token. */
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

/**
 * The request node refused for its method alone (FOO, get, MERGE): it is HTTP all the same (RFC 9110 §9.1: a method
 * is any token, and case-sensitive), so it gets what a known method would, the request-level faults of its head first
 * (headerFault), then the 404 or 405 of its path (API.md §3). Undefined for any other fault, or when its head is not
 * all in the bytes node failed on (it came in pieces) or is not one node's parser would take: a 400 answers it then.
 */
export function requestOfUnknownMethod(error: NodeJS.ErrnoException, remoteAddress: string): PlainRequest | undefined {
  if (error.code !== 'HPE_INVALID_METHOD') return undefined;
  const text = rawText(error);
  const at = (error as { bytesParsed?: unknown }).bytesParsed;
  if (text === undefined || typeof at !== 'number') return undefined;
  // The bytes may begin with requests answered before it on the connection (one's body ends right where the method
  // begins): node failed inside the method, which begins after the last character that cannot be in one.
  let start = Math.min(at, text.length);
  while (start > 0 && TOKEN_CHAR.test(text[start - 1]!)) start--;
  const end = text.indexOf('\r\n\r\n', start);
  // No head whole in these bytes: one over 16 KiB is a 431 as ever; else it came in pieces (a 400 says so).
  if (end < 0) return text.length - start > MAX_HEAD_BYTES ? tooLarge(/^[^ \r\n]+/.exec(text.slice(start, start + 100))?.[0] ?? '', remoteAddress) : undefined;
  const [line, ...fields] = text.slice(start, end).split('\r\n');
  const parsed = REQUEST_LINE.exec(line!);
  if (parsed === null) return undefined;
  const rawHeaders: string[] = [];
  const headers: Record<string, string> = {};
  for (const field of fields) {
    const named = FIELD_LINE.exec(field);
    if (named === null) return undefined;
    const [, name, value] = named as unknown as [string, string, string];
    rawHeaders.push(name, value);
    const key = name.toLowerCase();
    // What node's parser refuses of a known method's head: a Content-Length not a number, twice, or beside Transfer-Encoding.
    if (key === 'content-length' && (!/^\d+$/.test(value) || headers[key] !== undefined)) return undefined;
    // As node keeps them: most headers' first value, a repeated Transfer-Encoding's values joined.
    if (key === 'transfer-encoding' && headers[key] !== undefined) headers[key] += `, ${value}`;
    else headers[key] ??= value;
  }
  if (headers['content-length'] !== undefined && headers['transfer-encoding'] !== undefined) return undefined;
  const [, method, target, version] = parsed as unknown as [string, string, string, string];
  const head = { rawHeaders, method, url: target, httpVersion: version === '1.0' ? '1.0' : '1.1', headers };
  return { method, target, headers, body: null, bodyTooLarge: false, remoteAddress, headerFault: headerFault(head) };
}

/** A request of `method` whose head is over 16 KiB, for its 431 (request-level: nothing else of it is looked at, its target neither). */
function tooLarge(method: string, remoteAddress: string): PlainRequest {
  return { method, target: '/', headers: {}, body: null, bodyTooLarge: false, remoteAddress, headerFault: { error: 'headers_too_large', message: HEADERS_TOO_LARGE_MESSAGE } };
}
