// Notices that this process did not run for a while (SIGSTOP, a paused virtual machine, a blocked event loop) and
// holds requests until it has caught up with what others did meanwhile.

/** Options of StallGuard. */
export interface StallGuardOptions {
  /** What catching up is: reading the changes and keys others made meanwhile. */
  catchUp: () => Promise<unknown>;
  /** A gap between two beats longer than this means the process stood still. Default 300 ms. */
  thresholdMs?: number;
  /** How often the beat runs. Default 100 ms. */
  intervalMs?: number;
  /** The longest a request waits for a catch-up before it is answered from memory anyway. Default 1,500 ms. */
  maxWaitMs?: number;
  /** A monotonic clock in ms. Default performance.now. */
  clock?: () => number;
}

/**
 * On several instances, an instance that stood still misses other instances' writes and revoked keys until its
 * next poll, yet on resuming it reads its sockets first: the requests that waited for it would be answered from a
 * stale memory (API.md §12 allows another instance 1 s to see a write, and 2 s for a key). A beat every 100 ms
 * tells: when the time since the last beat is past the threshold, `check()` hands each request a promise that
 * settles once a catch-up started after the stall has finished (or `maxWaitMs` passed), and undefined otherwise.
 */
export class StallGuard {
  readonly #catchUp: () => Promise<unknown>;
  readonly #thresholdMs: number;
  readonly #maxWaitMs: number;
  readonly #clock: () => number;
  readonly #timer: NodeJS.Timeout;
  #beat: number;
  #pending: Promise<void> | undefined;

  constructor(options: StallGuardOptions) {
    this.#catchUp = options.catchUp;
    this.#thresholdMs = options.thresholdMs ?? 300;
    this.#maxWaitMs = options.maxWaitMs ?? 1_500;
    this.#clock = options.clock ?? (() => performance.now());
    this.#beat = this.#clock();
    this.#timer = setInterval(() => this.beat(), options.intervalMs ?? 100);
    this.#timer.unref();
  }

  /** Undefined while the process has run all along; else a promise of the catch-up to wait for (it never rejects). */
  check(): Promise<void> | undefined {
    this.#startIfStalled();
    return this.#pending;
  }

  /** The timer's beat (public for tests with a clock of their own): a late one starts a catch-up. */
  beat(): void {
    this.#startIfStalled();
    this.#beat = this.#clock();
  }

  /** Stops the beat. */
  close(): void {
    clearInterval(this.#timer);
  }

  #startIfStalled(): void {
    if (this.#pending === undefined && this.#clock() - this.#beat > this.#thresholdMs) this.#start();
  }

  #start(): void {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#maxWaitMs)));
    const caughtUp = this.#catchUp().then(
      () => undefined,
      () => undefined,
    );
    this.#pending = Promise.race([caughtUp, late]).finally(() => {
      clearTimeout(timer);
      this.#pending = undefined;
      this.#beat = this.#clock();
    });
  }
}
