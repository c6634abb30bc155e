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
  /** Each item's startMs, in step with `items`: the searches read plain arrays, not events of several shapes. */
  starts: number[];
  /** Each item's id as two numbers (EventKey), two entries per item. */
  idKeys: number[];
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
  /** Each low's startMs and id keys, in step with `lows` (two id keys per low). */
  lowStarts: number[];
  lowIdKeys: number[];
  /** Events under this branch. */
  size: number;
  /** The largest endMs under this branch. */
  maxEnd: number;
}

export type TreeNode = Leaf | Branch;

/**
 * Where an event sorts (start time, then id), in numbers: its start, and its id's first twelve characters as two
 * numbers of six each (a character code a byte; one of 255 or more is taken as 255 and ends what the numbers hold), so that
 * most comparisons of ids read no string. Equal numbers leave the ids themselves to decide.
 */
export class EventKey {
  readonly start: number;
  readonly id: string;
  readonly high: number;
  readonly low: number;

  constructor(stored: StoredEvent) {
    this.start = stored.startMs;
    this.id = stored.id;
    [this.high, this.low] = idCodes(this.id);
  }
}

/** An id's two id keys (see EventKey). */
function idCodes(id: string): [number, number] {
  let high = 0;
  let low = 0;
  let clamped = false;
  for (let i = 0; i < 12; i++) {
    let code = clamped || i >= id.length ? 0 : id.charCodeAt(i);
    // 255 and every code past it are one value, after which nothing more is told: the ids decide.
    if (code >= 255) {
      code = 255;
      clamped = true;
    }
    if (i < 6) high = high * 256 + code;
    else low = low * 256 + code;
  }
  return [high, low];
}

function idKeysOf(events: readonly StoredEvent[]): number[] {
  const keys: number[] = [];
  for (const stored of events) keys.push(...idCodes(stored.id));
  return keys;
}

export function newLeaf(items: StoredEvent[]): Leaf {
  return { leaf: true, items, starts: items.map(startOf), idKeys: idKeysOf(items), maxEnd: latestEnd(items), next: undefined };
}

const startOf = (stored: StoredEvent): number => stored.startMs;

export function newBranch(children: TreeNode[]): Branch {
  // size and maxEnd are set by recount.
  const lows = children.map(lowOf);
  const branch: Branch = { leaf: false, children, lows, lowStarts: lows.map(startOf), lowIdKeys: idKeysOf(lows), size: 0, maxEnd: 0 };
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
  const [high, low] = idCodes(stored.id);
  branch.lowIdKeys[2 * i] = high;
  branch.lowIdKeys[2 * i + 1] = low;
}

/** Puts child `child` at `i` of `branch`, and its low. */
export function insertChild(branch: Branch, i: number, child: TreeNode): void {
  const low = lowOf(child);
  branch.children.splice(i, 0, child);
  branch.lows.splice(i, 0, low);
  branch.lowStarts.splice(i, 0, low.startMs);
  branch.lowIdKeys.splice(2 * i, 0, ...idCodes(low.id));
}

/** The index of the child of `branch` whose range holds the event at `key` (0 when it sorts before every low). */
export function childFor(branch: Branch, key: EventKey): number {
  let low = 1;
  let high = branch.lowStarts.length;
  // The largest i with lows[i] <= the event, found among 1..length-1; else 0.
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (entryBefore(branch.lowStarts, branch.lowIdKeys, branch.lows, middle, key, true)) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

/**
 * Whether entry `i` of a node (its start in `starts`, its id keys in `idKeys`, its event in `events`) sorts before the
 * event at `key` in list order (compareEvents, sort-events.ts), or is it when `orSame`. It reads numbers, and an event
 * only when they are all equal: events come in several shapes (a replayed PackedEvent reads its start through a
 * getter), ids are strings elsewhere in memory, and every insert made some twenty such comparisons.
 */
function entryBefore(starts: readonly number[], idKeys: readonly number[], events: readonly StoredEvent[], i: number, key: EventKey, orSame: boolean): boolean {
  const start = starts[i]!;
  if (start !== key.start) return start < key.start;
  const high = idKeys[2 * i]!;
  if (high !== key.high) return high < key.high;
  const low = idKeys[2 * i + 1]!;
  if (low !== key.low) return low < key.low;
  const id = events[i]!.id;
  return orSame ? id <= key.id : id < key.id;
}

/** The largest i with lowStarts[i] < ms, or -1. */
export function lastLowStartingBefore(lowStarts: readonly number[], ms: number): number {
  return firstStartingAtOrAfter(lowStarts, ms) - 1;
}

/** The first index of `leaf` whose event is not before the event at `key` in list order. */
export function lowerBound(leaf: Leaf, key: EventKey): number {
  let low = 0;
  let high = leaf.starts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (entryBefore(leaf.starts, leaf.idKeys, leaf.items, middle, key, false)) low = middle + 1;
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
