// The nodes of OrderedEvents' B+tree (ordered-events.ts): their shapes, how they are built, and the searches by key
// (start time, then id) inside one node.
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
  /** Each item's startMs and id, in step with `items`: the searches read plain arrays, not events of several shapes. */
  starts: number[];
  ids: string[];
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
  /** Each low's startMs and id, in step with `lows`. */
  lowStarts: number[];
  lowIds: string[];
  /** Events under this branch. */
  size: number;
  /** The largest endMs under this branch. */
  maxEnd: number;
}

export type TreeNode = Leaf | Branch;

export function newLeaf(items: StoredEvent[]): Leaf {
  return { leaf: true, items, starts: items.map(startOf), ids: items.map(idOf), maxEnd: latestEnd(items), next: undefined };
}

const startOf = (stored: StoredEvent): number => stored.startMs;
const idOf = (stored: StoredEvent): string => stored.id;

export function newBranch(children: TreeNode[]): Branch {
  // size and maxEnd are set by recount.
  const lows = children.map(lowOf);
  const branch: Branch = { leaf: false, children, lows, lowStarts: lows.map(startOf), lowIds: lows.map(idOf), size: 0, maxEnd: 0 };
  recount(branch);
  return branch;
}

export function sizeOf(node: TreeNode): number {
  return node.leaf ? node.items.length : node.size;
}

export function entriesOf(node: TreeNode): number {
  return node.leaf ? node.items.length : node.children.length;
}

/** The first event under `node`; only an empty root leaf has none, and it is never a child. */
export function lowOf(node: TreeNode): StoredEvent {
  return node.leaf ? node.items[0]! : node.lows[0]!;
}

export function latestEnd(items: readonly StoredEvent[]): number {
  let max = -Infinity;
  for (const stored of items) max = Math.max(max, stored.endMs);
  return max;
}

/** Sets a branch's size and maxEnd from its children. */
export function recount(branch: Branch): void {
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
export function buildTree(sorted: readonly StoredEvent[]): TreeNode {
  if (sorted.length <= MAX_ENTRIES) return newLeaf(sorted.slice());
  const leaves = evenRuns(sorted, Math.ceil(sorted.length / BULK_ENTRIES)).map(newLeaf);
  for (let i = 0; i < leaves.length; i++) leaves[i]!.next = leaves[i + 1];
  let level: TreeNode[] = leaves;
  while (level.length > 1) level = evenRuns(level, Math.ceil(level.length / BULK_ENTRIES)).map(newBranch);
  return level[0]!;
}

/** Sets low `i` of `branch` to `stored`, with its keys. */
export function setLow(branch: Branch, i: number, stored: StoredEvent): void {
  branch.lows[i] = stored;
  branch.lowStarts[i] = stored.startMs;
  branch.lowIds[i] = stored.id;
}

/** Puts child `child` at `i` of `branch`, and its low. */
export function insertChild(branch: Branch, i: number, child: TreeNode): void {
  const low = lowOf(child);
  branch.children.splice(i, 0, child);
  branch.lows.splice(i, 0, low);
  branch.lowStarts.splice(i, 0, low.startMs);
  branch.lowIds.splice(i, 0, low.id);
}

/** The index of the child of `branch` whose range holds the event at (`start`, `id`) (0 when it sorts before every low). */
export function childFor(branch: Branch, start: number, id: string): number {
  const starts = branch.lowStarts;
  let low = 1;
  let high = starts.length;
  // The largest i with lows[i] <= the event, found among 1..length-1; else 0.
  while (low < high) {
    const middle = (low + high) >>> 1;
    const lowStart = starts[middle]!;
    if (start > lowStart || (start === lowStart && id >= branch.lowIds[middle]!)) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

/** The largest i with lowStarts[i] < ms, or -1. */
export function lastLowStartingBefore(lowStarts: readonly number[], ms: number): number {
  return firstStartingAtOrAfter(lowStarts, ms) - 1;
}

/**
 * The first index of `leaf` whose event is not before the event at (`start`, `id`) in list order (compareEvents,
 * sort-events.ts). It reads the leaf's arrays of starts and ids, never the events: they come in several shapes (a
 * replayed PackedEvent reads its start through a getter), and the searches of every insert made some twenty such
 * reads on each tree.
 */
export function lowerBound(leaf: Leaf, start: number, id: string): number {
  const starts = leaf.starts;
  let low = 0;
  let high = starts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const itemStart = starts[middle]!;
    if (itemStart < start || (itemStart === start && leaf.ids[middle]! < id)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first index whose start is at or after `ms`. */
export function firstStartingAtOrAfter(starts: readonly number[], ms: number): number {
  let low = 0;
  let high = starts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (starts[middle]! < ms) low = middle + 1;
    else high = middle;
  }
  return low;
}
