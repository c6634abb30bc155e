// The `total` of `q` with dates, by month: a month wholly inside the window is one AND of bitmaps, only its edges are walked.
import type { Category, StoredEvent } from '../../events/event.js';
import type { OrderedEvents } from './ordered-events.js';
import { monthStart, type SearchIndex } from '../../search/search-index.js';
import { postingPushInto, SlotBitmap } from '../../search/search-postings.js';
import { walkCount } from './window-walk.js';

/** What to count: events of `tree` starting in [startFromMs, endByMs], ending by endByMs, of `categories` (empty: all), in `matched`. */
export interface WindowMatches {
  tree: OrderedEvents;
  search: SearchIndex;
  matched: SlotBitmap;
  categories: readonly Category[];
  startFromMs: number | undefined;
  endByMs: number | undefined;
}

/** Walking one event costs about as much as ANDing this many machine words of bitmaps. */
const WORDS_PER_VISIT = 40;

/**
 * The count, or undefined when walking the whole window would cost less (a narrow window). Each month the window
 * covers whole is counted from its bitmap; a month it covers in part is walked on the smaller side of the window's
 * edge (inside, or the whole month less the outside); then the window's events ending after endByMs are taken off.
 */
export function countWindowMatches(spec: WindowMatches): number | undefined {
  const { tree, search, matched, categories } = spec;
  const low = spec.startFromMs ?? -Infinity;
  const high = spec.endByMs === undefined ? Infinity : spec.endByMs + 1;
  const ranks = (from: number, to: number): { from: number; to: number } => ({ from: tree.countStartingBefore(from), to: tree.countStartingBefore(to) });
  const wanted = categories.length === 0 ? undefined : new Set(categories);
  const inMatch = (stored: StoredEvent): boolean => (wanted === undefined || wanted.has(stored.category)) && matched.has(search.slotOf(stored)!);
  const categoryBitmaps = categories.map((category) => search.categoryBitmap(category));

  const steps: (() => number)[] = [];
  let cost = 0;
  for (const month of search.months()) {
    const monthFrom = monthStart(month);
    const monthTo = monthStart(month + 1);
    if (monthTo <= low || monthFrom >= high) continue;
    const whole = (): number => monthCount(search, month, matched, categoryBitmaps, wanted);
    const wholeCost = monthCost(search, month);
    if (monthFrom >= low && monthTo <= high) {
      steps.push(whole);
      cost += wholeCost;
      continue;
    }
    const inside = ranks(Math.max(monthFrom, low), Math.min(monthTo, high));
    const all = ranks(monthFrom, monthTo);
    const insideCount = inside.to - inside.from;
    if (insideCount <= wholeCost + (all.to - all.from - insideCount)) {
      steps.push(() => walkCount({ tree, ...inside }, inMatch));
      cost += insideCount;
    } else {
      steps.push(() => whole() - walkCount({ tree, from: all.from, to: inside.from }, inMatch) - walkCount({ tree, from: inside.to, to: all.to }, inMatch));
      cost += wholeCost + all.to - all.from - insideCount;
    }
  }
  const window = ranks(low, high);
  if (cost >= window.to - window.from) return undefined;
  let count = 0;
  for (const step of steps) count += step();
  if (spec.endByMs !== undefined) {
    for (const rank of tree.ranksEndingAfter(low, spec.endByMs)) if (inMatch(tree.slice(rank, 1)[0]!)) count--;
  }
  return count;
}

/** In walked events, what counting month `month` whole costs. */
function monthCost(search: SearchIndex, month: number): number {
  const posting = search.monthPosting(month)!;
  return posting instanceof SlotBitmap ? posting.words.length / WORDS_PER_VISIT : typeof posting === 'number' ? 1 : posting.length;
}

/** The matched events of the categories starting in month `month`. */
function monthCount(search: SearchIndex, month: number, matched: SlotBitmap, categoryBitmaps: readonly SlotBitmap[], wanted: ReadonlySet<Category> | undefined): number {
  const posting = search.monthPosting(month)!;
  if (posting instanceof SlotBitmap) {
    if (categoryBitmaps.length === 0) return matched.countSharedWithAll([posting]);
    return categoryBitmaps.reduce((sum, category) => sum + matched.countSharedWithAll([posting, category]), 0);
  }
  const slots: number[] = [];
  postingPushInto(posting, slots);
  return slots.filter((slot) => matched.has(slot) && (wanted === undefined || wanted.has(search.eventAt(slot)!.category))).length;
}
