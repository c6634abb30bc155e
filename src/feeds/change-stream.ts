// The open change-feed streams (Server-Sent Events): backlog then live changes, keep-alives, caps, revocation, shutdown.
import { ApiError } from '../http/errors.js';
import type { ResponseStream, StreamSink } from '../http/types.js';
import type { Change, ChangeFeedSource } from '../store/views/change-log.js';
import { changeEventFrame } from './change-entry.js';
import type { SharedStreamCounts } from '../store/stream-counts.js';
import { StreamAdmission, streamsFull } from './stream-admission.js';

/** Repeating timers, injected so tests tick them instead of sleeping. */
export interface StreamTimers {
  /** Runs `run` every `ms` until the returned function is called. */
  every(ms: number, run: () => void): () => void;
}

/** Real timers that never keep the process alive. */
export const NODE_TIMERS: StreamTimers = {
  every(ms, run) {
    const timer = setInterval(run, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** Options of ChangeStreams. */
export interface ChangeStreamsOptions {
  source: ChangeFeedSource;
  /** False once a key is revoked (or gone from keys.json): its streams close. */
  isKeyLive: (keyId: string) => boolean;
  timers?: StreamTimers;
  /** A comment line this often, so proxies keep the connection. Default 15 s. */
  keepAliveMs?: number;
  /** Open streams are checked against the keys this often. Default 1 s (with the key file polled each second: closed within 2 s). */
  revocationCheckMs?: number;
  /** Open streams per API key. Default 8. */
  perKey?: number;
  /** Open streams in all. Default 1000. */
  total?: number;
  /** Entries read from the change log at a time. Default 500. */
  pageSize?: number;
  /** The other instances' streams, when there are others: the caps count theirs too. */
  shared?: SharedStreamCounts | undefined;
  /** This instance's counts are written again this often while a stream is open, so they do not lapse. Default 3 s. */
  publishMs?: number;
}

/** The text of a keep-alive: an SSE comment, ignored by clients. */
export const KEEP_ALIVE = ': keep-alive\n\n';

/**
 * Every open change stream. A stream keeps only a cursor (the last seq sent): it reads the change
 * log after it whenever the store commits a batch or the socket drains, so a slow client costs no
 * buffer and a change is never sent before it is durable (the log sees only committed lines).
 */
export class ChangeStreams {
  readonly #source: ChangeFeedSource;
  readonly #isKeyLive: (keyId: string) => boolean;
  readonly #timers: StreamTimers;
  readonly #keepAliveMs: number;
  readonly #revocationCheckMs: number;
  readonly #perKey: number;
  readonly #total: number;
  readonly pageSize: number;
  readonly #open = new Set<ChangeStream>();
  readonly #byKey = new Map<string, number>();
  /** The caps over every instance, when there are others. */
  readonly #admission: StreamAdmission | undefined;
  readonly #publishMs: number;
  #stopTimers: (() => void) | undefined;
  #unsubscribe: (() => void) | undefined;
  #closed = false;
  /** Frames by seq (a seq names one state of one event for good): a change going out to 1000 streams is serialised once. */
  #frames = new Map<number, string>();

  constructor(options: ChangeStreamsOptions) {
    this.#source = options.source;
    this.#isKeyLive = options.isKeyLive;
    this.#timers = options.timers ?? NODE_TIMERS;
    this.#keepAliveMs = options.keepAliveMs ?? 15_000;
    this.#revocationCheckMs = options.revocationCheckMs ?? 1_000;
    this.#perKey = options.perKey ?? 8;
    this.#total = options.total ?? 1000;
    this.pageSize = options.pageSize ?? 500;
    this.#admission = options.shared === undefined ? undefined : new StreamAdmission(options.shared, { perKey: this.#perKey, total: this.#total });
    this.#publishMs = options.publishMs ?? 3_000;
  }

  /** Streams open now (started or about to be). */
  get size(): number {
    return this.#open.size;
  }

  /**
   * A stream of the changes after `since` for the key `keyId`, counted against the caps: this instance's at once, then
   * every instance's when they are shared. Rejects with 429 past 8 streams of one key or 1000 in all, 503 once
   * shutdown began.
   */
  async open(keyId: string, since: number): Promise<ResponseStream> {
    const stream = this.openHere(keyId, since);
    return this.#admission === undefined ? stream : this.#admitted(stream, this.#admission);
  }

  /** @internal What open() does first: the stream counted against this instance's caps alone. Throws 429 past them, 503 once shutdown began. */
  openHere(keyId: string, since: number): ChangeStream {
    if (this.#closed) throw new ApiError('unavailable', 'The server is shutting down; reconnect in a moment.');
    const mine = this.#byKey.get(keyId) ?? 0;
    if (mine >= this.#perKey) {
      throw streamsFull(`This key already has ${mine} open change streams, its limit; close one before opening another.`);
    }
    if (this.#open.size >= this.#total) {
      throw streamsFull(`The server already holds ${this.#open.size} open change streams, its limit; retry in a moment.`);
    }
    const stream = new ChangeStream(this, this.#source, keyId, since);
    this.#open.add(stream);
    this.#byKey.set(keyId, mine + 1);
    if (this.#open.size === 1) this.#startTimers();
    return stream;
  }

  /** `stream`, counted here, once admitted against the caps over every instance too (else it ends, with the 429). */
  async #admitted(stream: ChangeStream, admission: StreamAdmission): Promise<ResponseStream> {
    try {
      await admission.admit(stream);
    } catch (error) {
      stream.cancel();
      throw error;
    }
    if (this.#closed) throw new ApiError('unavailable', 'The server is shutting down; reconnect in a moment.');
    return stream;
  }

  /** Ends every stream cleanly and refuses new ones (shutdown); resolves once the other instances were told (or could not be). */
  async closeAll(): Promise<void> {
    this.#closed = true;
    for (const stream of [...this.#open]) stream.end();
    await this.#admission?.idle();
  }

  /** @internal The SSE frame of a change, made once however many streams send it. */
  frameOf(change: Change): string {
    let frame = this.#frames.get(change.seq);
    if (frame === undefined) {
      if (this.#frames.size >= 1024) this.#frames.clear();
      frame = changeEventFrame(change);
      this.#frames.set(change.seq, frame);
    }
    return frame;
  }

  /** @internal A stream is done: release its slots. */
  release(stream: ChangeStream): void {
    if (!this.#open.delete(stream)) return;
    const left = (this.#byKey.get(stream.keyId) ?? 1) - 1;
    if (left === 0) this.#byKey.delete(stream.keyId);
    else this.#byKey.set(stream.keyId, left);
    if (this.#open.size === 0) this.#stopAll();
    // A slot freed here is free on every instance at once, not when the counts would next be written.
    this.#admission?.release(stream);
  }

  #startTimers(): void {
    this.#unsubscribe = this.#source.subscribe(() => {
      for (const stream of [...this.#open]) stream.pump();
    });
    const stopKeepAlive = this.#timers.every(this.#keepAliveMs, () => {
      for (const stream of this.#open) stream.keepAlive();
    });
    const stopRevocation = this.#timers.every(this.#revocationCheckMs, () => {
      for (const stream of [...this.#open]) if (!this.#isKeyLive(stream.keyId)) stream.end();
    });
    // Written again while streams are open, or the other instances would let them lapse.
    const admission = this.#admission;
    const stopPublish = admission === undefined ? () => undefined : this.#timers.every(this.#publishMs, () => admission.publishSoon());
    this.#stopTimers = () => {
      stopKeepAlive();
      stopRevocation();
      stopPublish();
    };
  }

  #stopAll(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#stopTimers?.();
    this.#stopTimers = undefined;
  }
}

/** @internal One open stream: a cursor over the change log and the sink it writes to (exported for openHere's tests). */
export class ChangeStream implements ResponseStream {
  readonly keyId: string;
  readonly #streams: ChangeStreams;
  readonly #source: ChangeFeedSource;
  /** The seq of the last entry sent; 0 until one was (then the live events only, as for `since=0`). */
  #cursor: number;
  /** The horizon when the cursor was last known safe: only deletions compacted away after that can be missed. */
  #horizonSeen: number;
  /**
   * For a stream from since=0, a full copy: the last write when it opened. Deletions up to it are of events the copy
   * never held, so none goes out, on any page (the JSON feed's copy leaves them out the same way); 0 otherwise.
   */
  readonly #began: number;
  #sink: StreamSink | undefined;
  #waitingForDrain = false;
  #done = false;

  constructor(streams: ChangeStreams, source: ChangeFeedSource, keyId: string, since: number) {
    this.#streams = streams;
    this.#source = source;
    this.keyId = keyId;
    this.#cursor = since;
    this.#horizonSeen = source.horizon;
    this.#began = since === 0 ? source.lastSeq : 0;
  }

  start(sink: StreamSink): void {
    if (this.#done) {
      sink.end();
      return;
    }
    this.#sink = sink;
    this.pump();
  }

  cancel(): void {
    this.#done = true;
    this.#sink = undefined;
    this.#streams.release(this);
  }

  /** Ends the stream cleanly (shutdown, revocation, or a position compaction made unsafe). */
  end(): void {
    const sink = this.#sink;
    this.cancel();
    sink?.end();
  }

  keepAlive(): void {
    if (this.#sink !== undefined && !this.#waitingForDrain) this.#sink.write(KEEP_ALIVE);
  }

  /** Sends every entry after the cursor, page by page, until caught up or the socket is full. */
  pump(): void {
    const sink = this.#sink;
    if (sink === undefined || this.#waitingForDrain) return;
    for (;;) {
      // A compaction since dropped a deletion after the cursor before it went out: end, so the client reconnects and hears 410.
      // (Deletions dropped before the stream opened do not count: a stream from since=0 started from an empty copy; nor,
      // while that copy is sent, those up to where it began, which it leaves out anyway.)
      const horizon = this.#source.horizon;
      if (horizon > this.#horizonSeen) {
        if (this.#cursor > 0 && this.#cursor < horizon && horizon > this.#began) {
          this.end();
          return;
        }
        this.#horizonSeen = horizon;
      }
      const page = this.#source.after(this.#cursor, this.#streams.pageSize, this.#began);
      for (const change of page.changes) {
        this.#cursor = change.seq;
        if (!sink.write(this.#streams.frameOf(change))) {
          this.#waitingForDrain = true;
          sink.onDrain(() => {
            this.#waitingForDrain = false;
            this.pump();
          });
          return;
        }
      }
      // Past what the page left out too: a stream from since=0 behind 50,000 deletions it never sends walked them all
      // again at every write (200 such streams: 100-145 ms a write).
      this.#cursor = page.through;
      if (!page.more) return;
    }
  }
}
