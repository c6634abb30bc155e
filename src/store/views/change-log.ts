// What the change feed reads from the store: which events changed after a sequence number, deletions kept as tombstones.
import { isHidden, type StoredEvent } from '../../events/event.js';
import { readCopyToken, signCopyToken, type CopyStart } from './copy-token.js';

/**
 * What a write does to the change feed's public view (API.md §14): the event after it when it is public (published or
 * cancelled), null when it leaves public view (deleted, or made a draft or pending again), undefined when nobody else
 * saw anything (a draft changed or deleted, or a line that left the event as it was).
 */
export function publicChange(before: StoredEvent | undefined, after: StoredEvent | null | undefined): StoredEvent | null | undefined {
  if (after === undefined) return undefined;
  if (after !== null && !isHidden(after)) return after;
  return before !== undefined && !isHidden(before) ? null : undefined;
}

/** One event's latest change: its state now, or null when the change deleted it. */
export interface Change {
  seq: number;
  id: string;
  event: StoredEvent | null;
}

/** A page of changes after a position. */
export interface ChangePage {
  changes: Change[];
  /** True when more changes follow the last one. */
  more: boolean;
  /**
   * The seq of the last entry read, sent or left out (`since` when none was): what was left out (superseded, hidden,
   * a deletion a copy never held) stays out, so a reader may go on from there.
   */
  through: number;
}

/** What the change feed may ask of a store (read-only; the store stays free of HTTP). */
export interface ChangeFeedSource {
  /**
   * The latest change of each event changed after `since`, in seq order, at most `limit`.
   * Deletions at or before `liveThrough` are left out (a copy that began there never held those
   * events); by default every deletion when `since = 0` (a full copy has nothing to delete), else none.
   */
  after(since: number, limit: number, liveThrough?: number): ChangePage;
  /** The copy token (API.md §9.2) of a full copy that began at `start`. */
  copyToken(start: CopyStart): string;
  /** Where the copy of a token began, or undefined when the token is malformed or forged. */
  readCopyToken(token: string): CopyStart | undefined;
  /** The seq of the last durable line (0 for an empty log): a position past it was never written. */
  readonly lastSeq: number;
  /** The newest seq of a deletion that compaction dropped (0 for none): a position in (0, horizon) may have missed it. */
  readonly horizon: number;
  /** Calls `listener` after each durable batch that changed events (never before its fsync); returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

/**
 * The change index: (seq, id) pairs appended in seq order as changes commit. An entry counts only while
 * it is still its event's latest change (live event's seq or tombstone's seq); superseded entries are
 * skipped and dropped by a rebuild once they outnumber the live ones. A page costs a binary search
 * plus the entries it walks, not a walk over every event.
 */
export class ChangeLog implements ChangeFeedSource {
  readonly #lookup: (id: string) => StoredEvent | undefined;
  #seqs: number[] = [];
  #ids: string[] = [];
  /** Tombstones hiddenAt met behind the index's end, placed in seq order at its next read: one merge, not a splice each. */
  #unplaced: { seq: number; id: string }[] = [];
  /** Deleted events: id → seq of the deletion, kept until compaction drops the line. */
  readonly #tombstones = new Map<string, number>();
  #horizon: number;
  #lastSeq: number;
  readonly #listeners = new Set<() => void>();
  readonly #copyKey: string | undefined;

