// Walking a window of ranks of an ordered tree in list order: a page of the events passing a test, or their count.
import type { StoredEvent } from '../../events/event.js';
import { runAtOnce, type Steps } from '../../lib/loop-turns.js';
import type { OrderedEvents } from './ordered-events.js';

/** Events read from a tree at a time while walking (and between two steps of the walk's steps). */
const CHUNK = 256;

/** Ranks [from, to) of one tree. */
export interface RankWindow {
  tree: OrderedEvents;
  from: number;
  to: number;
}

/** Up to `limit` events of the window passing `test`, after skipping the first `skip` that pass. */
export function walk(window: RankWindow, test: (stored: StoredEvent) => boolean, skip: number, limit: number): StoredEvent[] {
  return runAtOnce(walkSteps(window, test, skip, limit));
}

/** walk() in steps of CHUNK events (see runInSlices): a walk of a deep page may visit the whole window. */
export function* walkSteps(window: RankWindow, test: (stored: StoredEvent) => boolean, skip: number, limit: number): Steps<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (let rank = window.from; rank < window.to && out.length < limit; rank += CHUNK) {
    for (const stored of window.tree.slice(rank, Math.min(CHUNK, window.to - rank))) {
      if (!test(stored)) continue;
      if (skip > 0) skip--;
      else if (out.push(stored) === limit) break;
    }
    yield;
  }
  return out;
}

/** How many events of the window pass `test`. */
export function walkCount(window: RankWindow, test: (stored: StoredEvent) => boolean): number {
  return runAtOnce(walkCountSteps(window, test));
}

/** walkCount() in steps of CHUNK events. */
export function* walkCountSteps(window: RankWindow, test: (stored: StoredEvent) => boolean): Steps<number> {
  let count = 0;
  for (let rank = window.from; rank < window.to; rank += CHUNK) {
    for (const stored of window.tree.slice(rank, Math.min(CHUNK, window.to - rank))) if (test(stored)) count++;
    yield;
  }
  return count;
}
