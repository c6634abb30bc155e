// What one load run asks for and what it measured: shared by the Node load generator and the wrk runner.

/** One run against one server: cycle through GET paths, with every Nth request a POST when `post` is set. */
export interface LoadPlan {
  /** The server's base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** GET targets, used in turn. */
  paths: readonly string[];
  /** Connections, each with one request in flight. */
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** The whole Authorization header value, when the server wants a key. */
  authorization?: string;
  /** A JSON POST replacing every `every`-th request (1: all of them). */
  /** `{{n}}` in the body becomes a number never sent before in this process (registrations need distinct e-mails). */
  /** `paths`, when given, are the POST targets used in turn instead of `path` (registrations spread over many events). */
  post?: { path: string; body: string; every: number; paths?: readonly string[] };
}

/** What a run measured; warm-up requests are counted apart and not in the rate or the latencies. */
export interface LoadResult {
  generator: 'wrk' | 'node';
  /** Responses in the measured window. */
  requests: number;
  /** Responses during the warm-up. */
  warmupRequests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses other than 2xx, warm-up included (wrk counts status ≥ 400 only; no scenario here gets a 3xx). */
  non2xx: number;
  /** Connection errors and time-outs, warm-up included. */
  socketErrors: number;
  /**
   * CPU time the server process spent per response in the measured window, in microseconds (filled in by the
   * bench from /proc, not by the generator). Unlike the rate, it barely moves when other work shares the machine.
   */
  serverCpuMicros?: number;
  /** Of it, in user space (the rest in the kernel). */
  serverUserMicros?: number;
}

/** A load generator: runs one plan and reports what it measured; `onMeasuring` is called as the warm-up ends. */
export type RunLoad = (plan: LoadPlan, onMeasuring?: () => void) => Promise<LoadResult>;

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
