// How the search index tells the store's own event objects from any other StoredEvent. The store passes this in, so
// the index keeps an event's slot on the event itself and reads a replayed event's texts by key without knowing the
// store's classes (search/ knows no store/: see test/layers.test.ts).
import type { StoredEvent } from '../events/event.js';

/** An event object that keeps its own slot of the search index (the store's events do), -1 for none. */
export interface SlotHolder {
  searchSlot: number;
}

/** An event whose searched texts are read one field at a time, each with a key that is equal for equal text (a replayed one). */
export interface KeyedTexts {
  /** A key of a searched text field (0 title, 1 description, 2 location, 3 organizer name): equal keys, equal text. */
  searchTextKey(field: number): number;
  /** A searched text field, numbered as searchTextKey numbers them. */
  searchText(field: number): string;
}

/** Which events offer more than a StoredEvent: the two questions the index asks of each one it meets. */
export interface EventForms {
  /** Whether `stored` keeps its slot itself; any other event's slot is kept in a map by id. */
  holdsSlot(stored: StoredEvent): stored is StoredEvent & SlotHolder;
  /** Whether `stored`'s texts are read by key; any other's are read from its view. */
  keysTexts(stored: StoredEvent): stored is StoredEvent & KeyedTexts;
}

