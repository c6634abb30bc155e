// Reads an HTTP/1.x answer from bytes as they arrive: its status, whether its connection may carry the next request,
// and where it ends (Content-Length, chunked or the connection's close), its body counted and dropped, never kept.

/** How far an answer has come after a chunk of bytes. */
export type AnswerProgress = 'partial' | 'complete' | 'too-large' | 'invalid';

/** How an answer stood when its connection closed. */
export type AnswerAtClose = 'complete' | 'truncated' | 'none';

/** Bytes of the head (status line and headers) read at most before the answer is called invalid. */
const MAX_HEAD_BYTES = 64 * 1024;
/** Bytes of one chunk-size line or trailer line read at most. */
const MAX_LINE_BYTES = 4096;

const CR = 13;
const LF = 10;
const COLON = 58;
const SPACE = 32;
const TAB = 9;
const CRLF_CRLF = Buffer.from('\r\n\r\n');
const LF_LF = Buffer.from('\n\n');
/** What `#readHead` returns when the head has not ended yet, or cannot be read. */
const NEED_MORE = -1;
const INVALID = -2;

type BodyState = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer' | 'until-close' | 'done';

/**
 * One answer on one connection. `feed()` each chunk as it arrives, `closed()` when the connection ends. `status` is set
 * once the final head (not a 1xx) is read; `reusable` tells, once complete, whether the connection may carry another
 * request. Body bytes are counted (at most `maxBodyBytes`, framing included) and dropped.
 */
export class AnswerParser {
  /** The final status, once its head is read; null before. */
  status: number | null = null;
  /** True once complete when the connection may carry another request (HTTP/1.1 not closing, nothing after the answer). */
  reusable = false;
  /** Why the answer is invalid, in words, after `feed()` said `invalid`. */
  problem = '';
  readonly #maxBodyBytes: number;
  #state: BodyState = 'head';
  /** The bytes of a head whose end has not come yet: the first `#heldLength` of a buffer that grows by doubling. */
  #held: Buffer | undefined;
  #heldLength = 0;
  /** How many of the held bytes were searched for the head's end in vain: the next search starts just before them. */
  #searched = 0;
  #keepAlive = false;
  /** Body bytes still expected: of a Content-Length body, or of the current chunk. */
  #remaining = 0;
  #bodyBytes = 0;
  /** The current chunk-size or trailer line, while its end has not come. */
  #line = '';

  constructor(maxBodyBytes: number) {
    this.#maxBodyBytes = maxBodyBytes;
  }

