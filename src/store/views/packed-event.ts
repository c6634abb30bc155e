// A replayed event whose fields live in the columns and text arena of a PackedEvents table (see packed-events.ts).
import type { Category } from '../../events/event.js';
import { EventState } from './served-event.js';

/** The columns a PackedEvent reads its fields from, by slot: what PackedEvents offers it (named here, so this file need not import that one). */
export interface PackedColumns {
  startMs(slot: number): number;
  endMs(slot: number): number;
  createdMs(slot: number): number;
  modifiedMs(slot: number): number;
  seq(slot: number): number;
  category(slot: number): Category;
  seats(slot: number): { capacity: number; registered: number };
  email(slot: number): string;
  seriesId(slot: number): string | undefined;
  json(slot: number, id: string): string;
  viewCrc(slot: number, id: string): number;
  viewBytes(slot: number, id: string): number;
  recount(slot: number, id: string, registered: number, seq: number, modifiedMs: number): PackedEvent;
  searchTextKey(slot: number, field: number): number;
  searchText(slot: number, field: number): string;
}

/** A replayed event whose state lives in a PackedEvents slot: an id and a slot on the heap, the rest in columns and the arena. */
export class PackedEvent extends EventState {
  readonly #table: PackedColumns;
  readonly #slot: number;

  constructor(
    table: PackedColumns,
    slot: number,
    readonly id: string,
  ) {
    super();
    this.#table = table;
    this.#slot = slot;
  }

  get startMs(): number {
    return this.#table.startMs(this.#slot);
  }
  get endMs(): number {
    return this.#table.endMs(this.#slot);
  }
  get category(): Category {
    return this.#table.category(this.#slot);
  }
  get organizerEmail(): string {
    return this.#table.email(this.#slot).toLowerCase();
  }
  get createdAt(): string {
    return new Date(this.#table.createdMs(this.#slot)).toISOString();
  }
  get seq(): number {
    return this.#table.seq(this.#slot);
  }
  get modifiedMs(): number {
    return this.#table.modifiedMs(this.#slot);
  }
  get seriesId(): string | undefined {
    return this.#table.seriesId(this.#slot);
  }
  get json(): string {
    return this.#table.json(this.#slot, this.id);
  }
  viewCrc(): number {
    return this.#table.viewCrc(this.#slot, this.id);
  }
  viewBytes(): number {
    return this.#table.viewBytes(this.#slot, this.id);
  }
  seats(): { capacity: number; registered: number } {
    return this.#table.seats(this.#slot);
  }
  /** A key of a searched text field (0 title, 1 description, 2 location, 3 organizer name): equal keys, equal text. */
  searchTextKey(field: number): number {
    return this.#table.searchTextKey(this.#slot, field);
  }
  /** A searched text field, numbered as searchTextKey numbers them, without building the whole view. */
  searchText(field: number): string {
    return this.#table.searchText(this.#slot, field);
  }
  /** This event with another count, seq and time, sharing this one's text (replay's recount). */
  recounted(registered: number, seq: number, modifiedMs: number): PackedEvent {
    return this.#table.recount(this.#slot, this.id, registered, seq, modifiedMs);
  }
}
