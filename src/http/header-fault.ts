// Request-level faults of the raw head that node lets through: counted from what the client sent (API.md §3).
import type { IncomingMessage } from 'node:http';
import { HEADERS_TOO_LARGE_MESSAGE, MAX_HEAD_BYTES } from './errors.js';
import type { PlainRequest } from './types.js';

/** What headerFault reads of a request's head: node's IncomingMessage, or a head read back from raw bytes. */
export type HeadParts = Pick<IncomingMessage, 'rawHeaders' | 'method' | 'url' | 'httpVersion'> & { headers: { 'transfer-encoding'?: string | undefined } };

/**
 * A request-level fault visible only in the raw head: two Authorization, Host or Content-Type headers, HTTP/1.1
 * without Host, a transfer coding other than chunked, or a head over 16 KiB. Node's own limit (`maxHeaderSize`)
 * counts only the target, names and values, so a head a few bytes a line over the limit reaches us: it is counted
 * here as sent, line ends and all (API.md §3).
 */
export function headerFault(req: HeadParts): PlainRequest['headerFault'] {
  const rawHeaders = req.rawHeaders;
  let authorization = 0;
  let host = 0;
  let contentType = 0;
  // "METHOD target HTTP/x.y\r\n", then "Name: value\r\n" per field (as clients write them: node drops the spaces
  // around a value before anyone sees them), then the empty line; node's strings hold one byte per character.
  let headBytes = (req.method ?? '').length + 1 + (req.url ?? '').length + ' HTTP/'.length + req.httpVersion.length + 2 + 2;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    headBytes += name.length + 2 + rawHeaders[i + 1]!.length + 2;
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorization++;
    else if (name.length === 4 && name.toLowerCase() === 'host') host++;
    else if (name.length === 12 && name.toLowerCase() === 'content-type') contentType++;
  }
  if (headBytes > MAX_HEAD_BYTES) return { error: 'headers_too_large', message: HEADERS_TOO_LARGE_MESSAGE };
  if (authorization > 1) return { error: 'bad_request', message: 'The request has more than one Authorization header; send exactly one.' };
  if (host > 1) return { error: 'bad_request', message: 'The request has more than one Host header; send exactly one.' };
  if (host === 0 && req.httpVersion === '1.1') return { error: 'bad_request', message: 'The request has no Host header; HTTP/1.1 requires exactly one.' };
  // node keeps the first of two and drops the other: which one the client meant is not known.
  if (contentType > 1) return { error: 'bad_request', message: 'The request has more than one Content-Type header; send exactly one.' };
  // node takes `gzip, chunked` as chunked and hands over the body still in gzip: no coding but chunked is undone here.
  const coding = req.headers['transfer-encoding'];
  if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked') {
    return { error: 'bad_request', message: `Transfer-Encoding ${JSON.stringify(coding.slice(0, 100))} is not supported: send the body with Content-Length, or with Transfer-Encoding: chunked alone.` };
  }
  return undefined;
}

/** How many lines of the raw head carry the header `name` (lower case): node joins repeated ones into one value. */
export function headerLines(req: IncomingMessage, name: string): number {
  const rawHeaders = req.rawHeaders;
  let lines = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.length === name.length && rawHeaders[i]!.toLowerCase() === name) lines++;
  return lines;
}
