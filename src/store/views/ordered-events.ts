// A B+tree of events in list order (start time, then id) with counted subtrees and each subtree's latest end:
// insert and delete in O(log n), ranks by start time in O(log n), and a date window's misfits found without walking it.
import type { StoredEvent } from '../../events/event.js';
import { buildTree, childFor, EventKey, entriesOf, firstStartingAtOrAfter, insertChild, lastLowStartingBefore, latestEnd, lowOf, lowerBound, newBranch, newLeaf, recount, setLow, sizeOf, MAX_ENTRIES, MIN_ENTRIES, type Branch, type Leaf, type TreeNode } from './ordered-nodes.js';

export { MAX_ENTRIES, MIN_ENTRIES, type Branch, type Leaf, type TreeNode } from './ordered-nodes.js';

/**
 * A set of events in list order (API.md §5). Besides insert and delete, it answers in O(log n) how
 * many events start before an instant and which event sits at a rank, which makes a page and the
 * `total` of a start_date filter plain arithmetic. For an end_date filter, the events of the start
 * window that end after the end bound are found through the per-subtree latest end, skipping every
 * subtree that ends in time: cost grows with their number (events running at that instant), not with the window.
 */
export class OrderedEvents {
  #root: TreeNode;

  /** A tree of `sorted`, which must already be in list order without repeats (e.g. from sortEvents). */
  constructor(sorted: readonly StoredEvent[] = []) {
    this.#root = buildTree(sorted);
  }