  /**
   * @param lookup the committed state of an event (the store's index).
   * @param init what replay found: live events in seq order, tombstones, the last seq and the horizon.
   */
  constructor(lookup: (id: string) => StoredEvent | undefined, init: { events?: Iterable<StoredEvent>; tombstones?: ReadonlyMap<string, number>; lastSeq?: number; horizon?: number; copyKey?: string } = {}) {
    this.#lookup = lookup;
    this.#copyKey = init.copyKey;
    this.#lastSeq = init.lastSeq ?? 0;
    this.#horizon = init.horizon ?? 0;
    for (const [id, seq] of init.tombstones ?? []) this.#tombstones.set(id, seq);
    this.#rebuild(init.events ?? []);
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  get horizon(): number {
    return this.#horizon;
  }

  /** Entries in the change index now, superseded ones included: what its memory bound is about (for tests). */
  get indexLength(): number {
    this.#place();
    return this.#seqs.length;
  }

  /** Tombstones held now (for compaction and tests). */
  get tombstones(): ReadonlyMap<string, number> {
    return this.#tombstones;
  }

  /**
   * Notes a durable line at `seq`; `state` is the event after it as others see it (null: deleted or hidden,
   * undefined: nothing others see changed): see publicChange.
   */
  committed(seq: number, id: string, state: StoredEvent | null | undefined): void {
    this.#lastSeq = seq;
    if (state === undefined) return;
    // Delete first, so the map stays in seq order.
    this.#tombstones.delete(id);
    if (state === null) this.#tombstones.set(id, seq);
    this.#seqs.push(seq);
    this.#ids.push(id);
  }

  /** After a durable batch: tells the listeners (change streams), then rebuilds the index when it is mostly superseded. */
  batchCommitted(liveEvents: Iterable<StoredEvent>, liveCount: number): void {
    this.#place();
    if (this.#seqs.length > 1024 && this.#seqs.length > 2 * (liveCount + this.#tombstones.size)) this.#rebuild(liveEvents);
    for (const listener of [...this.#listeners]) listener();
  }

  /**
   * A draft or pending event `id` that left public view at `seq` (its line says so: StoredEvent.hiddenAt), met with no
   * state before it (a log compacted elsewhere, read from its start): its tombstone, in seq order among the entries.
   */
  hiddenAt(seq: number, id: string): void {
    if (this.#tombstones.get(id) === seq) return;
    this.#tombstones.delete(id);
    this.#tombstones.set(id, seq);
    this.#unplaced.push({ seq, id });
  }

  /**
   * Merges the tombstones hiddenAt met into the index, each after the entries of its seq or before (as a binary search
   * and a splice each would, which made a start on a log of 200,000 such events take 32 s).
   */
  #place(): void {
    if (this.#unplaced.length === 0) return;
    const unplaced = this.#unplaced.sort((a, b) => a.seq - b.seq);
    this.#unplaced = [];
    const seqs: number[] = [];
    const ids: string[] = [];
    let next = 0;
    for (let at = 0; at < this.#seqs.length; at++) {
      for (; next < unplaced.length && unplaced[next]!.seq < this.#seqs[at]!; next++) {
        seqs.push(unplaced[next]!.seq);
        ids.push(unplaced[next]!.id);
      }
      seqs.push(this.#seqs[at]!);
      ids.push(this.#ids[at]!);
    }
    for (; next < unplaced.length; next++) {
      seqs.push(unplaced[next]!.seq);
      ids.push(unplaced[next]!.id);
    }
    this.#seqs = seqs;
    this.#ids = ids;
  }

  /** The tombstones of events no longer live (deleted), which compaction drops: those of drafts once public stay with their line. */
  deletions(): Map<string, number> {
    const gone = new Map<string, number>();
    for (const [id, seq] of this.#tombstones) if (this.#lookup(id) === undefined) gone.set(id, seq);
    return gone;
  }

  /**
   * Compaction dropped every deletion up to `throughSeq`: forget their tombstones, and answer 410 for positions before
   * the newest. A hidden event's tombstone stays: its own put line, which compaction keeps, says where it is.
   */
  dropDeletionsThrough(throughSeq: number): number {
    for (const [id, seq] of this.#tombstones) {
      if (seq > throughSeq || this.#lookup(id) !== undefined) continue;
      this.#tombstones.delete(id);
      if (seq > this.#horizon) this.#horizon = seq;
    }
    return this.#horizon;
  }

  /**
   * A compacted log's mark line, applied by an instance that did not compact (a PostgreSQL store migrated from a data
   * folder): the deletions through `gone` are gone, the newest of them at `gone`, whether or not it held their tombstones.
   */
  markDropped(gone: number): void {
    this.dropDeletionsThrough(gone);
    if (gone > this.#horizon) this.#horizon = gone;
  }

  /**
   * Starts over from a state read elsewhere (a PostgreSQL instance's start, or one that fell behind a checkpoint: the
   * rows it had not read were dropped): the live events in seq order, the deletions still remembered, the last seq and
   * the newest deletion forgotten (never lowered). The listeners stay, told at the next batchCommitted.
   */
  restart(init: { events: Iterable<StoredEvent>; tombstones?: ReadonlyMap<string, number>; lastSeq: number; horizon: number }): void {
    this.#tombstones.clear();
    for (const [id, seq] of init.tombstones ?? []) this.#tombstones.set(id, seq);
    this.#lastSeq = init.lastSeq;
    if (init.horizon > this.#horizon) this.#horizon = init.horizon;
    this.#rebuild(init.events);
  }

  after(since: number, limit: number, liveThrough: number = since === 0 ? Infinity : 0): ChangePage {
    this.#place();
    const changes: Change[] = [];
    let through = since;
    for (let at = firstAfter(this.#seqs, since); at < this.#seqs.length; at++) {
      const change = this.#current(at, this.#seqs[at]! <= liveThrough);
      if (change !== undefined) {
        if (changes.length === limit) return { changes, more: true, through };
        changes.push(change);
      }
      through = this.#seqs[at]!;
    }
    return { changes, more: false, through };
  }

  copyToken(start: CopyStart): string {
    return signCopyToken(start, this.#copyKey);
  }

  readCopyToken(token: string): CopyStart | undefined {
    return readCopyToken(token, this.#copyKey);
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The change at position `at` if it is still its event's latest (and not a deletion when `liveOnly`). */
  #current(at: number, liveOnly: boolean): Change | undefined {
    const seq = this.#seqs[at]!;
    const id = this.#ids[at]!;
    const event = this.#lookup(id);
    // A draft or pending event is no change anyone else sees: only its tombstone, if it was public before.
    if (event !== undefined && (event.status === undefined || !isHidden(event))) return event.seq === seq ? { seq, id, event } : undefined;
    if (liveOnly) return undefined;
    return this.#tombstones.get(id) === seq ? { seq, id, event: null } : undefined;
  }

  /** The index again from the live events and the tombstones (each in seq order, as the index and the map keep them), merged. */
  #rebuild(liveEvents: Iterable<StoredEvent>): void {
    // Built from the live events and every tombstone, those still unplaced included.
    this.#unplaced = [];
    const seqs: number[] = [];
    const ids: string[] = [];
    const deleted = [...this.#tombstones];
    let next = 0;
    for (const event of liveEvents) {
      if (event.status !== undefined && isHidden(event)) continue;
      while (next < deleted.length && deleted[next]![1] < event.seq) {
        seqs.push(deleted[next]![1]);
        ids.push(deleted[next++]![0]);
      }
      seqs.push(event.seq);
      ids.push(event.id);
    }
    for (; next < deleted.length; next++) {
      seqs.push(deleted[next]![1]);
      ids.push(deleted[next]![0]);
    }
    for (let i = 1; i < seqs.length; i++) {
      // Not in seq order after all (never expected): sort, rather than answer pages out of order.
      if (seqs[i]! <= seqs[i - 1]!) return this.#sortedRebuild(seqs, ids);
    }
    this.#seqs = seqs;
    this.#ids = ids;
  }

  #sortedRebuild(seqs: number[], ids: string[]): void {
    const order = seqs.map((_, i) => i).sort((a, b) => seqs[a]! - seqs[b]!);
    this.#seqs = order.map((i) => seqs[i]!);
    this.#ids = order.map((i) => ids[i]!);
  }
}

/** The first position whose seq is greater than `since`. */
function firstAfter(seqs: readonly number[], since: number): number {
  let low = 0;
  let high = seqs.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (seqs[mid]! <= since) low = mid + 1;
    else high = mid;
  }
  return low;
}
