// Where the server's log lines go: stderr, which must never stop the service nor hold its memory. A reader that falls
// behind (a pipe not read) costs at most MAX_PENDING_BYTES, then lines are dropped; a reader that goes away (EPIPE)
// gets no more; a file whose disk filled (ENOSPC) takes lines again once there is room. Dropped lines are counted, and
// one line says how many once writing works again.
import fs from 'node:fs';

/** Bytes of log lines that may wait for a reader of stderr (a pipe not read, a stalled log shipper). */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;

/**
 * The logger's `write` for lines going to stderr: `stream` (process.stderr) while it takes them, the descriptor `fd`
 * itself once a write to a file failed. `now` stamps the line saying how many were dropped.
 */
export class StderrLog {
  readonly #stream: NodeJS.WritableStream & { readonly writableLength: number };
  readonly #fd: number;
  readonly #now: () => number;
  /** Set once the reader went away: nothing is written after. */
  #closed = false;
  /** Set once a write to a file failed (node's stream is done for then): lines are written straight to the descriptor. */
  #straight = false;
  /** A straight write stopped inside a line: the next one starts on a new line. */
  #torn = false;
  #dropped = 0;
  #why = 'stderr was not read fast enough';

  constructor(stream: NodeJS.WritableStream & { readonly writableLength: number }, fd: number, now: () => number) {
    this.#stream = stream;
    this.#fd = fd;
    this.#now = now;
    stream.on('error', () => {
      if (this.#straight || this.#closed) return;
      if (!isFile(fd)) {
        this.#closed = true;
        return;
      }
      this.#straight = true;
      // The failed write may have stopped inside a line.
      this.#torn = !endsWithNewline(fd);
    });
  }

  /** The logger's `write`: one or more whole lines. */
  readonly write = (text: string): void => {
    if (this.#closed) return;
    if (this.#straight) return this.#writeStraight(text);
    if (this.#stream.writableLength > MAX_PENDING_BYTES) {
      this.#dropped += lineCount(text);
      return;
    }
    const before = this.#dropped;
    // Once per batch of lines (the logger writes every 10 ms): a failed write's lines are counted as dropped.
    this.#stream.write(this.#droppedNotice() + text, (error) => {
      if (error !== null && error !== undefined) this.#dropped += before + lineCount(text);
    });
  };

  /** Writes the count of lines dropped, if any were (before a stop). */
  sayDropped(): void {
    if (this.#dropped > 0) this.write('');
  }

  /** Calls `done` once the lines written have gone out (at once when they were written straight, or nothing can be). */
  whenWritten(done: () => void): void {
    if (this.#closed || this.#straight) done();
    else this.#stream.write('', done);
  }

  #writeStraight(text: string): void {
    this.#why = 'stderr\'s file could not be written (a full disk?)';
    const before = this.#dropped;
    const out = Buffer.from(`${this.#torn ? '\n' : ''}${this.#droppedNotice()}${text}`);
    let at = 0;
    try {
      while (at < out.length) at += fs.writeSync(this.#fd, out, at);
      this.#torn = false;
    } catch {
      // What part of it went out is not worth telling apart: all of it counts as dropped.
      this.#torn ||= at > 0;
      this.#dropped = before + lineCount(text);
    }
  }

  /** The line saying how many lines were dropped (and resets the count), or ''. */
  #droppedNotice(): string {
    if (this.#dropped === 0) return '';
    const notice = `${JSON.stringify({ time: new Date(this.#now()).toISOString(), level: 'warn', msg: `log lines dropped: ${this.#why}`, lines: this.#dropped })}\n`;
    this.#dropped = 0;
    return notice;
  }
}

function lineCount(text: string): number {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

function isFile(fd: number): boolean {
  try {
    return fs.fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/** Whether the file `fd` is empty or ends with a line end; false when that cannot be read (stderr opened to append only). */
function endsWithNewline(fd: number): boolean {
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } catch {
    return false;
  }
}