  /** Number of events held. */
  get size(): number {
    return sizeOf(this.#root);
  }

  /** Adds `stored`, which must not be held already (an update deletes the old state first). */
  insert(stored: StoredEvent): void {
    const split = insertInto(this.#root, stored, new EventKey(stored), stored.endMs);
    if (split !== undefined) this.#root = newBranch([this.#root, split]);
  }

  /**
   * Puts `next` where this very object `previous` is held, in one descent; false when it is not held. `next` must sort
   * where `previous` does and end when it ends (same startMs, id and endMs): a registration changes only an event's
   * count, and a delete and an insert walked the tree twice and moved entries for nothing.
   */
  replace(previous: StoredEvent, next: StoredEvent): boolean {
    let node = this.#root;
    const key = new EventKey(previous);
    while (!node.leaf) {
      const i = childFor(node, key);
      // A low is the first event of its child: the replaced one may be it, on any level.
      if (node.lows[i] === previous) node.lows[i] = next;
      node = node.children[i]!;
    }
    const at = lowerBound(node, key);
    if (node.items[at] !== previous) return false;
    // Same start and id: the keys beside it stay.
    node.items[at] = next;
    return true;
  }

  /** Removes this very object; false when it is not held. */
  delete(stored: StoredEvent): boolean {
    const removed = removeFrom(this.#root, stored, new EventKey(stored));
    if (!this.#root.leaf && this.#root.children.length === 1) this.#root = this.#root.children[0]!;
    return removed;
  }

  /** How many events start before `ms`: the rank of the first event starting at or after it. */
  countStartingBefore(ms: number): number {
    let node = this.#root;
    let count = 0;
    while (!node.leaf) {
      const i = lastLowStartingBefore(node.lowStarts, ms);
      if (i < 0) return count;
      for (let k = 0; k < i; k++) count += sizeOf(node.children[k]!);
      node = node.children[i]!;
    }
    return count + firstStartingAtOrAfter(node.starts, ms);
  }

  /** Up to `count` events in list order from rank `from` on. */
  slice(from: number, count: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    let at = this.#leafAt(from);
    while (at !== undefined && out.length < count) {
      const { leaf } = at;
      for (let i = at.index; i < leaf.items.length && out.length < count; i++) out.push(leaf.items[i]!);
      at = leaf.next === undefined ? undefined : { leaf: leaf.next, index: 0 };
    }
    return out;
  }

  /**
   * The ranks, ascending, of the events starting in [fromMs, endByMs] that end after `endByMs`: in
   * the window of start times of an end_date filter, the ones the filter drops.
   */
  ranksEndingAfter(fromMs: number, endByMs: number): number[] {
    const ranks: number[] = [];
    collectEndingAfter(this.#root, 0, fromMs, endByMs, ranks);
    return ranks;
  }

  /**
   * Up to `count` events from rank `from` on, in list order, leaving out those that end after
   * `endByMs`, and stopping at the first event starting at or after it (an event ends after it starts, so none
   * from there on ends by `endByMs`).
   */
  sliceEndingBy(from: number, count: number, endByMs: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    let at = this.#leafAt(from);
    while (at !== undefined && out.length < count) {
      const { leaf } = at;
      for (let i = at.index; i < leaf.items.length && out.length < count; i++) {
        const stored = leaf.items[i]!;
        if (stored.startMs >= endByMs) return out;
        if (stored.endMs <= endByMs) out.push(stored);
      }
      at = leaf.next === undefined ? undefined : { leaf: leaf.next, index: 0 };
    }
    return out;
  }

  /** Every event in list order (for tests and checks; a page uses slice). */
  toArray(): StoredEvent[] {
    return this.slice(0, this.size);
  }

  /** The root node, to be read, not changed: the tests check the tree's structure through it. */
  get root(): TreeNode {
    return this.#root;
  }

  /** The leaf holding rank `rank` and the index there; undefined past the end. */
  #leafAt(rank: number): { leaf: Leaf; index: number } | undefined {
    if (rank < 0 || rank >= this.size) return undefined;
    let node = this.#root;
    while (!node.leaf) {
      let i = 0;
      for (; i < node.children.length - 1; i++) {
        const size = sizeOf(node.children[i]!);
        if (rank < size) break;
        rank -= size;
      }
      node = node.children[i]!;
    }
    return { leaf: node, index: rank };
  }
}

/** Inserts `stored`, at `key`, under `node`; returns the new right sibling when `node` had to split. */
function insertInto(node: TreeNode, stored: StoredEvent, key: EventKey, endMs: number): TreeNode | undefined {
  if (node.leaf) {
    const at = lowerBound(node, key);
    node.items.splice(at, 0, stored);
    node.starts.splice(at, 0, key.start);
    node.idKeys.splice(2 * at, 0, key.high, key.low);
    if (endMs > node.maxEnd) node.maxEnd = endMs;
    return node.items.length > MAX_ENTRIES ? splitNode(node) : undefined;
  }
  const i = childFor(node, key);
  const child = node.children[i]!;
  const split = insertInto(child, stored, key, endMs);
  node.size++;
  if (endMs > node.maxEnd) node.maxEnd = endMs;
  // Only an event sorting before every other one under child 0 changes a low.
  if (lowOf(child) !== node.lows[i]) setLow(node, i, lowOf(child));
  if (split === undefined) return undefined;
  insertChild(node, i + 1, split);
  return node.children.length > MAX_ENTRIES ? splitNode(node) : undefined;
}

/** Moves the upper half of `node` into a new right sibling, which it returns. */
function splitNode(node: TreeNode): TreeNode {
  if (node.leaf) {
    const half = node.items.length >>> 1;
    const right = newLeaf(node.items.splice(half));
    node.starts.length = half;
    node.idKeys.length = 2 * half;
    node.maxEnd = latestEnd(node.items);
    right.next = node.next;
    node.next = right;
    return right;
  }
  const half = node.children.length >>> 1;
  const right = newBranch(node.children.splice(half));
  node.lows.length = half;
  node.lowStarts.length = half;
  node.lowIdKeys.length = 2 * half;
  recount(node);
  return right;
}

/** Removes the object `stored` from under `node`; false when it is not there. */
function removeFrom(node: TreeNode, stored: StoredEvent, key: EventKey): boolean {
  if (node.leaf) {
    const at = lowerBound(node, key);
    if (node.items[at] !== stored) return false;
    node.items.splice(at, 1);
    node.starts.splice(at, 1);
    node.idKeys.splice(2 * at, 2);
    if (stored.endMs >= node.maxEnd) node.maxEnd = latestEnd(node.items);
    return true;
  }
  const i = childFor(node, key);
  const child = node.children[i]!;
  if (!removeFrom(child, stored, key)) return false;
  node.size--;
  // Every branch holds at least 2 children here (a bulk load or a split makes at least 2, a non-root node keeps at
  // least MIN_ENTRIES, delete() lifts a root left with 1), so a small child always has a neighbour; a child that is
  // not merged holds at least MIN_ENTRIES entries, so it has a low.
  if (entriesOf(child) < MIN_ENTRIES) mergeWithNeighbour(node, i);
  else if (node.lows[i] !== lowOf(child)) setLow(node, i, lowOf(child));
  if (stored.endMs >= node.maxEnd) recount(node);
  return true;
}

/** Merges child `i` of `parent`, grown too small, with a neighbour; splits the result again if it overflows. */
function mergeWithNeighbour(parent: Branch, i: number): void {
  const left = i > 0 ? i - 1 : i;
  const into = parent.children[left]!;
  // Siblings are at one depth: both leaves or both branches.
  if (into.leaf) {
    const from = parent.children[left + 1] as Leaf;
    into.items.push(...from.items);
    into.starts.push(...from.starts);
    into.idKeys.push(...from.idKeys);
    into.next = from.next;
    into.maxEnd = Math.max(into.maxEnd, from.maxEnd);
  } else {
    const from = parent.children[left + 1] as Branch;
    into.children.push(...from.children);
    into.lows.push(...from.lows);
    into.lowStarts.push(...from.lowStarts);
    into.lowIdKeys.push(...from.lowIdKeys);
    recount(into);
  }
  parent.children.splice(left + 1, 1);
  parent.lows.splice(left + 1, 1);
  parent.lowStarts.splice(left + 1, 1);
  parent.lowIdKeys.splice(2 * (left + 1), 2);
  if (entriesOf(into) > MAX_ENTRIES) insertChild(parent, left + 1, splitNode(into));
  setLow(parent, left, lowOf(into));
}

/** Pushes onto `ranks` the ranks of events under `node` (whose first rank is `base`) starting in [fromMs, endByMs] and ending after endByMs. */
function collectEndingAfter(node: TreeNode, base: number, fromMs: number, endByMs: number, ranks: number[]): void {
  if (node.maxEnd <= endByMs) return;
  if (node.leaf) {
    const starts = node.starts;
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i]!;
      if (start > endByMs) return;
      if (start >= fromMs && node.items[i]!.endMs > endByMs) ranks.push(base + i);
    }
    return;
  }
  const { children, lowStarts } = node;
  for (let i = 0; i < children.length; i++) {
    if (lowStarts[i]! > endByMs) return;
    const child = children[i]!;
    // Every event of child i sorts before lows[i + 1], so starts no later than it.
    const startsTooEarly = i + 1 < lowStarts.length && lowStarts[i + 1]! < fromMs;
    if (!startsTooEarly) collectEndingAfter(child, base, fromMs, endByMs, ranks);
    base += sizeOf(child);
  }
}
