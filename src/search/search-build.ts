// The search index's bulk build after a start: the replayed events placed in slots a step at a time, their words
// collected here (on the main thread) or taken from a build of the log done meanwhile in a worker (adopt).
import type { StoredEvent } from '../events/event.js';
import { builtSlots, remapped } from './search-adopt.js';
import { BulkPostings } from './search-bulk.js';
import { type BuiltSearch, packedOf, releaseEvents } from './search-built.js';
import type { EventTerms } from './search-event-terms.js';
import type { PackedPostings, PostingTable } from './search-posting-table.js';
import { SlotBitmap } from './search-postings.js';
import type { SlotTable } from './search-slots.js';
import { SearchTerms } from './search-terms.js';

/** Added events packed per step, per event collected per step (packing one is far cheaper than collecting it). */
const PACK_STEPS_PER_COLLECT = 8;
/** Events placed per step, per event collected per step, when the words come from elsewhere. */
export const PLACE_STEPS_PER_COLLECT = 8;

/** What the build changes in the index. */
export interface BuildHost {
  slots: SlotTable;
  eventTerms: EventTerms;
  postings: PostingTable;
  add(term: number, slot: number): void;
  remove(term: number, slot: number): void;
}

/**
 * The build of the events of a bulk load: event i of the load takes slot i (writes meanwhile take slots after
 * them). Writes during the build are noted (noteNew, noteWrite): their terms are set right at the end, once the
 * postings of the bulk load are installed.
 */
export class SearchBuild {
  readonly #host: BuildHost;
  readonly #pending: readonly StoredEvent[];
  /** Events placed, and events whose words are collected (here, on the main thread). */
  #placedUpTo = 0;
  #collectedUpTo = 0;
  readonly #bulk = new BulkPostings();
  /** The postings, once packed here or adopted from a worker's build. */
  #packed: PackedPostings | undefined;
  #adopted = false;
  /** The slots placed; those written since; the state each written one had when placed (its terms then come out again). */
  readonly #placed: SlotBitmap;
  readonly #rewritten = new Set<number>();
  readonly #stale = new Map<number, StoredEvent>();
  /** Reserved slots whose event was written before it was placed: freed at the end (and a worker's terms taken out). */
  readonly #unclaimed: number[] = [];
  /** Puts and deletes since the bulk load: until the first, every pending event is still live and unplaced. */
  #changes = 0;

  constructor(host: BuildHost, pending: readonly StoredEvent[]) {
    this.#host = host;
    this.#pending = pending;
    this.#placed = new SlotBitmap(pending.length);
    host.slots.reserve(pending.length);
  }

  /** How far the build is, as `indexed of total` events of the bulk load. */
  get progress(): { indexed: number; total: number } {
    return { indexed: this.#adopted ? this.#placedUpTo : this.#collectedUpTo, total: this.#pending.length };
  }

  /**
   * Takes the words of the load from `built` (the log read in a worker), if it holds exactly the pending events.
   * Returns why not otherwise (the steps then collect them here). Before the first step that collects.
   */
  adopt(built: BuiltSearch): string | undefined {
    if (this.#collectedUpTo > 0 || this.#adopted) return 'the build had begun';
    const slotOf = builtSlots(this.#pending, built);
    if (typeof slotOf === 'string') return slotOf;
    const events = built.putSeqs.length;
    releaseEvents(built);
    this.#host.eventTerms.adopt(SearchTerms.fromParts(built.terms));
    this.#packed = remapped(packedOf(built), slotOf, events);
    this.#adopted = true;
    return undefined;
  }

  /** A put or delete is about to happen during the build (before any other note of it). */
  noteChange(): void {
    this.#changes++;
  }

  /** A new event took `slot` during the build. */
  noteNew(slot: number): void {
    this.#rewritten.add(slot);
  }

  /** The event in `slot` is about to be replaced or deleted during the build. */
  noteWrite(slot: number): void {
    if (this.#placed.has(slot) && !this.#stale.has(slot)) this.#stale.set(slot, this.#host.slots.eventAt(slot)!);
    this.#rewritten.add(slot);
  }

  /**
   * Places up to `count` more pending events in their slots, without their words (a worker is collecting them),
   * `isCurrent` telling whether one is still the live state (this very object). Returns true once all are placed.
   * Until the first put or delete (noteChange) every pending event is live: `isCurrent` (a Map lookup by id for
   * each event of the bulk load) is asked only after one.
   */
  placeSome(count: number, isCurrent: (stored: StoredEvent) => boolean): boolean {
    const { slots } = this.#host;
    const end = Math.min(this.#pending.length, this.#placedUpTo + count);
    const changed = this.#changes > 0;
    for (let slot = this.#placedUpTo; slot < end; slot++) {
      const stored = this.#pending[slot]!;
      // Written before it was placed: the write gave it another slot (or, put back, this one another), or deleted it.
      if (changed && (slots.slotOf(stored) !== undefined || !isCurrent(stored))) this.#unclaimed.push(slot);
      else {
        slots.place(stored, slot);
        this.#placed.add(slot);
      }
    }
    this.#placedUpTo = end;
    return end === this.#pending.length;
  }

  /**
   * Places the pending events and collects their words, `count` a step (or only places them, more a step, when
   * the words are adopted); then packs, a step at a time too, installs the postings and sets the written slots
   * right. Returns true once done.
   */
  step(count: number, isCurrent: (stored: StoredEvent) => boolean): boolean {
    const total = this.#pending.length;
    if (this.#adopted) {
      if (!this.placeSome(count * PLACE_STEPS_PER_COLLECT, isCurrent)) return false;
    } else {
      // Once all are collected, this collects nothing more.
      const end = Math.min(total, this.#collectedUpTo + count);
      if (this.#placedUpTo < end) this.placeSome(end - this.#placedUpTo, isCurrent);
      const { eventTerms } = this.#host;
      const terms: number[] = [];
      for (let slot = this.#collectedUpTo; slot < end; slot++) {
        if (!this.#placed.has(slot)) continue;
        eventTerms.termsOf(this.#pending[slot]!, terms);
        this.#bulk.add(slot, terms);
        terms.length = 0;
      }
      this.#collectedUpTo = end;
      if (end < total) return false;
    }
    // Packing, a step at a time too. A load of one step is packed in the same step (it packs 8 × count), so a small
    // campus is indexed before the server listens.
    this.#packed ??= this.#bulk.packSome(this.#host.eventTerms.terms.size, this.#host.slots.capacity, count * PACK_STEPS_PER_COLLECT);
    if (this.#packed === undefined) return false;
    this.#finish(this.#packed);
    return true;
  }

  #finish(packed: PackedPostings): void {
    const { slots, eventTerms, postings, add, remove } = this.#host;
    postings.install(packed);
    for (const slot of this.#unclaimed) {
      // A worker's build holds the event as the log had it: its terms come out of the slot.
      if (this.#adopted) for (const term of eventTerms.distinct(this.#pending[slot]!)) remove(term, slot);
      slots.free(slot);
    }
    for (const slot of this.#rewritten) {
      const stale = this.#stale.get(slot);
      if (stale !== undefined) for (const term of eventTerms.distinct(stale)) remove(term, slot);
      const stored = slots.eventAt(slot);
      if (stored !== undefined) for (const term of eventTerms.distinct(stored)) add(term, slot);
    }
  }
}
