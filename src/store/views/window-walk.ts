// Walking a window of ranks of an ordered tree in list order: a page of the events passing a test, or their count.
import type { StoredEvent } from '../../events/event.js';
import type { OrderedEvents } from './ordered-events.js';

/** Events read from a tree at a time while walking. */
const CHUNK = 256;

/** Ranks [from, to) of one tree. */
export interface RankWindow {
  tree: OrderedEvents;
  from: number;
  to: number;
}

/** Up to `limit` events of the window passing `test`, after skipping the first `skip` that pass. */
export function walk(window: RankWindow, test: (stored: StoredEvent) => boolean, skip: number, limit: number): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (let rank = window.from; rank < window.to && out.length < limit; rank += CHUNK) {
    for (const stored of window.tree.slice(rank, Math.min(CHUNK, window.to - rank))) {
      if (!test(stored)) continue;
      if (skip > 0) skip--;
      else if (out.push(stored) === limit) break;
    }
  }
  return out;
}

/** How many events of the window pass `test`. */
export function walkCount(window: RankWindow, test: (stored: StoredEvent) => boolean): number {
  let count = 0;
  for (let rank = window.from; rank < window.to; rank += CHUNK) {
    for (const stored of window.tree.slice(rank, Math.min(CHUNK, window.to - rank))) if (test(stored)) count++;
  }
  return count;
}
