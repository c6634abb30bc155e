// The slots of the search index: each live event has one (the bit it owns in every bitmap), with its category and month.
import { CATEGORIES, type Category, type StoredEvent } from '../events/event.js';
import type { EventForms } from './event-forms.js';
import { MonthPostings } from './search-months.js';
import type { Posting } from './search-postings.js';
import { SlotBitmap } from './search-postings.js';

/**
 * Which event is in which slot, and the slots of each category and start month. Slots of deleted events are
 * reused, which keeps bitmaps as long as the most events ever live at once.
 *
 * An event's slot is kept on the store's own event objects (those `forms.holdsSlot` says keep one), not in a Map by id: at
 * 1,000,000 events that Map cost tens of MiB and most of the main thread's time placing a bulk load, and a string
 * hash lookup for every event a `q` page walks. A slot read from an object is trusted only if that slot holds that
 * very object here, so an object indexed by two tables (tests, benches) is never misread; the second table, and
 * any event that keeps none (a test's literal), keeps its slot in `#spare`, by id, as before.
 */
export class SlotTable {
  readonly #holdsSlot: EventForms['holdsSlot'];
  readonly #spare = new Map<string, number>();
  #events: (StoredEvent | undefined)[] = [];
  readonly #freeSlots: number[] = [];
  readonly #byCategory = new Map<Category, SlotBitmap>(CATEGORIES.map((category) => [category, new SlotBitmap()]));
  readonly #months = new MonthPostings();

  /** `forms` tells which events keep their slot themselves (the store's). */
  constructor(forms: EventForms) {
    this.#holdsSlot = forms.holdsSlot;
  }

  /** Slots in use, free or reserved: the length of every bitmap. */
  get capacity(): number {
    return this.#events.length;
  }

  /** Events whose slot is kept by id (one that keeps none, or held by another table first): none in a store's index. */
  get spared(): number {
    return this.#spare.size;
  }

  /** The event in `slot`, if live. */
  eventAt(slot: number): StoredEvent | undefined {
    return this.#events[slot];
  }

  /** The slot of `stored`, if it is a live event here (this very object, not another state of its id). */
  slotOf(stored: StoredEvent): number | undefined {
    if (this.#holdsSlot(stored)) {
      const slot = stored.searchSlot;
      if (slot >= 0 && this.#events[slot] === stored) return slot;
    }
    if (this.#spare.size === 0) return undefined;
    const slot = this.#spare.get(stored.id);
    return slot !== undefined && this.#events[slot] === stored ? slot : undefined;
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
    this.#events[slot] = stored;
    this.#claim(stored, slot);
    this.categoryBitmap(stored.category).add(slot);
    this.#months.move(slot, undefined, stored.startMs, this.capacity);
  }

  /** Puts `stored` in `slot`, in place of `previous` (the same id's former state). */
  replace(slot: number, previous: StoredEvent, stored: StoredEvent): void {
    this.#forget(previous, slot);
    this.#events[slot] = stored;
    this.#claim(stored, slot);
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
    this.#forget(stored, slot);
    this.#events[slot] = undefined;
    this.#freeSlots.push(slot);
  }

  /** Frees a reserved slot that no event took. */
  free(slot: number): void {
    this.#freeSlots.push(slot);
  }

  /** Notes that `stored`, just put in `slot`, is there: on the object when it keeps its slot and no table has taken it yet. */
  #claim(stored: StoredEvent, slot: number): void {
    if (this.#holdsSlot(stored) && stored.searchSlot === -1) stored.searchSlot = slot;
    else this.#spare.set(stored.id, slot);
  }

  /** Undoes #claim for `stored`, leaving `slot`: its slot goes back to -1, so a slot on an object is never stale here. */
  #forget(stored: StoredEvent, slot: number): void {
    if (this.#spare.size > 0 && this.#spare.get(stored.id) === slot) this.#spare.delete(stored.id);
    else if (this.#holdsSlot(stored) && stored.searchSlot === slot) stored.searchSlot = -1;
  }
}
