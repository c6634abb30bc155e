// The structural invariants of OrderedEvents' B+tree, checked from outside through its read-only root (test-only: the
// service never needs them, so they do not live in src/). Nothing here changes the tree.
import type { StoredEvent } from '../../../src/events/event.js';
import { type Leaf, MAX_ENTRIES, MIN_ENTRIES, type OrderedEvents, type TreeNode } from '../../../src/store/views/ordered-events.js';
import { compareEvents } from '../../../src/store/views/sort-events.js';

/** What a valid tree looks like, for tests that pin its shape: entries per node, level by level from the root. */
export interface TreeShape {
  /** levels[0] is [entries of the root]; the last level lists the leaves' item counts, left to right. */
  levels: number[][];
}

const entriesOf = (node: TreeNode): number => (node.leaf ? node.items.length : node.children.length);
const firstOf = (node: TreeNode): StoredEvent | undefined => (node.leaf ? node.items[0] : node.lows[0]);

function latestEnd(items: readonly StoredEvent[]): number {
  let max = -Infinity;
  for (let i = 0; i < items.length; i++) if (items[i]!.endMs > max) max = items[i]!.endMs;
  return max;
}

/**
 * Throws when an invariant does not hold: every node but the root holds 16 to 64 entries, a root branch at least 2
 * children; sizes, latest ends and lows are those of the children; leaves all at one depth, each linked to the next;
 * events in strict list order. Returns the tree's shape.
 */
export function checkInvariants(tree: OrderedEvents): TreeShape {
  const levels: number[][] = [];
  const leaves: Leaf[] = [];
  const visit = (node: TreeNode, depth: number): { size: number; maxEnd: number; leafDepth: number } => {
    const entries = entriesOf(node);
    (levels[depth] ??= []).push(entries);
    if (depth > 0 && entries < MIN_ENTRIES) throw new Error(`a node holds ${entries} entries, fewer than ${MIN_ENTRIES}`);
    if (entries > MAX_ENTRIES) throw new Error(`a node holds ${entries} entries, more than ${MAX_ENTRIES}`);
    if (node.leaf) {
      if (!Object.is(node.maxEnd, latestEnd(node.items))) throw new Error(`a leaf's maxEnd is ${node.maxEnd}, not ${latestEnd(node.items)}`);
      leaves.push(node);
      return { size: entries, maxEnd: node.maxEnd, leafDepth: depth };
    }
    if (entries < 2) throw new Error(`a branch has ${entries} child`);
    if (node.lows.length !== entries) throw new Error(`a branch has ${node.lows.length} lows for ${entries} children`);
    let size = 0;
    let maxEnd = -Infinity;
    let leafDepth = -1;
    for (let i = 0; i < entries; i++) {
      const child = node.children[i]!;
      if (node.lows[i] !== firstOf(child)) throw new Error(`low ${i} of a branch is not its child's first event`);
      const below = visit(child, depth + 1);
      if (leafDepth !== -1 && below.leafDepth !== leafDepth) throw new Error('leaves at different depths');
      leafDepth = below.leafDepth;
      size += below.size;
      maxEnd = Math.max(maxEnd, below.maxEnd);
    }
    if (node.size !== size) throw new Error(`a branch's size is ${node.size}, not ${size}`);
    if (node.maxEnd !== maxEnd) throw new Error(`a branch's maxEnd is ${node.maxEnd}, not ${maxEnd}`);
    return { size, maxEnd, leafDepth };
  };
  const { size } = visit(tree.root, 0);
  if (tree.size !== size) throw new Error(`size is ${tree.size}, the leaves hold ${size}`);
  for (let i = 0; i < leaves.length; i++) {
    if (leaves[i]!.next !== leaves[i + 1]) throw new Error(`leaf ${i} does not link to the leaf after it`);
  }
  let previous: StoredEvent | undefined;
  for (const leaf of leaves) {
    for (const stored of leaf.items) {
      if (previous !== undefined && compareEvents(previous, stored) >= 0) throw new Error(`${previous.id} and ${stored.id} are out of list order`);
      previous = stored;
    }
  }
  return { levels };
}

/** Reads of the tree's nodes by property (`items`, `children`, `next`, `maxEnd`, `size`, `lows`), since the last reset. */
export interface NodeReads {
  of(property: string): number;
  reset(): void;
}

/**
 * Counts every read of a property of every node now in the tree (nodes made later are not counted): a test of how
 * much of the tree an operation visits, the way counting reads of an event's times pins what it skips.
 */
export function countNodeReads(tree: OrderedEvents): NodeReads {
  const reads = new Map<string, number>();
  const nodes: TreeNode[] = [];
  const collect = (node: TreeNode): void => {
    nodes.push(node);
    if (!node.leaf) node.children.forEach(collect);
  };
  collect(tree.root);
  for (const node of nodes) {
    for (const property of ['items', 'children', 'next', 'maxEnd', 'size', 'lows'] as const) {
      if (!(property in node)) continue;
      let value = (node as unknown as Record<string, unknown>)[property];
      Object.defineProperty(node, property, {
        get: () => (reads.set(property, (reads.get(property) ?? 0) + 1), value),
        set: (next: unknown) => void (value = next),
        enumerable: true,
      });
    }
  }
  return { of: (property) => reads.get(property) ?? 0, reset: () => reads.clear() };
}
