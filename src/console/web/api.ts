// The API client: every call carries the signed-in key; every failure becomes an ApiProblem with words to show.
import { ApiProblem, problemFrom } from './problem.js';

export interface ApiAnswer<T> {
  status: number;
  data: T;
  etag: string | null;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Where the API is: the path the console is served under, without `/console/...` (so a mounted app works too). */
export function apiBase(pathname: string): string {
  const at = pathname.lastIndexOf('/console/');
  return at === -1 ? '' : pathname.slice(0, at);
}

/** How long a request waits for the answer's head: a server that stopped with the connection open never sends it. */
const ANSWER_MS = 30_000;

export class Api {
  constructor(
    readonly base: string,
    private readonly key: () => string | null,
    /** Called on a 401: the key was revoked, or never good. */
    private readonly onUnauthorized: () => void,
    private readonly answerMs = ANSWER_MS,
  ) {}

  /** A JSON call; resolves with the parsed body (undefined for 204), rejects with an ApiProblem. */
  async json<T>(method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer<T>> {
    const response = await this.send(method, path, { ...options, headers: { Accept: 'application/json', ...options.headers } });
    const text = await response.text();
    return { status: response.status, data: (text === '' ? undefined : JSON.parse(text)) as T, etag: response.headers.get('ETag') };
  }

  /** A call whose answer is read as text (CSV, iCalendar). */
  async text(path: string, accept: string): Promise<string> {
    const response = await this.send('GET', path, { headers: { Accept: accept } });
    return response.text();
  }

  /** Sends a request with the key; a non-2xx answer is thrown as an ApiProblem. The raw Response is for streams. */
  async send(method: string, path: string, options: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    const key = this.key();
    if (key !== null) headers['Authorization'] = `Bearer ${key}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    // Aborted by the caller, or when no answer has begun after answerMs (a stream's body may then take its time).
    const waiting = new AbortController();
    const giveUp = (): void => waiting.abort();
    options.signal?.addEventListener('abort', giveUp, { once: true });
    if (options.signal?.aborted === true) giveUp();
    const timer = setTimeout(giveUp, this.answerMs);
    let response: Response;
    try {
      response = await fetch(this.base + path, { method, headers, body, signal: waiting.signal, cache: 'no-store' });
    } catch (error) {
      if (options.signal?.aborted === true) throw error;
      if (waiting.signal.aborted) {
        throw new ApiProblem(0, 'timeout', `The server did not answer within ${this.answerMs / 1000} s, so this may or may not have been done. Check before trying again.`);
      }
      throw new ApiProblem(0, 'network', 'The server could not be reached. Check your connection and that the server is running, then try again.');
    } finally {
      clearTimeout(timer);
    }
    if (response.ok) return response;
    const problem = problemFrom(response.status, await response.text(), response.headers.get('Retry-After'), response.headers.get('X-Request-Id'));
    if (response.status === 401) this.onUnauthorized();
    throw problem;
  }
}

/** A query string from the non-empty entries, e.g. `?category=social&page=2`. */
export function queryString(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
