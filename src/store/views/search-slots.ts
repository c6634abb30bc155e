// The slots of the search index: each live event has one (the bit it owns in every bitmap), with its category and month.
import { CATEGORIES, type Category, type StoredEvent } from '../../events/event.js';
import { MonthPostings } from './search-months.js';
import type { Posting } from './search-postings.js';
import { SlotBitmap } from './search-postings.js';

/**
 * Which event is in which slot, and the slots of each category and start month. Slots of deleted events are
 * reused, which keeps bitmaps as long as the most events ever live at once.
 */
export class SlotTable {
  readonly #slotOf = new Map<string, number>();
  #events: (StoredEvent | undefined)[] = [];
  readonly #freeSlots: number[] = [];
  readonly #byCategory = new Map<Category, SlotBitmap>(CATEGORIES.map((category) => [category, new SlotBitmap()]));
  readonly #months = new MonthPostings();

  /** Slots in use, free or reserved: the length of every bitmap. */
  get capacity(): number {
    return this.#events.length;
  }

  /** The event in `slot`, if live. */
  eventAt(slot: number): StoredEvent | undefined {
    return this.#events[slot];
  }

  /** The slot of a live event. */
  slotOf(id: string): number | undefined {
    return this.#slotOf.get(id);
  }

  /** The slots of each category's live events. */
  categoryBitmap(category: Category): SlotBitmap {
    return this.#byCategory.get(category)!;
  }

  /** The slots of the events starting in UTC month `month` (`year * 12 + month - 1`; see monthOf). */
  monthPosting(month: number): Posting | undefined {
    return this.#months.get(month);
  }

  /** The months that hold events, ascending. */
  months(): number[] {
    return this.#months.months();
  }

  /** Keeps slots [0, count) for a bulk load, which places its events there (place): new events go after. Before any place. */
  reserve(count: number): void {
    this.#events = new Array<StoredEvent | undefined>(count).fill(undefined);
  }

  /** A slot for a new event: a free one, else one past the end. */
  newSlot(): number {
    return this.#freeSlots.pop() ?? this.#events.length;
  }

  /** Gives `stored` the slot `slot` (new, free or reserved), with its category and month. */
  place(stored: StoredEvent, slot: number): void {
    this.#slotOf.set(stored.id, slot);
    this.#events[slot] = stored;
    this.categoryBitmap(stored.category).add(slot);
    this.#months.move(slot, undefined, stored.startMs, this.capacity);
  }

  /** Puts `stored` in `slot`, in place of `previous` (the same id's former state). */
  replace(slot: number, previous: StoredEvent, stored: StoredEvent): void {
    this.#events[slot] = stored;
    if (previous.category !== stored.category) {
      this.categoryBitmap(previous.category).remove(slot);
      this.categoryBitmap(stored.category).add(slot);
    }
    this.#months.move(slot, previous.startMs, stored.startMs, this.capacity);
  }

  /** Empties `slot`, which held a live event, and frees it. */
  remove(slot: number): void {
    const stored = this.#events[slot]!;
    this.categoryBitmap(stored.category).remove(slot);
    this.#months.move(slot, stored.startMs, undefined, this.capacity);
    this.#slotOf.delete(stored.id);
    this.#events[slot] = undefined;
    this.#freeSlots.push(slot);
  }

  /** Frees a reserved slot that no event took. */
  free(slot: number): void {
    this.#freeSlots.push(slot);
  }
}
