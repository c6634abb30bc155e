// Requests whose body is still arriving when shutdown's grace runs out: each gets a 503 before its connection closes.

/**
 * The body reads in progress on a server. Shutdown lets requests in flight finish for its grace period (API.md §1);
 * a client still sending its body then would otherwise see its connection cut without a word. `answerAll` gives
 * each such request its answer (the 503 `unavailable` every request gets once shutdown has begun) instead.
 */
export class UnfinishedBodies {
  readonly #reads = new Set<() => Promise<void>>();

  /** Registers a body read; `answer` ends it with the 503 and resolves once that answer is written. Returns its removal. */
  add(answer: () => Promise<void>): () => void {
    this.#reads.add(answer);
    return () => this.#reads.delete(answer);
  }

  /** Answers every body read still in progress; resolves once their answers are written. */
  async answerAll(): Promise<void> {
    const answers = [...this.#reads].map((answer) => answer());
    this.#reads.clear();
    await Promise.all(answers);
  }

  /** How many body reads are in progress (for tests). */
  get size(): number {
    return this.#reads.size;
  }
}
