// Request-level faults of the raw head that node lets through: counted from what the client sent (API.md §3).
import type { IncomingMessage } from 'node:http';
import { HEADERS_TOO_LARGE_MESSAGE, MAX_HEAD_BYTES } from './errors.js';
import type { PlainRequest } from './types.js';

/**
 * A request-level fault visible only in the raw head: two Authorization or Host headers, HTTP/1.1 without Host,
 * or a head over 16 KiB. Node's own limit (`maxHeaderSize`) counts only the target, names and values, so a head
 * a few bytes a line over the limit reaches us: it is counted here as sent, line ends and all (API.md §3).
 */
export function headerFault(req: IncomingMessage): PlainRequest['headerFault'] {
  const rawHeaders = req.rawHeaders;
  let authorization = 0;
  let host = 0;
  // "METHOD target HTTP/x.y\r\n", then "Name: value\r\n" per field (as clients write them: node drops the spaces
  // around a value before anyone sees them), then the empty line; node's strings hold one byte per character.
  let headBytes = (req.method ?? '').length + 1 + (req.url ?? '').length + ' HTTP/'.length + req.httpVersion.length + 2 + 2;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    headBytes += name.length + 2 + rawHeaders[i + 1]!.length + 2;
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorization++;
    else if (name.length === 4 && name.toLowerCase() === 'host') host++;
  }
  if (headBytes > MAX_HEAD_BYTES) return { error: 'headers_too_large', message: HEADERS_TOO_LARGE_MESSAGE };
  if (authorization > 1) return { error: 'bad_request', message: 'The request has more than one Authorization header; send exactly one.' };
  if (host > 1) return { error: 'bad_request', message: 'The request has more than one Host header; send exactly one.' };
  if (host === 0 && req.httpVersion === '1.1') return { error: 'bad_request', message: 'The request has no Host header; HTTP/1.1 requires exactly one.' };
  return undefined;
}

/** How many lines of the raw head carry the header `name` (lower case): node joins repeated ones into one value. */
export function headerLines(req: IncomingMessage, name: string): number {
  const rawHeaders = req.rawHeaders;
  let lines = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.length === name.length && rawHeaders[i]!.toLowerCase() === name) lines++;
  return lines;
}
