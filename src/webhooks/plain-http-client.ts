// Webhook POSTs to http: URLs on node:net: one kept-alive connection per exchange under way, each request written in one
// piece, the answer read by AnswerParser. node:http's client cost about 20 µs of CPU an exchange more (API.md §13's
// rules are the same: no redirect followed, at most 64 KiB of an answer read).
import net, { type LookupFunction } from 'node:net';
import { AnswerParser } from './http-answer-parser.js';

/** Where requests to one origin go: resolved once per URL. */
export interface PlainTarget {
  /** `host:port`: connections are pooled by it. */
  origin: string;
  hostname: string;
  port: number;
  /** The Host header (the URL's host, its port unless the default). */
  hostHeader: string;
  /** The path and query. */
  path: string;
}

/** How an exchange went: the status, when the receiver answered, or an error in words. */
export interface PlainOutcome {
  status: number | null;
  /** Why there is no status (or why the answer was not read), as a system error code or words; null with a status. */
  error: NodeJS.ErrnoException | string | null;
}

/** An exchange under way, which can be given up (its connection is closed). */
export interface PlainExchange {
  abort(reason: string): void;
}

/** Where every connection's answers are read (64 KiB, as much as one read of a socket brings). */
const READ_BUFFER = Buffer.alloc(64 * 1024);

/** An idle connection left this long is closed by us (receivers commonly close theirs after 5 s). */
const IDLE_CLOSE_MS = 4000;

/** How long the rest of an acknowledged answer's body may take before its connection is closed instead of kept. */
const BODY_AFTER_ACK_MS = 10_000;

/** Sends POSTs on pooled connections; `close()` ends the idle ones. */
export class PlainHttpClient {
  readonly #lookup: LookupFunction;
  readonly #maxAnswerBytes: number;
  /** Idle connections by origin, the most recently used last. */
  readonly #idle = new Map<string, Connection[]>();
  /** Exchanges acknowledged by their status whose body is still coming: closed with the client. */
  readonly #draining = new Set<Exchange>();
  #sweeper: NodeJS.Timeout | undefined;

  /** `lookup` resolves (and checks) host names; an answer is read up to `maxAnswerBytes` of body. */
  constructor(lookup: LookupFunction, maxAnswerBytes: number) {
    this.#lookup = lookup;
    this.#maxAnswerBytes = maxAnswerBytes;
  }

