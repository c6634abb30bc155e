// Shares the event loop fairly between long pieces of work: one slice of one of them per turn of the loop, so a
// request that needs little (a single read) is answered between the slices of those that need much.

/**
 * A queue of work waiting for the loop: `next()` resolves once per turn, the oldest waiter first. Between two
 * resolutions the loop polls for I/O, so requests that arrived meanwhile are read and answered.
 */
export class LoopTurns {
  #waiting: (() => void)[] = [];
  #scheduled = false;

  /** Resolves on a later turn of the loop, after every waiter queued before. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#schedule();
    });
  }

  /** Waiters not yet given their turn. */
  get waiting(): number {
    return this.#waiting.length;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // An immediate queued while immediates run goes to the next turn: after this one's, the loop polls again.
    setImmediate(() => {
      this.#scheduled = false;
      const first = this.#waiting.shift();
      if (this.#waiting.length > 0) this.#schedule();
      first?.();
    });
  }
}

/** The turns of this process's one event loop, shared by every kind of long work. */
export const loopTurns = new LoopTurns();

/** Work in steps: a generator that yields between steps (each short) and returns its answer. */
export type Steps<T> = Generator<void, T, void>;

/** Runs all of `steps` at once (the answer now, the loop held until then). */
export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** How runInSlices shares the loop. */
export interface SliceOptions {
  /** The state the steps read: a change of it between two slices makes their answer stale. */
  version: () => number;
  /** The most a slice holds the loop, in ms (default 4). */
  budgetMs?: number;
  /** Starts over at most this many times when the state changed under the steps; then the rest runs at once (default 2). */
  maxRestarts?: number;
  turns?: LoopTurns;
  now?: () => number;
}

/**
 * Runs the steps that `start` makes in slices of at most `budgetMs`, each on a turn of its own. The answer is the
 * one they give against a single state: when `version()` changed while they waited for a turn (a write committed),
 * they start over, so an answer never mixes two states; after `maxRestarts` the last run goes to its end at once.
 */
export async function runInSlices<T>(start: () => Steps<T>, options: SliceOptions): Promise<T> {
  const turns = options.turns ?? loopTurns;
  const now = options.now ?? performance.now.bind(performance);
  const budgetMs = options.budgetMs ?? 4;
  const maxRestarts = options.maxRestarts ?? 2;
  for (let restarts = 0; ; restarts++) {
    // The first slice runs at once when no other long work waits for the loop (a search that needs one slice pays no
    // turn); otherwise it waits its turn behind theirs.
    if (restarts > 0 || turns.waiting > 0) await turns.next();
    const version = options.version();
    const steps = start();
    let sliceStart = now();
    for (;;) {
      const step = steps.next();
      if (step.done === true) return step.value;
      if (restarts >= maxRestarts || now() - sliceStart < budgetMs) continue;
      await turns.next();
      // Stale: these steps are dropped (a generator holds nothing to release) and new ones start.
      if (options.version() !== version) break;
      sliceStart = now();
    }
  }
}
