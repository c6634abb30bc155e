// The search index's bulk build after a start: the replayed events placed in slots a step at a time, their words
// collected here (on the main thread) or taken from a build of the log done meanwhile in a worker (adopt).
import type { StoredEvent } from '../../events/event.js';
import { builtSlots } from './search-adopt.js';
import { BulkPostings } from './search-bulk.js';
import { type BuiltSearch, packedOf } from './search-built.js';
import type { EventTerms } from './search-event-terms.js';
import type { PackedPostings, PostingTable } from './search-posting-table.js';
import { SlotBitmap } from './search-postings.js';
import type { SlotTable } from './search-slots.js';
import { SearchTerms } from './search-terms.js';

/** Added events packed per step, per event collected per step (packing one is far cheaper than collecting it). */
const PACK_STEPS_PER_COLLECT = 8;
/** Events placed per step, per event collected per step, when the words come from a worker's build. */
const PLACE_STEPS_PER_COLLECT = 8;

/** What the build changes in the index. */
export interface BuildHost {
  slots: SlotTable;
  eventTerms: EventTerms;
  postings: PostingTable;
  add(term: number, slot: number): void;
  remove(term: number, slot: number): void;
}

/**
 * The build of the events of a bulk load, which own slots [0, events) from the start (writes meanwhile take slots
 * after them). Writes during the build are noted (noteNew, noteWrite): their terms are set right at the end, once
 * the postings of the bulk load are installed.
 */
export class SearchBuild {
  readonly #host: BuildHost;
  readonly #pending: readonly StoredEvent[];
  #at = 0;
  /** The words collected here; undefined once a worker's build is adopted. */
  #bulk: BulkPostings | undefined = new BulkPostings();
  /** A worker's build: the slot of each pending event, and its postings. */
  #slotOf: Uint32Array | undefined;
  #packed: PackedPostings | undefined;
  /** The slots placed; those written since; the state each written one had when placed (its terms then come out again). */
  readonly #placed: SlotBitmap;
  readonly #rewritten = new Set<number>();
  readonly #stale = new Map<number, StoredEvent>();
  /** Reserved slots whose event was written before it was placed: freed at the end (and a worker's terms taken out). */
  readonly #unclaimed: number[] = [];

  constructor(host: BuildHost, pending: readonly StoredEvent[]) {
    this.#host = host;
    this.#pending = pending;
    this.#placed = new SlotBitmap(pending.length);
    host.slots.reserve(pending.length);
  }

  /** How far the build is, as `indexed of total` events of the bulk load. */
  get progress(): { indexed: number; total: number } {
    return { indexed: this.#at, total: this.#pending.length };
  }

  /**
   * Takes the index `built` from the log in a worker, if it holds exactly the pending events: then the steps only
   * place them. Returns why not otherwise (the build then goes on collecting the words itself). Before any step.
   */
  adopt(built: BuiltSearch): string | undefined {
    if (this.#at > 0 || this.#bulk === undefined) return 'the build had begun';
    const slots = builtSlots(this.#pending, built);
    if (typeof slots === 'string') return slots;
    this.#host.eventTerms.adopt(SearchTerms.fromParts(built.terms));
    this.#slotOf = slots;
    this.#packed = packedOf(built);
    this.#bulk = undefined;
    return undefined;
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
   * Places (and collects the words of) up to `count` more pending events, `isCurrent` telling whether one is still
   * the live state; then packs, a step at a time too, installs the postings and sets the written slots right.
   * Returns true once done.
   */
  step(count: number, isCurrent: (stored: StoredEvent) => boolean): boolean {
    const { slots, eventTerms } = this.#host;
    const pending = this.#pending;
    const bulk = this.#bulk;
    const end = Math.min(pending.length, this.#at + (bulk === undefined ? count * PLACE_STEPS_PER_COLLECT : count));
    const terms: number[] = [];
    for (; this.#at < end; this.#at++) {
      const stored = pending[this.#at]!;
      const slot = this.#slotOf === undefined ? this.#at : this.#slotOf[this.#at]!;
      if (slots.slotOf(stored.id) !== undefined || !isCurrent(stored)) {
        this.#unclaimed.push(this.#at);
        continue;
      }
      slots.place(stored, slot);
      this.#placed.add(slot);
      if (bulk === undefined) continue;
      terms.length = 0;
      eventTerms.termsOf(stored, terms);
      bulk.add(slot, terms);
    }
    if (end < pending.length) return false;
    // Packing, a step at a time too. A load of one step is packed in the same step, so a small campus is indexed
    // before the server listens.
    this.#packed ??= bulk!.packSome(eventTerms.terms.size, slots.capacity, pending.length <= count ? Infinity : count * PACK_STEPS_PER_COLLECT);
    if (this.#packed === undefined) return false;
    this.#finish(this.#packed);
    return true;
  }

  #finish(packed: PackedPostings): void {
    const { slots, eventTerms, postings, add, remove } = this.#host;
    postings.install(packed);
    for (const at of this.#unclaimed) {
      const slot = this.#slotOf === undefined ? at : this.#slotOf[at]!;
      if (this.#slotOf !== undefined) for (const term of eventTerms.distinct(this.#pending[at]!)) remove(term, slot);
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
