// Live updates from the change feed (API.md §9.2), read with fetch streaming and reconnected with Last-Event-ID.
import type { Api } from './api.js';
import { ApiProblem } from './problem.js';
import { SseParser } from './sse.js';

/** One change: an event's state now, or its deletion. */
export interface ChangeEntry {
  seq: number;
  id: string;
  deleted: boolean;
  event: unknown;
}

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'unavailable';

const MAX_BACKOFF_MS = 30_000;
/**
 * The server writes a comment into the stream every 15 s (API.md §9.2); a stream silent for this long comes from an
 * instance that stopped with its connection open, and is dropped and opened again.
 */
const SILENCE_MS = 40_000;

/** Follows the feed from now on, calling `onChange` for each change; `stop()` ends it. */
export class LiveFeed {
  #controller: AbortController | undefined;
  #since = 0;
  #stopped = false;
  #failures = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #watchdog: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: Api,
    private readonly onChange: (entry: ChangeEntry) => void,
    private readonly onState: (state: LiveState, why?: string) => void,
    /** The first reconnection delay; each failure in a row doubles it, up to 30 s. */
    private readonly baseDelayMs = 500,
    /** How long the feed may say nothing, from the first request on, before it is given up and opened again. */
    private readonly silenceMs = SILENCE_MS,
  ) {}

  start(): void {
    this.onState('connecting');
    void this.#run(true);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#watchdog);
    this.#controller?.abort();
  }

  /** Learns the newest position (the console shows current data already), then streams from it. */
  async #run(fromHead: boolean): Promise<void> {
    if (this.#stopped) return;
    const controller = (this.#controller = new AbortController());
    const signal = controller.signal;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let silent = false;
    const heard = (): void => {
      clearTimeout(this.#watchdog);
      this.#watchdog = setTimeout(() => {
        silent = true;
        controller.abort();
        void reader?.cancel().catch(() => undefined);
      }, this.silenceMs);
    };
    const silence = `The server sent nothing for ${this.silenceMs / 1000} s.`;
    heard();
    try {
      if (fromHead) this.#since = await this.#head(signal);
      const headers: Record<string, string> = { Accept: 'text/event-stream' };
      // What a browser's EventSource sends when it reconnects; the server resumes after it.
      if (this.#since > 0) headers['Last-Event-ID'] = String(this.#since);
      const response = await this.api.send('GET', `/changes?since=${this.#since}`, { headers, signal });
      if (response.body === null) throw new Error('the change feed sent no body');
      this.onState('live');
      this.#failures = 0;
      const parser = new SseParser();
      const decoder = new TextDecoder();
      reader = response.body.getReader();
      for (;;) {
        heard();
        const { value, done } = await reader.read();
        if (done) break;
        for (const message of parser.push(decoder.decode(value, { stream: true }))) {
          if (message.event !== 'change') continue;
          const entry = JSON.parse(message.data) as ChangeEntry;
          this.#since = Math.max(this.#since, entry.seq);
          this.onChange(entry);
        }
      }
      this.#retry(false, silent ? silence : 'The server ended the stream.');
    } catch (error) {
      if (this.#stopped) return;
      if (silent) return this.#retry(false, silence);
      if (signal.aborted) return;
      if (error instanceof ApiProblem) {
        // 401: signed out elsewhere; 403: a role without the feed; 404: a server without the feed.
        if (error.status === 401 || error.status === 403 || error.status === 404) {
          this.onState('unavailable', error.status === 404 ? 'this server has no change feed' : error.message);
          return;
        }
        // 410: the position is older than the log holds; start again from what is there now.
        if (error.status === 410) {
          this.#retry(true, error.message);
          return;
        }
        // A timeout's sentence is a save's ("may or may not have been done"): the feed only reads.
        this.#retry(false, error.code === 'timeout' ? 'The server did not answer in time.' : error.message, Number(error.retryAfter) * 1000);
        return;
      }
      this.#retry(false, `The change feed could not be read (${error instanceof Error ? error.message : String(error)}).`);
    } finally {
      if (this.#controller === controller) clearTimeout(this.#watchdog);
    }
  }

  #retry(fromHead: boolean, why: string, atLeastMs = 0): void {
    if (this.#stopped) return;
    this.#failures++;
    this.onState('reconnecting', why);
    const backoff = Math.min(MAX_BACKOFF_MS, this.baseDelayMs * 2 ** Math.min(this.#failures - 1, 6));
    this.#timer = setTimeout(() => void this.#run(fromHead), Math.max(backoff, Number.isFinite(atLeastMs) ? atLeastMs : 0));
  }

  /**
   * The newest sequence number: the feed's `Last-Seq`, read from its smallest page (not a copy of every event). Where a
   * proxy dropped that header, the pages' `next_since` once `more` is false, as a client of the contract alone finds it.
   */
  async #head(signal: AbortSignal): Promise<number> {
    let since = 0;
    for (let limit = 1; ; limit = 1000) {
      const response = await this.api.send('GET', `/changes?since=${since}&limit=${limit}`, { signal });
      const head = response.headers.get('Last-Seq');
      if (head !== null && /^\d+$/.test(head)) {
        await response.body?.cancel();
        return Number(head);
      }
      const page = (await response.json()) as { next_since: number; more: boolean };
      if (!page.more) return page.next_since;
      since = page.next_since;
    }
  }
}
