// What node's HTTP parser refused, in words: a 400's message names the header or the part at fault (API.md §3).

/** The words, keyed by the parser's error code. */
const PARSER_FAULTS: Record<string, string> = {
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding must end with chunked, and may not come with Content-Length',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length is sent twice, or with Transfer-Encoding: send one of them, once',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not a number of bytes, or comes with Transfer-Encoding',
  HPE_INVALID_HEADER_TOKEN: 'a header line is not "Name: value" (a space before the colon, a folded line, or a character a name may not hold)',
  HPE_INVALID_CHUNK_SIZE: 'a chunk of the chunked body does not begin with its size in hexadecimal',
  HPE_INVALID_METHOD: 'its method is not a standard one, and its head did not come whole in one piece or is not valid HTTP/1.1',
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