  /**
   * POSTs `body` to `target` with `headers` (ours, so free of CR and LF). `done` is called once, never before this
   * returns. A kept-alive connection that turns out closed before any answer is replaced once by a new one.
   */
  send(target: PlainTarget, headers: Record<string, string>, body: string, bodyLength: number, done: (outcome: PlainOutcome) => void): PlainExchange {
    let head = `POST ${target.path} HTTP/1.1\r\nhost: ${target.hostHeader}\r\nuser-agent: campus-events-webhooks\r\ncontent-type: application/json\r\ncontent-length: ${bodyLength}\r\n`;
    for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
    // One string, written as UTF-8 in one piece: a string this small goes to the socket without a Buffer made for it.
    const request = `${head}\r\n${body}`;
    const exchange = new Exchange(this, target, request, done);
    exchange.start(this.#take(target.origin) ?? this.connect(target));
    return exchange;
  }

  /** Closes every idle connection (those in use close as their exchanges end or are given up). */
  close(): void {
    for (const exchange of [...this.#draining]) exchange.giveUpBody();
    for (const connections of this.#idle.values()) for (const connection of connections) connection.socket.destroy();
    this.#idle.clear();
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  /** A new connection to `target`. */
  connect(target: PlainTarget): Connection {
    const connection: Connection = new Connection(
      this,
      net.connect({
        host: target.hostname,
        port: target.port,
        lookup: this.#lookup,
        noDelay: true,
        // Answers are read into one buffer shared by every connection (each read is handled before the next is made),
        // not a new one per read through the socket's stream: the parser copies what it keeps, the head.
        onread: { buffer: READ_BUFFER, callback: (length) => connection.read(READ_BUFFER.subarray(0, length)) },
      }),
      target.origin,
    );
    return connection;
  }

  /** Keeps a connection whose answer ended cleanly, for the next request to its origin. */
  release(connection: Connection): void {
    connection.idleSince = performance.now();
    let connections = this.#idle.get(connection.origin);
    if (connections === undefined) this.#idle.set(connection.origin, (connections = []));
    connections.push(connection);
    this.#sweeper ??= setInterval(() => this.#sweep(), 1000).unref();
  }

  /** Forgets an idle connection that closed or misbehaved. */
  forget(connection: Connection): void {
    const connections = this.#idle.get(connection.origin);
    const at = connections?.indexOf(connection) ?? -1;
    if (at === -1) return;
    connections!.splice(at, 1);
    if (connections!.length === 0) this.#idle.delete(connection.origin);
  }

  /** An exchange acknowledged before its body came (`true`), or done with its connection (`false`). */
  draining(exchange: Exchange, reading: boolean): void {
    if (reading) this.#draining.add(exchange);
    else this.#draining.delete(exchange);
  }

  get maxAnswerBytes(): number {
    return this.#maxAnswerBytes;
  }

  #take(origin: string): Connection | undefined {
    const connections = this.#idle.get(origin);
    const connection = connections?.pop();
    if (connections?.length === 0) this.#idle.delete(origin);
    return connection;
  }

  #sweep(): void {
    const before = performance.now() - IDLE_CLOSE_MS;
    for (const connections of [...this.#idle.values()]) {
      for (const connection of connections.filter((candidate) => candidate.idleSince < before)) {
        this.forget(connection);
        connection.socket.destroy();
      }
    }
    if (this.#idle.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }
}

/** One connection: idle in the pool, or carrying one exchange. */
class Connection {
  readonly socket: net.Socket;
  readonly origin: string;
  idleSince = 0;
  /** True once it carried an answer: it may since have been closed by the receiver. */
  reused = false;
  exchange: Exchange | undefined;
  readonly #client: PlainHttpClient;

  constructor(client: PlainHttpClient, socket: net.Socket, origin: string) {
    this.#client = client;
    this.socket = socket;
    this.origin = origin;
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (this.exchange === undefined) return this.#lost();
      this.exchange.ended(error);
    });
    socket.on('close', () => {
      if (this.exchange === undefined) return this.#lost();
      this.exchange.ended(null);
    });
  }

  /** Bytes from the receiver, in the shared read buffer (valid only during this call); true to go on reading. */
  read(chunk: Buffer): boolean {
    if (this.exchange === undefined) this.#lost();
    else this.exchange.data(chunk);
    return true;
  }

  /** Idle and closed by the receiver, or sent bytes nobody asked for: out of the pool. */
  #lost(): void {
    this.#client.forget(this);
    this.socket.destroy();
  }
}

/** One request and its answer, on one connection (or two, when a kept-alive one was found closed). */
class Exchange implements PlainExchange {
  readonly #client: PlainHttpClient;
  readonly #target: PlainTarget;
  readonly #request: string;
  #done: ((outcome: PlainOutcome) => void) | undefined;
  #connection: Connection | undefined;
  #parser: AnswerParser;
  #answerBytes = 0;
  /** Set once the connection was kept or closed; the outcome may have gone before (a 2xx whose body is still coming). */
  #released = false;
  #bodyTimer: NodeJS.Timeout | undefined;

  constructor(client: PlainHttpClient, target: PlainTarget, request: string, done: (outcome: PlainOutcome) => void) {
    this.#client = client;
    this.#target = target;
    this.#request = request;
    this.#done = done;
    this.#parser = new AnswerParser(client.maxAnswerBytes);
  }

  start(connection: Connection): void {
    this.#connection = connection;
    connection.exchange = this;
    connection.socket.write(this.#request, 'utf8');
  }

  abort(reason: string): void {
    // An answer whose status came is judged by it (API.md §13: its status line acknowledges); else the reason is the error.
    this.#finish({ status: this.#parser.status, error: this.#parser.status === null ? reason : null }, false);
  }

  data(chunk: Buffer): void {
    this.#answerBytes += chunk.length;
    switch (this.#parser.feed(chunk)) {
      case 'partial':
        // A 2xx acknowledges once its head is in (API.md §13, decisions.md): a body slow to come, or never ending, holds up
        // no message. It is still read, for the connection's next request, for a while.
        if (this.#done !== undefined && this.#parser.status !== null && this.#parser.status >= 200 && this.#parser.status < 300) {
          this.#settle({ status: this.#parser.status, error: null });
          this.#client.draining(this, true);
          this.#bodyTimer = setTimeout(() => this.giveUpBody(), BODY_AFTER_ACK_MS).unref();
        }
        return;
      case 'complete':
        return this.#finish({ status: this.#parser.status, error: null }, this.#parser.reusable);
      case 'too-large':
        // Enough: the rest is never read, and the connection not reused.
        return this.#finish({ status: this.#parser.status, error: null }, false);
      case 'invalid':
        return this.#finish({ status: null, error: `the answer is not HTTP (${this.#parser.problem})` }, false);
    }
  }

  /** The connection ended (closed by the receiver, or an error). */
  ended(error: NodeJS.ErrnoException | null): void {
    const connection = this.#connection!;
    const atClose = this.#parser.closed();
    if (atClose !== 'none') return this.#finish({ status: this.#parser.status, error: null }, false);
    if (connection.reused && this.#answerBytes === 0 && (error === null || error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
      // A kept-alive connection the receiver closed meanwhile: the request never reached it, so once more on a new one.
      connection.exchange = undefined;
      connection.socket.destroy();
      return this.start(this.#client.connect(this.#target));
    }
    const reset: NodeJS.ErrnoException = Object.assign(new Error('connection closed before an answer'), { code: 'ECONNRESET' });
    this.#finish({ status: null, error: error ?? reset }, false);
  }

  /** An acknowledged answer's body did not come in time (or the client closes): its connection is closed. */
  giveUpBody(): void {
    this.#release(false);
  }

  #finish(outcome: PlainOutcome, reusable: boolean): void {
    this.#release(reusable);
    this.#settle(outcome);
  }

  #settle(outcome: PlainOutcome): void {
    const done = this.#done;
    if (done === undefined) return;
    this.#done = undefined;
    done(outcome);
  }

  #release(reusable: boolean): void {
    if (this.#released) return;
    this.#released = true;
    clearTimeout(this.#bodyTimer);
    this.#client.draining(this, false);
    const connection = this.#connection!;
    connection.exchange = undefined;
    if (reusable) {
      connection.reused = true;
      this.#client.release(connection);
    } else connection.socket.destroy();
  }
}
