// Where every instance's open change streams are counted (PostgreSQL: store/postgres/stream-slots.ts), so API.md §9.2's caps hold over all of them.

/** The open streams of the other instances: of some keys (a key they hold none of may be left out), and in all. */
export interface OthersOpen {
  byKey: ReadonlyMap<string, number>;
  all: number;
}

/** The counts every instance shares; feeds/stream-admission.ts decides with them. */
export interface SharedStreamCounts {
  /**
   * Under the lock every instance takes for this: the others' open streams (of `keyIds`, and in all), and `decide`'s
   * answer, this instance's counts of the keys it admits streams for, recorded. Rejects when the database did not answer.
   */
  claim(keyIds: readonly string[], decide: (others: OthersOpen) => ReadonlyMap<string, number>): Promise<OthersOpen>;
  /** Under the same lock: this instance's counts replaced by `write`'s answer, given the others' (of `keyIds`, and in all). */
  publish(keyIds: readonly string[], write: (others: OthersOpen) => ReadonlyMap<string, number>): Promise<void>;
}
