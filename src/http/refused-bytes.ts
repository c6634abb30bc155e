// What a request node's parser refused says in the bytes it failed on (its error's rawPacket): its Origin, whether it
// is a HEAD, and, for a method node does not know, the whole request.
import type { PlainRequest } from './types.js';

/** The bytes node failed on, as latin1 text (one character a byte); undefined when node gave none. */
function rawText(error: NodeJS.ErrnoException): string | undefined {
  const raw = (error as { rawPacket?: unknown }).rawPacket;
  return Buffer.isBuffer(raw) ? raw.toString('latin1') : undefined;
}

/** The Origin header in the bytes node failed on. */
export function originInBytes(error: NodeJS.ErrnoException): string | undefined {
  const text = rawText(error);
  return text === undefined ? undefined : /\r\norigin:[ \t]*([^\r\n]*?)[ \t]*\r\n/i.exec(text)?.[1];
}

/** True when the bytes node failed on begin a HEAD request, whose answer must not carry a body (clients would misread it). */
export function startsWithHead(error: NodeJS.ErrnoException): boolean {
  return rawText(error)?.startsWith('HEAD ') === true;
}

/** `METHOD target HTTP/1.x`, the method a token of RFC 9110 §5.6.2. */
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([^ \r\n]+) HTTP\/1\.[01]$/;

/**
 * The request node refused for its method alone (FOO, get, MERGE): it is HTTP all the same (RFC 9110 §9.1: a method
 * is any token, and case-sensitive), so it gets the 405 or 404 its path calls for (API.md §3), not the 400 of bad
 * framing. Undefined for any other fault, or when its head is not all there.
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
  const headers: Record<string, string> = {};
  for (const field of fields) {
    const colon = field.indexOf(':');
    if (colon <= 0) return undefined;
    headers[field.slice(0, colon).toLowerCase()] ??= field.slice(colon + 1).trim();
  }
  return { method: parsed[1]!, target: parsed[2]!, headers, body: null, bodyTooLarge: false, remoteAddress };
}

/** What node's parser found wrong, in words that name the header or the part at fault (API.md §3), keyed by its code. */
const PARSER_FAULTS: Record<string, string> = {
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding must end with chunked, and may not come with Content-Length',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length is sent twice, or with Transfer-Encoding: send one of them, once',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not a number of bytes',
  HPE_INVALID_HEADER_TOKEN: 'a header line is not "Name: value" (a space before the colon, a folded line, or a character a name may not hold)',
  HPE_INVALID_CHUNK_SIZE: 'a chunk of the chunked body does not begin with its size in hexadecimal',
  HPE_INVALID_METHOD: 'the request line does not begin with a method',
  HPE_INVALID_URL: 'the request target is not a path',
  HPE_INVALID_VERSION: 'the request line does not end with HTTP/1.1',
  HPE_CR_EXPECTED: 'a line of the head does not end with CRLF',
  HPE_LF_EXPECTED: 'a line of the head does not end with CRLF',
  HPE_INVALID_CONSTANT: 'the request line is not METHOD target HTTP/1.1',
};

/** `: ` and the words for the parser's fault, or nothing for a code without them. */
export function parserFault(error: NodeJS.ErrnoException): string {
  const words = error.code !== undefined && Object.hasOwn(PARSER_FAULTS, error.code) ? PARSER_FAULTS[error.code] : undefined;
  return words === undefined ? '' : `: ${words}`;
}
