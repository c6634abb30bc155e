// Bulk sort of events into list order (start time, then id) by radix passes over typed arrays: a JS comparator over 1M events takes seconds.
import type { StoredEvent } from '../../events/event.js';

/** The list order (API.md §5): start time ascending, then id by plain string comparison. */
export function compareEvents(a: StoredEvent, b: StoredEvent): number {
  return a.startMs - b.startMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Characters of an id (after `evt_`) that go into its number key: 5 × 6 bits. */
const PREFIX_CHARS = 5;

/**
 * A new array of `events` in list order; the same result as `slice().sort(compareEvents)`, which it
 * falls back to for unusual input. Each event gets an exact key: its start time (48 bits) and the
 * first 5 characters of its id (30 bits, in an order-keeping code). A stable LSD radix sort by
 * 16-bit digits orders the keys; events whose keys tie (rare for random ids) are then ordered by
 * the full comparison.
 */
export function sortEvents(events: readonly StoredEvent[]): StoredEvent[] {
  const count = events.length;
  // Digits, least significant first: id prefix low, id prefix high, start low, start middle, start high.
  const digits = Array.from({ length: 5 }, () => new Uint16Array(count));
  const prefixes = new Uint32Array(count);
  const starts = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const stored = events[i]!;
    const start = stored.startMs;
    const prefix = idPrefix(stored.id);
    if (prefix < 0 || !(start >= 0 && start < 2 ** 48 && Number.isInteger(start))) return events.slice().sort(compareEvents);
    prefixes[i] = prefix;
    starts[i] = start;
    digits[0]![i] = prefix & 0xffff;
    digits[1]![i] = prefix >>> 16;
    digits[2]![i] = start % 0x10000;
    digits[3]![i] = Math.floor(start / 0x10000) % 0x10000;
    digits[4]![i] = Math.floor(start / 2 ** 32);
  }
  let order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  let scratch = new Uint32Array(count);
  const slots = new Uint32Array(0x10001);
  for (const digit of digits) {
    slots.fill(0);
    for (let i = 0; i < count; i++) slots[digit[i]! + 1]!++;
    if (slots.includes(count)) continue; // every key has the same digit here: the pass would change nothing
    for (let d = 1; d <= 0x10000; d++) slots[d]! += slots[d - 1]!;
    for (let i = 0; i < count; i++) {
      const index = order[i]!;
      scratch[slots[digit[index]!]!++] = index;
    }
    [order, scratch] = [scratch, order];
  }
  const sorted: StoredEvent[] = [];
  for (let k = 0; k < count; k++) sorted.push(events[order[k]!]!);
  orderTiedKeys(sorted, order, starts, prefixes);
  return sorted;
}

/** Orders each stretch of `sorted` whose keys (start, id prefix) are equal by the full comparison. */
function orderTiedKeys(sorted: StoredEvent[], order: Uint32Array, starts: Float64Array, prefixes: Uint32Array): void {
  const sameKey = (k: number, j: number): boolean => starts[order[k]!] === starts[order[j]!] && prefixes[order[k]!] === prefixes[order[j]!];
  for (let k = 1; k < sorted.length; k++) {
    if (!sameKey(k, k - 1)) continue;
    let end = k + 1;
    while (end < sorted.length && sameKey(end, k)) end++;
    const tied = sorted.slice(k - 1, end).sort(compareEvents);
    for (let t = 0; t < tied.length; t++) sorted[k - 1 + t] = tied[t]!;
    k = end;
  }
}

/** The first characters after `evt_` as a number in the same order as the strings, or -1 when the id is not `evt_` + base62. */
function idPrefix(id: string): number {
  if (id.length < 4 + PREFIX_CHARS || !id.startsWith('evt_')) return -1;
  let prefix = 0;
  for (let i = 4; i < 4 + PREFIX_CHARS; i++) {
    const code = id.charCodeAt(i);
    const digit = code >= 48 && code <= 57 ? code - 48 : code >= 65 && code <= 90 ? code - 55 : code >= 97 && code <= 122 ? code - 61 : -1;
    if (digit < 0) return -1;
    prefix = prefix * 64 + digit;
  }
  return prefix;
}
