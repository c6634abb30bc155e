// A B+tree of events in list order (start time, then id) with counted subtrees and each subtree's latest end:
// insert and delete in O(log n), ranks by start time in O(log n), and a date window's misfits found without walking it.
import type { StoredEvent } from '../../events/event.js';

/** Entries of a leaf, children of a branch, at most: a splice inside a node moves at most this many pointers. */
export const MAX_ENTRIES = 64;
/** A node (other than the root) with fewer entries is merged with a neighbour, and split again if that overflows. */
export const MIN_ENTRIES = 16;
/** Entries per node of a bulk load: room for inserts before the first splits. */
const BULK_ENTRIES = 48;

export interface Leaf {
  readonly leaf: true;
  items: StoredEvent[];
  /** The largest endMs in this leaf (-Infinity when empty). */
  maxEnd: number;
  /** The next leaf in list order, so a page walks across leaves without going back up. */
  next: Leaf | undefined;
}

export interface Branch {
  readonly leaf: false;
  children: TreeNode[];
  /** The first event of each child: child i holds events from lows[i] up to (not including) lows[i + 1]. */
  lows: StoredEvent[];
  /** Events under this branch. */
  size: number;
  /** The largest endMs under this branch. */
  maxEnd: number;
}

export type TreeNode = Leaf | Branch;

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
    const split = insertInto(this.#root, stored);
    if (split !== undefined) this.#root = newBranch([this.#root, split]);
  }

  /**
   * Puts `next` where this very object `previous` is held, in one descent; false when it is not held. `next` must sort
   * where `previous` does and end when it ends (same startMs, id and endMs): a registration changes only an event's
   * count, and a delete and an insert walked the tree twice and moved entries for nothing.
   */
  replace(previous: StoredEvent, next: StoredEvent): boolean {
    let node = this.#root;
    while (!node.leaf) {
      const i = childFor(node, previous);
      // A low is the first event of its child: the replaced one may be it, on any level.
      if (node.lows[i] === previous) node.lows[i] = next;
      node = node.children[i]!;
    }
    const at = lowerBound(node.items, previous);
    if (node.items[at] !== previous) return false;
    node.items[at] = next;
    return true;
  }

  /** Removes this very object; false when it is not held. */
  delete(stored: StoredEvent): boolean {
    const removed = removeFrom(this.#root, stored);
    if (!this.#root.leaf && this.#root.children.length === 1) this.#root = this.#root.children[0]!;
    return removed;
  }

  /** How many events start before `ms`: the rank of the first event starting at or after it. */
  countStartingBefore(ms: number): number {
    let node = this.#root;
    let count = 0;
    while (!node.leaf) {
      const i = lastLowStartingBefore(node.lows, ms);
      if (i < 0) return count;
      for (let k = 0; k < i; k++) count += sizeOf(node.children[k]!);
      node = node.children[i]!;
    }
    return count + firstStartingAtOrAfter(node.items, ms);
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

function newLeaf(items: StoredEvent[]): Leaf {
  return { leaf: true, items, maxEnd: latestEnd(items), next: undefined };
}

function newBranch(children: TreeNode[]): Branch {
  // size and maxEnd are set by recount.
  const branch: Branch = { leaf: false, children, lows: children.map(lowOf), size: 0, maxEnd: 0 };
  recount(branch);
  return branch;
}

function sizeOf(node: TreeNode): number {
  return node.leaf ? node.items.length : node.size;
}

function entriesOf(node: TreeNode): number {
  return node.leaf ? node.items.length : node.children.length;
}

/** The first event under `node`; only an empty root leaf has none, and it is never a child. */
function lowOf(node: TreeNode): StoredEvent {
  return node.leaf ? node.items[0]! : node.lows[0]!;
}

function latestEnd(items: readonly StoredEvent[]): number {
  let max = -Infinity;
  for (const stored of items) max = Math.max(max, stored.endMs);
  return max;
}

/** Sets a branch's size and maxEnd from its children. */
function recount(branch: Branch): void {
  let size = 0;
  let maxEnd = -Infinity;
  for (const child of branch.children) {
    size += sizeOf(child);
    maxEnd = Math.max(maxEnd, child.maxEnd);
  }
  branch.size = size;
  branch.maxEnd = maxEnd;
}

/** Cuts `count` items into `parts` runs as even as can be. */
function evenRuns<T>(items: readonly T[], parts: number): T[][] {
  const runs: T[][] = [];
  for (let k = 0; k < parts; k++) runs.push(items.slice(Math.floor((k * items.length) / parts), Math.floor(((k + 1) * items.length) / parts)));
  return runs;
}

/** A tree of sorted events, bottom up, every node about three quarters full. */
function buildTree(sorted: readonly StoredEvent[]): TreeNode {
  if (sorted.length <= MAX_ENTRIES) return newLeaf(sorted.slice());
  const leaves = evenRuns(sorted, Math.ceil(sorted.length / BULK_ENTRIES)).map(newLeaf);
  for (let i = 0; i < leaves.length; i++) leaves[i]!.next = leaves[i + 1];
  let level: TreeNode[] = leaves;
  while (level.length > 1) level = evenRuns(level, Math.ceil(level.length / BULK_ENTRIES)).map(newBranch);
  return level[0]!;
}

/** The index of the child of `branch` whose range holds `stored` (0 when it sorts before every low). */
function childFor(branch: Branch, stored: StoredEvent): number {
  let low = 1;
  let high = branch.lows.length;
  // The largest i with lows[i] <= stored, found among 1..length-1; else 0.
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (!sortsBefore(stored, branch.lows[middle]!)) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

/**
 * Whether `a` comes before `b` in list order (compareEvents(a, b) < 0, sort-events.ts), reading each start once and comparing ids once.
 * The binary searches of every insert make some twenty of these per tree, on events whose startMs may be a getter
 * (a replayed PackedEvent); with many events at one start time, each of them reaches the ids.
 */
function sortsBefore(a: StoredEvent, b: StoredEvent): boolean {
  const aStart = a.startMs;
  const bStart = b.startMs;
  return aStart < bStart || (aStart === bStart && a.id < b.id);
}

/** The largest i with lows[i].startMs < ms, or -1. */
function lastLowStartingBefore(lows: readonly StoredEvent[], ms: number): number {
  let low = 0;
  let high = lows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (lows[middle]!.startMs < ms) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

/** The first index whose event is not before `target` in list order. */
function lowerBound(items: readonly StoredEvent[], target: StoredEvent): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sortsBefore(items[middle]!, target)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first index whose event starts at or after `ms`. */
function firstStartingAtOrAfter(items: readonly StoredEvent[], ms: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (items[middle]!.startMs < ms) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Inserts under `node`; returns the new right sibling when `node` had to split. */
function insertInto(node: TreeNode, stored: StoredEvent): TreeNode | undefined {
  if (node.leaf) {
    node.items.splice(lowerBound(node.items, stored), 0, stored);
    node.maxEnd = Math.max(node.maxEnd, stored.endMs);
    return node.items.length > MAX_ENTRIES ? splitNode(node) : undefined;
  }
  const i = childFor(node, stored);
  const child = node.children[i]!;
  const split = insertInto(child, stored);
  node.size++;
  node.maxEnd = Math.max(node.maxEnd, stored.endMs);
  node.lows[i] = lowOf(child);
  if (split === undefined) return undefined;
  node.children.splice(i + 1, 0, split);
  node.lows.splice(i + 1, 0, lowOf(split));
  return node.children.length > MAX_ENTRIES ? splitNode(node) : undefined;
}

/** Moves the upper half of `node` into a new right sibling, which it returns. */
function splitNode(node: TreeNode): TreeNode {
  if (node.leaf) {
    const right = newLeaf(node.items.splice(node.items.length >>> 1));
    node.maxEnd = latestEnd(node.items);
    right.next = node.next;
    node.next = right;
    return right;
  }
  const half = node.children.length >>> 1;
  const right = newBranch(node.children.splice(half));
  node.lows.length = half;
  recount(node);
  return right;
}

/** Removes the object `stored` from under `node`; false when it is not there. */
function removeFrom(node: TreeNode, stored: StoredEvent): boolean {
  if (node.leaf) {
    const at = lowerBound(node.items, stored);
    if (node.items[at] !== stored) return false;
    node.items.splice(at, 1);
    if (stored.endMs >= node.maxEnd) node.maxEnd = latestEnd(node.items);
    return true;
  }
  const i = childFor(node, stored);
  const child = node.children[i]!;
  if (!removeFrom(child, stored)) return false;
  node.size--;
  // Every branch holds at least 2 children here (a bulk load or a split makes at least 2, a non-root node keeps at
  // least MIN_ENTRIES, delete() lifts a root left with 1), so a small child always has a neighbour; a child that is
  // not merged holds at least MIN_ENTRIES entries, so it has a low.
  if (entriesOf(child) < MIN_ENTRIES) mergeWithNeighbour(node, i);
  else node.lows[i] = lowOf(child);
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
    into.next = from.next;
    into.maxEnd = Math.max(into.maxEnd, from.maxEnd);
  } else {
    const from = parent.children[left + 1] as Branch;
    into.children.push(...from.children);
    into.lows.push(...from.lows);
    recount(into);
  }
  parent.children.splice(left + 1, 1);
  parent.lows.splice(left + 1, 1);
  if (entriesOf(into) > MAX_ENTRIES) {
    const split = splitNode(into);
    parent.children.splice(left + 1, 0, split);
    parent.lows.splice(left + 1, 0, lowOf(split));
  }
  parent.lows[left] = lowOf(into);
}

/** Pushes onto `ranks` the ranks of events under `node` (whose first rank is `base`) starting in [fromMs, endByMs] and ending after endByMs. */
function collectEndingAfter(node: TreeNode, base: number, fromMs: number, endByMs: number, ranks: number[]): void {
  if (node.maxEnd <= endByMs) return;
  if (node.leaf) {
    for (let i = 0; i < node.items.length; i++) {
      const stored = node.items[i]!;
      if (stored.startMs > endByMs) return;
      if (stored.startMs >= fromMs && stored.endMs > endByMs) ranks.push(base + i);
    }
    return;
  }
  const { children, lows } = node;
  for (let i = 0; i < children.length; i++) {
    if (lows[i]!.startMs > endByMs) return;
    const child = children[i]!;
    // Every event of child i sorts before lows[i + 1], so starts no later than it.
    const startsTooEarly = i + 1 < lows.length && lows[i + 1]!.startMs < fromMs;
    if (!startsTooEarly) collectEndingAfter(child, base, fromMs, endByMs, ranks);
    base += sizeOf(child);
  }
}