  /** Takes the next bytes of the connection. */
  feed(chunk: Buffer): AnswerProgress {
    let at = 0;
    if (this.#state === 'head') {
      const headEnd = this.#readHead(chunk);
      if (headEnd === NEED_MORE) return 'partial';
      if (headEnd === INVALID) return 'invalid';
      at = headEnd;
    }
    if (this.#state === 'done') {
      // Bytes after the answer were never asked for: the connection carries nothing more.
      if (at < chunk.length) this.reusable = false;
      return 'complete';
    }
    this.#bodyBytes += chunk.length - at;
    const progress = this.#readBody(chunk, at);
    if (progress === 'partial' && this.#bodyBytes >= this.#maxBodyBytes) return 'too-large';
    return progress;
  }

  /** The connection ended: a body delimited by the close is complete; one cut short leaves its status; none, nothing. */
  closed(): AnswerAtClose {
    if (this.#state === 'done') return 'complete';
    if (this.#state === 'until-close') {
      this.#state = 'done';
      return 'complete';
    }
    return this.status === null ? 'none' : 'truncated';
  }

  /**
   * Reads head bytes from `chunk`; returns where the body starts in it once the final head is read, NEED_MORE or
   * INVALID. 1xx heads (100 Continue, 103 Early Hints) are read past. The head is read from the bytes: only the status
   * line and the values of the three headers that frame the answer become strings.
   */
  #readHead(chunk: Buffer): number {
    let bytes = chunk;
    /** Where `chunk` starts in `bytes`: after the head bytes held from earlier chunks. */
    let offset = 0;
    /** Where the search for a head's end starts: the held bytes were searched already (3 bytes back: "\r\n\r\n" may be cut). */
    let searchFrom = 0;
    if (this.#heldLength > 0) {
      offset = this.#heldLength;
      searchFrom = Math.max(0, this.#searched - 3);
      bytes = this.#hold(chunk);
    }
    let from = 0;
    for (;;) {
      // Empty lines before a status line are skipped, as Node's parser does: some servers send a stray CRLF after a body.
      while (from < bytes.length && (bytes[from] === CR || bytes[from] === LF)) from++;
      if (from >= bytes.length) return this.#release(NEED_MORE);
      const end = headEnd(bytes, Math.max(from, searchFrom));
      if (end === undefined) {
        if (bytes.length - from > MAX_HEAD_BYTES) {
          this.#invalid(`its head is longer than ${MAX_HEAD_BYTES / 1024} KiB`);
          return this.#release(INVALID);
        }
        // Held, a copy (`chunk` may be a read buffer the next read overwrites) with room to grow: a head that comes a
        // byte at a time costs its length in copies and searches, not its square.
        if (bytes === chunk) this.#hold(chunk.subarray(from));
        else if (from > 0) {
          // The rest after a 1xx head (or blank lines) moves to the front of the held bytes.
          headWork.copied += bytes.length - from;
          bytes.copyWithin(0, from);
          this.#heldLength = bytes.length - from;
        }
        this.#searched = this.#heldLength;
        return NEED_MORE;
      }
      if (!this.#parseHead(bytes, from, end.headLength)) return this.#release(INVALID);
      from = end.bodyAt;
      searchFrom = 0;
      if (this.#state !== 'head') return this.#release(from - offset);
      if (from >= bytes.length) return this.#release(NEED_MORE);
    }
  }

  /** Appends `bytes` to the held ones (the buffer doubles when full); returns every byte held. */
  #hold(bytes: Buffer): Buffer {
    const length = this.#heldLength + bytes.length;
    if (this.#held === undefined || this.#held.length < length) {
      const grown = Buffer.allocUnsafe(Math.max(length, 2 * (this.#held?.length ?? 0), 1024));
      if (this.#held !== undefined) headWork.copied += this.#held.copy(grown, 0, 0, this.#heldLength);
      this.#held = grown;
    }
    headWork.copied += bytes.copy(this.#held, this.#heldLength);
    this.#heldLength = length;
    return this.#held.subarray(0, length);
  }

  /** Lets the held bytes go (the head was read, or will never be): returns `result`. */
  #release(result: number): number {
    this.#held = undefined;
    this.#heldLength = 0;
    this.#searched = 0;
    return result;
  }

  /** Parses the head in bytes[start, end); false when invalid. Sets the status and the body's framing unless it is a 1xx (then stays in 'head'). */
  #parseHead(bytes: Buffer, start: number, end: number): boolean {
    let lineEnd = bytes.indexOf(LF, start);
    if (lineEnd === -1 || lineEnd > end) lineEnd = end;
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: |\r?$)/.exec(bytes.toString('latin1', start, Math.min(lineEnd, start + 16)));
    if (statusLine === null) return this.#invalid('it is not HTTP/1.x');
    const status = Number(statusLine[2]);
    if (status >= 100 && status < 200 && status !== 101) return true;
    let length: number | undefined;
    let chunked = false;
    let transferEncoding = false;
    let close = false;
    let keepAliveToken = false;
    for (let lineStart = lineEnd + 1; lineStart < end; lineStart = lineEnd + 1) {
      lineEnd = bytes.indexOf(LF, lineStart);
      if (lineEnd === -1 || lineEnd > end) lineEnd = end;
      const colon = bytes.indexOf(COLON, lineStart);
      if (colon === -1 || colon >= lineEnd || colon === lineStart) return this.#invalid('a header line has no name');
      const name = framingHeader(bytes, lineStart, colon);
      if (name === undefined) continue;
      const value = bytes.toString('latin1', colon + 1, lineEnd).trim().toLowerCase();
      if (name === 'content-length') {
        if (!/^\d{1,15}$/.test(value) || (length !== undefined && length !== Number(value))) return this.#invalid('its Content-Length is not one number');
        length = Number(value);
      } else if (name === 'transfer-encoding') {
        transferEncoding = true;
        chunked = value.split(',').at(-1)!.trim() === 'chunked';
      } else {
        for (const token of value.split(',')) {
          if (token.trim() === 'close') close = true;
          if (token.trim() === 'keep-alive') keepAliveToken = true;
        }
      }
    }
    this.status = status;
    // HTTP/1.1 keeps its connection unless told to close; 1.0 only when asked to keep it. A body framed by both
    // Transfer-Encoding and Content-Length is read by the former, and its connection not trusted after.
    this.#keepAlive = !close && (statusLine[1] === '1' || keepAliveToken) && !(transferEncoding && length !== undefined);
    if (status === 204 || status === 304) return this.#finish();
    if (transferEncoding) {
      if (!chunked) {
        this.#keepAlive = false;
        this.#state = 'until-close';
        return true;
      }
      this.#state = 'chunk-size';
      return true;
    }
    if (length !== undefined) {
      if (length === 0) return this.#finish();
      this.#remaining = length;
      this.#state = 'length';
      return true;
    }
    this.#keepAlive = false;
    this.#state = 'until-close';
    return true;
  }

  /** Walks body bytes from `at`; says whether the answer ended in them. */
  #readBody(chunk: Buffer, at: number): AnswerProgress {
    while (at < chunk.length) {
      switch (this.#state) {
        case 'until-close':
          return 'partial';
        case 'length':
        case 'chunk-data': {
          const take = Math.min(this.#remaining, chunk.length - at);
          this.#remaining -= take;
          at += take;
          if (this.#remaining > 0) return 'partial';
          if (this.#state === 'length') {
            this.#finish();
            if (at < chunk.length) this.reusable = false;
            return 'complete';
          }
          this.#state = 'chunk-end';
          this.#line = '';
          break;
        }
        case 'chunk-size':
        case 'chunk-end':
        case 'trailer': {
          const newline = chunk.indexOf(LF, at);
          const end = newline === -1 ? chunk.length : newline;
          this.#line += chunk.toString('latin1', at, end);
          if (this.#line.length > MAX_LINE_BYTES) {
            this.#invalid('a chunk line is too long');
            return 'invalid';
          }
          if (newline === -1) return 'partial';
          at = newline + 1;
          const line = this.#line.charCodeAt(this.#line.length - 1) === CR ? this.#line.slice(0, -1) : this.#line;
          this.#line = '';
          const done = this.#lineDone(line);
          if (done !== 'partial') {
            if (done === 'complete' && at < chunk.length) this.reusable = false;
            return done;
          }
          break;
        }
        case 'head':
        case 'done':
          return 'complete';
      }
    }
    return 'partial';
  }

  /** A whole line of chunked framing: a chunk's size, the end of its data, or a trailer (an empty one ends the body). */
  #lineDone(line: string): AnswerProgress {
    if (this.#state === 'chunk-end') {
      if (line !== '') {
        this.#invalid('a chunk does not end where its size says');
        return 'invalid';
      }
      this.#state = 'chunk-size';
      return 'partial';
    }
    if (this.#state === 'trailer') {
      if (line !== '') return 'partial';
      this.#finish();
      return 'complete';
    }
    const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line);
    if (size === null) {
      this.#invalid('a chunk size is not hexadecimal');
      return 'invalid';
    }
    this.#remaining = Number.parseInt(size[1]!, 16);
    this.#state = this.#remaining === 0 ? 'trailer' : 'chunk-data';
    return 'partial';
  }

  #finish(): true {
    this.#state = 'done';
    this.reusable = this.#keepAlive;
    return true;
  }

  /** Notes why the answer is invalid; false, for `#parseHead` to return. */
  #invalid(problem: string): false {
    this.problem = problem;
    this.#state = 'done';
    this.reusable = false;
    return false;
  }
}

/** Bytes copied into held heads and searched for a head's end, for the tests: linear in a head's length however it is cut. */
export const headWork = { copied: 0, searched: 0 };

/** Where a head ends in `bytes` (searched from `from`): where its blank line starts, and where the body starts. */
function headEnd(bytes: Buffer, from: number): { headLength: number; bodyAt: number } | undefined {
  headWork.searched += bytes.length - from;
  const crlf = bytes.indexOf(CRLF_CRLF, from);
  // A bare LF ends a line too, as Node's own parser lets it.
  const lf = bytes.indexOf(LF_LF, from);
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { headLength: crlf, bodyAt: crlf + 4 };
  return lf === -1 ? undefined : { headLength: lf, bodyAt: lf + 2 };
}

const FRAMING_HEADERS = ['content-length', 'transfer-encoding', 'connection'] as const;

/** The framing header named by bytes[start, end) (any case, blanks around it allowed), or undefined for any other. */
function framingHeader(bytes: Buffer, start: number, end: number): (typeof FRAMING_HEADERS)[number] | undefined {
  while (start < end && (bytes[start] === SPACE || bytes[start] === TAB)) start++;
  while (end > start && (bytes[end - 1] === SPACE || bytes[end - 1] === TAB)) end--;
  next: for (const name of FRAMING_HEADERS) {
    if (end - start !== name.length) continue;
    for (let n = 0; n < name.length; n++) {
      const want = name.charCodeAt(n);
      const got = bytes[start + n]!;
      // Letters match in any case (bit 0x20 lowers an ASCII letter); the '-' only as itself.
      if (got !== want && !(want >= 0x61 && want <= 0x7a && (got | 0x20) === want)) continue next;
    }
    return name;
  }
  return undefined;
}
