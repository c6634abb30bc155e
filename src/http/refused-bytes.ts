// What a request node's parser refused says in the bytes it failed on (its error's rawPacket): its Origin, whether it
// is a HEAD, and, for a method node does not know, the whole request.
import type { IncomingMessage } from 'node:http';
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

/** `METHOD target HTTP/1.x`: the method a token (RFC 9110 §5.6.2), the target visible ASCII, as node's parser wants it. */
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([\x21-\x7e]+) HTTP\/1\.([01])$/;
/** `Name: value`: the name a token, the value without control characters but HTAB (no folded lines). */
const FIELD_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([^\x00-\x08\x0a-\x1f\x7f]*?)[ \t]*$/;

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
  // The bytes may begin with requests answered before it on the connection: its own line holds the failing byte.
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const end = text.indexOf('\r\n\r\n', start);
  if (end < 0) return undefined;
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
    // As node keeps them: most headers' first value, a repeated Transfer-Encoding's values joined.
    if (key === 'transfer-encoding' && headers[key] !== undefined) headers[key] += `, ${value}`;
    else headers[key] ??= value;
  }
  const [, method, target, minor] = parsed as unknown as [string, string, string, string];
  const head = { rawHeaders, method, url: target, httpVersion: `1.${minor}`, headers };
  return { method, target, headers, body: null, bodyTooLarge: false, remoteAddress, headerFault: headerFault(head) };
}
